"""P-IA@k: intent-aware precision (ndeval's)."""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from .core import REQUIRED, measure
from .core.kernels import divide_or_zero


@measure(
    name="P-IA",
    binary=True,
    separable=True,
    summary="relevant (document, intent) pairs in the top k over k times the number of intents",
    cutoff=REQUIRED,
    citation="Agrawal, Gollapudi, Halverson, Ieong. Diversifying search results. WSDM 2009",
)
def p_ia(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """P-IA@k = |{(r, i): r <= k, rel(d_r, i)}| / (k N)"""
    return divide_or_zero(ctx.hits.coverage_at(cutoff).sum(axis=1), cutoff * ctx.n_intents)
