"""TOMA, CAM and MM: multi-aspect evaluation (Maistro, Lima, Simonsen, Lioma 2021).

They need multi-aspect qrels (``--aspect NAME=FILE`` ...): every judged document
has a tuple of labels, one per aspect. ``m`` names the single-aspect measure,
any measure of the NCU family (nDCG, AP, ERR, RBP, Q, Prec, RR, ...), with its
default parameters and the cutoff given to TOMA, CAM or MM.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from ..errors import UsageError
from ..multiaspect import BINARISATIONS, DISTANCES, SPACES, binarise, label_space, parse_tuples, toma_weights
from .base import OPTIONAL, REQUIRED, Param, measure, one_of
from .ncu import BY_NAME, gain_list_of_rows

MAISTRO = ("Maistro, Lima, Simonsen, Lioma. Principled multi-aspect evaluation measures of rankings. CIKM 2021")
BINARY = {"AP", "Prec", "RR"}  # measures that only see whether a document is relevant


def _space(value: str) -> str | None:
    if value in SPACES:
        return None
    try:
        parse_tuples(value)
    except ValueError as exc:
        return str(exc)
    return None


MEASURE = Param("m", str, "nDCG", "the single-aspect measure (an NCU measure: nDCG, AP, ERR, RBP, Q, ...)",
                one_of(tuple(BY_NAME)))


def _aspects(ctx: RunContext):
    if not ctx.qrels.aspects:
        raise UsageError("TOMA, CAM and MM need multi-aspect qrels: give them with --aspect NAME=FILE")
    return ctx.qrels.aspects


def _score(ctx: RunContext, m: str, key: tuple, row_gains, cutoff: int | None) -> np.ndarray:
    spec = BY_NAME[m]
    if spec.cutoff == REQUIRED and cutoff is None:
        raise UsageError(f"m={m} needs a cutoff: give one to the multi-aspect measure, e.g. TOMA(m={m})@10")
    gains = gain_list_of_rows(ctx, key, row_gains)
    return spec.kernel(gains, cutoff, **{p.name: p.default for p in spec.params})


@measure(
    name="TOMA",
    summary="a single-aspect measure m on weights that order the tuples of labels by their distance "
            "to the best tuple",
    params=[
        MEASURE,
        Param("dist", str, "euclidean", "distance in the label embedding: euclidean, manhattan or chebyshev",
              one_of(DISTANCES)),
        Param("space", str, "product", "feasible tuples: product (every combination), paper (a non-relevant "
              "document has the lowest label on every aspect) or a list such as 0.0;1.0;1.2", _space),
        Param("binary", str, "positive", "relevance for binary measures (AP, Prec, RR): positive (weight > 0, "
              "the paper's experiments) or tophalf (weight >= floor(classes/2), its Table 3)",
              one_of(BINARISATIONS)),
    ],
    cutoff=OPTIONAL,
    citation=MAISTRO,
    judgments="aspects",
)
def toma(ctx: RunContext, *, m: str, dist: str, space: str, binary: str, cutoff: int | None) -> np.ndarray:
    """TOMA-m = m computed on w(d), the weight of the class of d's tuple of labels

    Tuples (in the label space) are ordered by the distance of their embedding
    to l* = (best label of every aspect); equal distances (within 1e-9) form a
    class; classes weigh 0 (farthest) to n-1 (l*). Binary measures see w(d)
    through ``binary``.
    """
    aspects = _aspects(ctx)
    try:
        weight, n_classes = toma_weights(aspects, label_space(aspects, space), dist)
    except ValueError as exc:
        raise UsageError(f"TOMA: {exc}") from None

    def row_gains() -> np.ndarray:
        tuples = [tuple(int(v) for v in row) for row in ctx.qrels.levels]
        missing = sorted({t for t in tuples if t not in weight})
        if missing:
            raise UsageError(f"TOMA(space={space}): judged label tuples outside the label space: "
                             f"{', '.join(map(str, missing[:5]))}")
        values = np.array([weight[t] for t in tuples], dtype=np.float64)
        if m in BINARY:
            values = np.array([binarise(int(w), n_classes, binary) for w in values], dtype=np.float64)
        return values

    return _score(ctx, m, ("toma", dist, space, binary if m in BINARY else ""), row_gains, cutoff)


def per_aspect(ctx: RunContext, m: str, cutoff: int | None) -> np.ndarray:
    """(T, A) measure m on each aspect's own gains (the aspect's gain per label)."""
    aspects = _aspects(ctx)
    columns = []
    for j, aspect in enumerate(aspects):
        def row_gains(j=j, aspect=aspect) -> np.ndarray:
            table = np.array([aspect.gain(label) for label in aspect.labels])
            return table[np.searchsorted(aspect.labels, ctx.qrels.levels[:, j])]
        columns.append(_score(ctx, m, ("aspect", j), row_gains, cutoff))
    return np.column_stack(columns) if columns else np.zeros((ctx.n_topics, 0))


@measure(
    name="CAM",
    summary="the weighted arithmetic mean over the aspects of measure m on each aspect's gains",
    params=[MEASURE],
    cutoff=OPTIONAL,
    citation=MAISTRO,
    judgments="aspects",
)
def cam(ctx: RunContext, *, m: str, cutoff: int | None) -> np.ndarray:
    """CAM = sum_a p_a m(aspect a), p_a the aspect's weight (default 1/|A|)"""
    scores = per_aspect(ctx, m, cutoff)
    return (scores * ctx.qrels.weights[ctx.topics]).sum(axis=1)


@measure(
    name="MM",
    summary="the weighted harmonic mean over the aspects of measure m on each aspect's gains (0 if one is 0)",
    params=[MEASURE, Param("form", str, "eq6", "eq6 (the paper's eq. 6) or table (1/sum_a(1/m_a), its Table 3: "
                           "eq. 6 divided by |A|)", one_of(("eq6", "table")))],
    cutoff=OPTIONAL,
    citation=MAISTRO,
    judgments="aspects",
)
def mm(ctx: RunContext, *, m: str, form: str, cutoff: int | None) -> np.ndarray:
    """MM = sum_a p_a / sum_a (p_a / m(aspect a)), p_a the aspect's weight (default 1/|A|);
    0 if some m(aspect a) = 0

    ``form=table`` prints 1 / sum_a (1 / m(aspect a)), which is what the
    paper's Table 3 shows: eq. 6 divided by |A| (with uniform weights).
    """
    scores = per_aspect(ctx, m, cutoff)
    positive = (scores > 0).all(axis=1) & (scores.shape[1] > 0)
    safe = np.where(scores > 0, scores, 1.0)
    if form == "table":
        return np.where(positive, 1.0 / np.where(positive, (1.0 / safe).sum(axis=1), 1.0), 0.0)
    weights = ctx.qrels.weights[ctx.topics]
    total = weights.sum(axis=1)
    return np.where(positive, total / np.where(positive, (weights / safe).sum(axis=1), 1.0), 0.0)
