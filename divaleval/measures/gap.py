"""GAP, Graded Average Precision (Robertson, Kanoulas, Yilmaz 2010)."""
from __future__ import annotations

import numpy as np

from ..arrays import gap_terms
from ..context import RunContext
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
    terms, position = _gap_terms(ctx, g)
    if cutoff is not None:
        # The entries within the cutoff are a prefix of each row: sum the same columns as a
        # grid of those entries alone would have.
        within = position <= cutoff
        terms = np.where(within, terms, 0.0)[:, : max(int(within.sum(axis=1).max(initial=0)), 1)]
    per_topic = _gap_denominators(ctx.qrels, g)[ctx.topics]
    return divide_or_zero(terms.sum(axis=1), per_topic, where=per_topic > 0)


def _thresholds_of(qrels: Qrels, g: tuple[float, ...]) -> tuple[float, ...]:
    """The threshold probabilities: as given, or uniform over grades 1..C of the qrels."""
    top = int(document_grades(qrels).max(initial=0))
    return g or (1.0 / max(top, 1),) * max(top, 1)


def _cumulative_thresholds(probabilities: tuple[float, ...]):
    cumulative = np.cumsum((0.0,) + probabilities)           # G(c) for c = 0..len(g)
    return lambda c: cumulative[np.minimum(c, len(probabilities))]


@memoised
def _gap_denominators(qrels: Qrels, g: tuple[float, ...]) -> np.ndarray:
    """(topics,) sum over judged documents of G(grade)."""
    G = _cumulative_thresholds(_thresholds_of(qrels, g))
    return np.bincount(qrels.row_topic, weights=G(document_grades(qrels)), minlength=qrels.n_topics)


@memoised
def _gap_terms(ctx: RunContext, g: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(T, W) the numerator's term of each ranked document of grade > 0, in rank order (0 padding),
    and their ranks (PAST_END padding)."""
    qrels = ctx.qrels
    probabilities = _thresholds_of(qrels, g)
    # The documents of grade > 0 (a level >= 1 for some intent) are the hits: their grades in the hits' grid.
    hits = ctx.hits
    grade, position = hits.grid(document_grades(qrels)[hits.row], 0), hits.position
    # sum_{m<=n} G(min(c_m, c_n)) = sum_j g_j [j <= c_n] #{m <= n: c_m >= j}
    return gap_terms(grade, position, probabilities), position
