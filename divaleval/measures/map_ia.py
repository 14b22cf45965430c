"""MAP-IA: intent-aware mean average precision (ndeval's)."""
from __future__ import annotations

import numpy as np

from ..context import RunContext, prefix_sum_at
from .base import OPTIONAL, measure


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
    hits = ctx.hits()
    relevant = hits.relevant
    cumulative = ctx.cached(("map-ia-cumulative",), lambda: np.cumsum(
        np.where(relevant, hits.coverage / hits.position[:, :, None], 0.0), axis=1))
    rel_count = ctx.rel_count
    total = np.zeros(ctx.n_topics)
    for i in range(relevant.shape[2]):
        ap_sum = prefix_sum_at(cumulative[:, :, i], hits.position, cutoff)
        total = total + np.where(rel_count[:, i] > 0, ap_sum / np.maximum(rel_count[:, i], 1), 0.0)
    n = ctx.n_intents
    return np.where(n > 0, total / np.maximum(n, 1), 0.0)
