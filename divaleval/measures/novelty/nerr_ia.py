"""nERR-IA@k: ERR-IA@k over that of ndeval's greedy ideal ranking."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, measure
from .gains import ALPHA, over_ideal, ideal_ideal_ranks


@measure(
    name="nERR-IA",
    binary=True,
    separable=True,
    summary="ERR-IA@k over the ERR-IA@k of the greedy ideal ranking",
    params=[ALPHA],
    cutoff=REQUIRED,
    check_binding=ideal_ideal_ranks,
    citation="Chapelle, Metzler, Zhang, Grinspan. Expected reciprocal rank for graded relevance. "
             "CIKM 2009 (collection-dependent normalisation of ndeval 4.5)",
)
def nerr_ia(ctx: RunContext, *, alpha: float, cutoff: int) -> np.ndarray:
    """nERR-IA@k = ERR-IA@k(run) / ERR-IA@k(greedy ideal); 0 if alpha-DCG@k(run) = 0

    Values above 1 occur where the greedy ideal is not optimal (not clamped).
    """
    return over_ideal(ctx, alpha, "err", cutoff)
