"""ERR-IA@k as ndeval computes it, with collection-independent normalisation."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, measure
from .gains import ALPHA, normalised, ideal_ideal_ranks


@measure(
    name="ERR-IA",
    binary=True,
    separable=True,
    summary="novelty gains discounted by 1/r, over an ideal where every rank covers every intent",
    params=[ALPHA],
    cutoff=REQUIRED,
    check_binding=ideal_ideal_ranks,
    citation="Chapelle, Metzler, Zhang, Grinspan. Expected reciprocal rank for graded relevance. "
             "CIKM 2009 (intent-aware form and normalisation of ndeval 4.5)",
)
def err_ia(ctx: RunContext, *, alpha: float, cutoff: int) -> np.ndarray:
    """ERR-IA@k = [sum_{r<=k} g_r / r] / [sum_{r<=k} N (1-alpha)^(r-1) / r]

    With binary intents, (1-alpha)^c(r,i) is the chance that a user after
    intent i was not yet satisfied at rank r, so the numerator is N times the
    intent-averaged ERR with stopping probability alpha.
    """
    return normalised(ctx, "run", alpha, "err", cutoff)
