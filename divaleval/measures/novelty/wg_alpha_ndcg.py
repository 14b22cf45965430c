"""alpha-nDCG with intent weights and graded intents (Clarke et al. 2011's generalisation).

ndeval's ``alpha-nDCG`` keeps its exact meaning (binary relevance, uniform
intents); this is the form with P(i) and graded r(d, i), as written in
Amigó et al. 2018 (sec. 4.2), normalised by a greedy ideal ranking built with
the same gain.
"""
from __future__ import annotations

import numpy as np

from ...context import RunContext, prefix_sum_at
from ...model.qrels import Qrels
from ..core import REQUIRED, measure, memoised
from ..core.kernels import divide_or_zero, rank_discount
from .gains import ALPHA, SHALLOW_DEPTH, ideal_depth, rank_positions
from .graded import graded_greedy_ideal_gains, graded_novelty_gains


def _discounted(gains: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the cumulative discounted gains, the ranks) of each row; a cutoff's sum is a prefix of each row."""
    return np.cumsum(gains * rank_discount(positions), axis=1), positions


# The cumulative sums are shared by every cutoff: the run's once per run, the ideal's (row by row the
# same numbers whichever topics are scored) once per qrels.

@memoised
def _run_discounted(ctx: RunContext, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    return _discounted(graded_novelty_gains(ctx, alpha), ctx.hits.position)


@memoised
def _ideal_discounted(qrels: Qrels, alpha: float, depth: int) -> tuple[np.ndarray, np.ndarray]:
    ideal_gains = graded_greedy_ideal_gains(qrels, alpha, depth)
    return _discounted(ideal_gains, rank_positions(ideal_gains))


def _greedy_depth(ctx: RunContext, cutoff: int) -> int:
    """How deep to build the graded greedy ideal for ``cutoff``: to the deepest usual cutoff the context asks for
    (one depth for all its cutoffs, so that they share one greedy run; the first ranks do not depend on the later
    ones), rather than to :func:`ideal_depth`'s 64: this greedy serves this measure alone, and its cost is in
    proportion to its ranks (20 for 5, 10 and 20)."""
    usual = [c for c in ctx.cutoffs if c is not None and c <= SHALLOW_DEPTH]
    if cutoff > SHALLOW_DEPTH or not usual:
        return ideal_depth(cutoff)
    return max(max(usual), cutoff)


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
    run = prefix_sum_at(*_run_discounted(ctx, alpha), cutoff)
    cumulative, positions = _ideal_discounted(ctx.qrels, alpha, _greedy_depth(ctx, cutoff))
    ideal = prefix_sum_at(cumulative[ctx.topics], positions[ctx.topics], cutoff)
    return divide_or_zero(run, ideal, where=ideal > 0)
