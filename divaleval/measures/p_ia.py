"""P-IA@k: intent-aware precision (ndeval's)."""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from .base import REQUIRED, measure


@measure(
    name="P-IA",
    summary="relevant (document, intent) pairs in the top k over k times the number of intents",
    cutoff=REQUIRED,
    citation="Agrawal, Gollapudi, Halverson, Ieong. Diversifying search results. WSDM 2009",
)
def p_ia(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """P-IA@k = |{(r, i): r <= k, rel(d_r, i)}| / (k N)"""
    pairs = ctx.hits().coverage_at(cutoff).sum(axis=1)
    n = ctx.n_intents
    return np.where(n > 0, pairs / np.maximum(cutoff * n, 1), 0.0)
