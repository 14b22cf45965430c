"""GAP, Graded Average Precision (Robertson, Kanoulas, Yilmaz 2010)."""
from __future__ import annotations

import numpy as np

from ..arrays import pad_groups
from ..context import PAST_END, RunContext
from ..model.qrels import Qrels
from .core import OPTIONAL, Param, measure, memoised
from .core.kernels import divide_or_zero


def parse_thresholds(text: str) -> tuple[float, ...]:
    """``0.5:0.3:0.2`` -> (0.5, 0.3, 0.2); empty -> () (uniform over the grades of the qrels)."""
    if not text:
        return ()
    try:
        values = tuple(float(v) for v in text.split(":"))
    except ValueError:
        raise ValueError("expected probabilities g1:g2:... (numbers)") from None
    if any(not np.isfinite(v) or v < 0 for v in values) or abs(sum(values) - 1.0) > 1e-6:
        raise ValueError("the probabilities must be >= 0 and sum to 1")
    return values


def show_thresholds(values: tuple[float, ...]) -> str:
    """The shortest text that reads back to the same probabilities (1, not 1.0)."""
    return ":".join(repr(v).removesuffix(".0") for v in values)


@memoised
def document_grades(qrels: Qrels) -> np.ndarray:
    """Grade of every judged row: its level (ad hoc qrels) or its maximum over intents."""
    return np.maximum(qrels.levels.max(axis=1, initial=0), 0).astype(np.int64)


@measure(
    name="GAP",
    summary="graded average precision: AP averaged over the user's relevance threshold grade",
    params=[Param("g", tuple, (), "probabilities g1:g2:... that the user's threshold is grade 1, 2, ... "
                                  "(default: uniform over grades 1..C, C the highest grade in the qrels)",
                  parse=parse_thresholds, show=show_thresholds)],
    cutoff=OPTIONAL,
    citation="Robertson, Kanoulas, Yilmaz. Extending average precision to graded relevance judgments. SIGIR 2010",
)
def gap(ctx: RunContext, *, g: tuple[float, ...], cutoff: int | None) -> np.ndarray:
    """GAP = [sum_{n: c_n>0} (1/n) sum_{m<=n, c_m>0} G(min(c_m, c_n))] / [sum_{c>=1} R_c G(c)]

    c_n is the grade of the document at rank n: its level in ad hoc qrels, its
    highest level over the intents in intentwise qrels (as the TREC Session
    2011 script); G(c) = g_1 + ... + g_c, a grade above the last threshold
    counting as the last; R_c the judged documents of grade c in the qrels.
    With a cutoff, the numerator stops at rank k and the denominator is
    unchanged. One grade gives AP.
    """
    qrels, run = ctx.qrels, ctx.run
    grades = document_grades(qrels)
    top = int(grades.max(initial=0))
    probabilities = g or (1.0 / max(top, 1),) * max(top, 1)
    cumulative = np.cumsum((0.0,) + probabilities)           # G(c) for c = 0..len(g)

    def G(c):
        return cumulative[np.minimum(c, len(probabilities))]

    # Denominator: sum over judged documents of G(grade), per topic.
    per_topic = np.bincount(qrels.row_topic, weights=G(grades), minlength=qrels.n_topics)[ctx.topics]

    # Numerator over the run's documents of grade > 0, in rank order.
    slot, ok = ctx.run_slots
    ok = ok & (run.row >= 0)
    grade = np.zeros(len(run.row), dtype=np.int64)
    grade[ok] = grades[run.row[ok]]
    hit = ok & (grade > 0)
    if cutoff is not None:
        hit &= run.position <= cutoff
    grade_h, position = pad_groups(slot[hit], ctx.n_topics, (grade[hit], 0), (run.position[hit], PAST_END))
    # sum_{m<=n} G(min(c_m, c_n)) = sum_j g_j [j <= c_n] #{m <= n: c_m >= j}
    inner = np.zeros(grade_h.shape)
    for j, g_j in enumerate(probabilities, start=1):
        at_least = grade_h >= j
        inner += g_j * at_least * np.cumsum(at_least, axis=1)
    numerator = np.where(grade_h > 0, inner / position, 0.0).sum(axis=1)
    return divide_or_zero(numerator, per_topic, where=per_topic > 0)
