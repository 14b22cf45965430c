"""CAM: the weighted arithmetic mean over the aspects of a single-aspect measure (Maistro et al. 2021)."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import ASPECTS, OPTIONAL, measure
from .common import MAISTRO, MEASURE, cutoff_for_m, per_aspect


@measure(
    name="CAM",
    summary="the weighted arithmetic mean over the aspects of measure m on each aspect's gains",
    params=[MEASURE],
    cutoff=OPTIONAL,
    citation=MAISTRO,
    judgments=ASPECTS,
    check_binding=cutoff_for_m,
)
def cam(ctx: RunContext, *, m: str, cutoff: int | None) -> np.ndarray:
    """CAM = sum_a p_a m(aspect a), p_a the aspect's weight (default 1/|A|)"""
    return (per_aspect(ctx, m, cutoff) * ctx.weights).sum(axis=1)
