"""MAP-IA: intent-aware mean average precision (ndeval's)."""
from __future__ import annotations

import numpy as np

from ..context import RunContext, prefix_sum_at
from .core import OPTIONAL, measure, memoised
from .core.kernels import divide_or_zero, weighted_intent_sum


@memoised
def _precision_sums(ctx: RunContext) -> np.ndarray:
    """(T, H, I) cumulative sums over the hits of precision at each hit relevant to the intent."""
    hits = ctx.hits
    return np.cumsum(np.where(hits.relevant, hits.coverage / hits.position[:, :, None], 0.0), axis=1)


@measure(
    name="MAP-IA",
    summary="average precision of each intent, averaged uniformly over the intents",
    cutoff=OPTIONAL,
    citation="Agrawal, Gollapudi, Halverson, Ieong. Diversifying search results. WSDM 2009 "
             "(ndeval 4.5's uniform-weight form)",
)
def map_ia(ctx: RunContext, *, cutoff: int | None) -> np.ndarray:
    """MAP-IA = (1/N) sum_i AP_i,  AP_i = (1/R_i) sum_{r: rel(d_r,i)} |{s <= r: rel(d_s,i)}| / r

    Over the whole ranking (or its top k); R_i is the number of documents
    relevant to intent i in the qrels.
    """
    average_precision = divide_or_zero(prefix_sum_at(_precision_sums(ctx), ctx.hits.position, cutoff), ctx.rel_count)
    return divide_or_zero(weighted_intent_sum(average_precision), ctx.n_intents)
