"""MM: the weighted harmonic mean over the aspects of a single-aspect measure (Maistro et al. 2021)."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import ASPECTS, OPTIONAL, Param, measure
from .common import MAISTRO, MEASURE, cutoff_for_m, per_aspect


@measure(
    name="MM",
    summary="the weighted harmonic mean over the aspects of measure m on each aspect's gains (0 if one is 0)",
    params=[MEASURE, Param("form", str, "eq6", "eq6 (the paper's eq. 6) or table (1/sum_a(1/m_a), its Table 3: "
                           "eq. 6 divided by |A|)", choices=("eq6", "table"))],
    cutoff=OPTIONAL,
    citation=MAISTRO,
    judgments=ASPECTS,
    check_binding=cutoff_for_m,
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
    weights = ctx.weights
    total = weights.sum(axis=1)
    return np.where(positive, total / np.where(positive, (weights / safe).sum(axis=1), 1.0), 0.0)
