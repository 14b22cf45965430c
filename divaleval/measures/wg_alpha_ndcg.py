"""alpha-nDCG with intent weights and graded intents (Clarke et al. 2011's generalisation).

ndeval's ``alpha-nDCG`` keeps its exact meaning (binary relevance, uniform
intents); this is the form with P(i) and graded r(d, i), as written in
Amigó et al. 2018 (sec. 4.2), normalised by a greedy ideal ranking built with
the same gain.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext, prefix_sum_at
from .aspects import aspect_gains, row_satisfaction
from .base import REQUIRED, measure
from .novelty import ALPHA, greedy_ideal_gains, log_discount


def _coefficients(ctx: RunContext) -> np.ndarray:
    """(rows, I) P(i) r(d, i) for every judged row of the qrels, r = (2^L-1)/2^Lmax(i)."""
    qrels = ctx.qrels

    return qrels.cached(("wg-coefficients",),
                        lambda: qrels.weights[qrels.row_topic] * row_satisfaction(qrels))


def _discounted(gains: np.ndarray, positions: np.ndarray, cutoff: int) -> np.ndarray:
    last = int(positions[positions < cutoff + 1].max(initial=1))
    clipped = np.minimum(positions, last)
    return prefix_sum_at(np.cumsum(gains * log_discount(last)[clipped - 1], axis=1), positions, cutoff)


@measure(
    name="wg-alpha-nDCG",
    summary="alpha-nDCG@k with intent weights P(i) and graded r(d,i) = (2^L-1)/2^Lmax(i), over a greedy ideal",
    params=[ALPHA],
    cutoff=REQUIRED,
    citation="Clarke, Craswell, Soboroff, Ashkan. A comparative analysis of cascade measures for novelty and "
             "diversity. WSDM 2011; as written in Amigo et al., SIGIR 2018, sec. 4.2",
)
def weighted_graded_alpha_ndcg(ctx: RunContext, *, alpha: float, cutoff: int) -> np.ndarray:
    """wg-alpha-nDCG@k = wg-DCG@k(run) / wg-DCG@k(greedy ideal),
    wg-DCG@k = sum_{r<=k} [sum_i P(i) r(d_r,i) (1-alpha)^c(r,i)] / log2(r+1)

    c(r, i) counts the documents above r relevant to i; the ideal takes, rank
    by rank, the document of largest gain (ties to the greatest docno). With
    binary relevance at one level and uniform P(i) it is ndeval's alpha-nDCG@k
    (every gain is scaled by the same factor).
    """
    run = _discounted(aspect_gains(ctx, alpha), ctx.hits().position, cutoff)
    ideal_gains = greedy_ideal_gains(ctx.qrels, alpha, _coefficients(ctx), key=("weighted-graded",))[ctx.topics]
    positions = np.broadcast_to(np.arange(1, ideal_gains.shape[1] + 1), ideal_gains.shape)
    ideal = _discounted(ideal_gains, positions, cutoff)
    out = np.zeros(ctx.n_topics)
    np.divide(run, ideal, out=out, where=ideal > 0)
    return out
