"""TOMA: a single-aspect measure on weights that order tuples of labels (Maistro et al. 2021)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...context import RunContext
from ..core import ASPECTS, OPTIONAL, Param, measure, memoised
from ..ncu.family import BY_NAME
from .common import MAISTRO, MEASURE, cutoff_for_m, score_m
from .spaces import BINARISATIONS, DISTANCES, Space, binarise, label_space, parse_space, show_space, toma_weights

if TYPE_CHECKING:  # (annotations only: scoring other judgments leaves this model unloaded)
    from ...model.aspects import AspectQrels


@memoised
def toma_row_gains(qrels: AspectQrels, dist: str, space: Space, binary: str) -> np.ndarray:
    """TOMA's weight of each judged document's tuple of labels; binarised by ``binary`` unless it is ""."""
    weight, n_classes = toma_weights(qrels.aspects, label_space(qrels.aspects, space), dist)
    tuples = [tuple(int(v) for v in row) for row in qrels.levels]
    missing = sorted({t for t in tuples if t not in weight})
    if missing:
        raise ValueError(f"judged label tuples outside the label space: {', '.join(map(str, missing[:5]))}")
    values = np.array([weight[t] for t in tuples], dtype=np.float64)
    if binary:
        values = np.array([binarise(int(w), n_classes, binary) for w in values], dtype=np.float64)
    return values


def _gain_rule(m: str, dist: str, space: Space, binary: str) -> tuple:
    """The arguments of :func:`toma_row_gains` for these parameters (binary measures only binarise)."""
    return dist, space, binary if BY_NAME[m].binary else ""


def _fits_the_qrels(params: dict, qrels: AspectQrels) -> str | None:
    try:
        toma_row_gains(qrels, *_gain_rule(**params))
    except ValueError as exc:
        return str(exc)
    return None


@measure(
    name="TOMA",
    summary="a single-aspect measure m on weights that order the tuples of labels by their distance "
            "to the best tuple",
    params=[
        MEASURE,
        Param("dist", str, "euclidean", "distance in the label embedding", choices=DISTANCES),
        Param("space", str, "product", "feasible tuples: product (every combination), paper (a non-relevant "
              "document has the lowest label on every aspect) or a list such as 0.0;1.0;1.2",
              parse=parse_space, show=show_space),
        Param("binary", str, "positive", "relevance for binary measures (AP, Prec, RR): positive (weight > 0, "
              "the paper's experiments) or tophalf (weight >= floor(classes/2), its Table 3)",
              choices=BINARISATIONS),
    ],
    cutoff=OPTIONAL,
    citation=MAISTRO,
    judgments=ASPECTS,
    check_binding=cutoff_for_m,
    check_qrels=_fits_the_qrels,
)
def toma(ctx: RunContext, *, m: str, dist: str, space: Space, binary: str, cutoff: int | None) -> np.ndarray:
    """TOMA-m = m computed on w(d), the weight of the class of d's tuple of labels

    Tuples (in the label space) are ordered by the distance of their embedding
    to l* = (best label of every aspect); equal distances (within 1e-9) form a
    class; classes weigh 0 (farthest) to n-1 (l*). Binary measures see w(d)
    through ``binary``.
    """
    return score_m(ctx, m, cutoff, toma_row_gains, *_gain_rule(m, dist, space, binary))
