"""MAP-IA: intent-aware mean average precision (ndeval's)."""
from __future__ import annotations

import numpy as np

from ..context import RunContext, prefix_sum_at
from .core import OPTIONAL, measure, memoised
from .core.kernels import divide_or_zero, weighted_intent_sum


@memoised
def _precision_sums(ctx: RunContext) -> tuple[np.ndarray, np.ndarray]:
    """(T * I, W) cumulative sums, over each intent's relevant hits in rank order, of the
    precision at the hit; and those hits' ranks."""
    hits = ctx.hits
    precision = (hits.pair_prior + 1) / hits.pair_position
    return np.cumsum(hits.by_intent(precision, 0.0), axis=1), hits.position_by_intent


@measure(
    name="MAP-IA",
    binary=True,
    separable=True,
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
    sums, position = _precision_sums(ctx)
    summed = prefix_sum_at(sums, position, cutoff).reshape(ctx.n_topics, ctx.qrels.max_intents)
    return divide_or_zero(weighted_intent_sum(divide_or_zero(summed, ctx.rel_count)), ctx.n_intents)
