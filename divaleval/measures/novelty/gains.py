"""Novelty gains and the greedy ideal ranking: what ndeval's measures (alpha-nDCG family) share.

For one topic with N intents (those with a relevant document), relevance is
binary, rel(d, i) = 1 iff level >= 1, and the novelty gain of rank r is

    g_r = sum_i rel(d_r, i) * (1 - alpha)^c(r, i)

with c(r, i) the number of documents above r relevant to i, summed in
ascending intent order. Every quantity here is computed in the same floating
point operations, in the same order, as ndeval 4.5, so the printed values
agree with it byte for byte: powers of (1 - alpha) by repeated multiplication,
sums sequentially in rank order (``np.cumsum``) and in intent order (a loop
over intent columns), the discount as ``log(2) / log(r + 1)`` from the C
library, and normalisations as divisions of already-normalised values.

The greedy ideal ranking (ndeval's) is built once per qrels and alpha and
kept in the qrels' cache.
"""
from __future__ import annotations

import math

import numpy as np

from ...arrays import greedy_ranking_gains, sorted_distinct
from ...context import PAST_END, Hits, RunContext, prefix_sum_at
from ...model.qrels import Qrels
from ..core import Param, in_unit_interval, memoised
from ..core.kernels import divide_or_zero, rank_discount, repeated_powers

ALPHA = Param("alpha", float, 0.5, "redundancy penalty: each repeat of an intent keeps (1-alpha) of its gain",
              in_unit_interval)
BETA = Param("beta", float, 0.5, "patience of the rank-biased user (NRBP)", in_unit_interval)

def novelty_gains(hits: Hits, alpha: float) -> np.ndarray:
    """(n,) novelty gain g_r of each hit: sum over its intents, in intent order, of (1-alpha)^c(r, i)."""
    powers = repeated_powers(1.0 - alpha, int(hits.pair_prior.max(initial=0)) + 1)
    return hits.per_hit_sum(powers[hits.pair_prior])


# The greedy ideal is computed to this depth first: it covers the usual cutoffs and,
# for the usual beta, every rank at which NRBP's terms can still change a bit.
SHALLOW_DEPTH = 64


@memoised
def greedy_ideal_gains(qrels: Qrels, alpha: float, depth: int | None = None) -> np.ndarray:
    """(topics, L) gains of ndeval's greedy ideal ranking, 0-padded, its first ``depth`` ranks
    (see :func:`greedy_gains`)."""
    return greedy_gains(qrels, alpha, None, depth)


def ideal_depth(cutoff: int) -> int:
    """How deep to compute a greedy ideal that a measure reads to ``cutoff``: one depth for
    every usual cutoff, so that the measures of a call share one greedy run."""
    return SHALLOW_DEPTH if cutoff <= SHALLOW_DEPTH else 1 << (cutoff - 1).bit_length()


def greedy_gains(qrels: Qrels, alpha: float, coefficients: np.ndarray | None = None,
                 depth: int | None = None) -> np.ndarray:
    """(topics, L) gains of a greedy ideal ranking of every topic, 0-padded.

    At each rank the document with the largest novelty gain is taken; exact
    ties go to the greatest docno. Once the best gain is 0 every later gain is
    0 too, so only documents relevant to some intent need ranking.
    coefficients: (rows, I) per-document, per-intent factors of the gain (the
    weighted, graded generalisation); None is ndeval's binary gain.
    depth: stop after this many ranks (the first ranks do not depend on the later ones).
    """
    relevant_rows = np.flatnonzero(qrels.row_relevant)
    row_topic = qrels.row_topic[relevant_rows]
    counts = np.bincount(row_topic, minlength=qrels.n_topics)
    starts = np.cumsum(counts) - counts
    width = max(int(counts.max(initial=0)), 1)
    width = width if depth is None else min(width, depth)
    # Documents of each topic in descending docno order (the rows hold them ascending): the first
    # maximum is taken, i.e. the greatest docno among exact ties.
    position = np.arange(len(relevant_rows))
    rows = relevant_rows[2 * starts[row_topic] + counts[row_topic] - 1 - position]
    pointer, intent, _ = qrels.relevant_pairs
    pair_count = pointer[rows + 1] - pointer[rows]
    pair_start = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(pair_count, out=pair_start[1:])
    pair = np.repeat(pointer[rows] - pair_start[:-1], pair_count) + np.arange(pair_start[-1])
    pair_intent = intent[pair]
    factor = None if coefficients is None else \
        np.ascontiguousarray(coefficients[np.repeat(rows, pair_count), pair_intent], dtype=np.float64)
    doc_start = np.zeros(qrels.n_topics + 1, dtype=np.int64)
    np.cumsum(counts, out=doc_start[1:])
    return greedy_ranking_gains(doc_start, pair_start, pair_intent, factor, qrels.max_intents, 1.0 - alpha, width)


# -- per-run quantities, cached on the context --------------------------------

@memoised
def run_gains(ctx: RunContext, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(gains, positions) of the run's hits, both (T, H)."""
    hits = ctx.hits
    return hits.grid(novelty_gains(hits, alpha), 0.0), hits.position


def rank_positions(gains: np.ndarray) -> np.ndarray:
    """Positions 1, 2, ... of a ranked list of gains per topic, (T, L)."""
    return np.broadcast_to(np.arange(1, gains.shape[1] + 1), gains.shape)


@memoised
def _ideal_cumulative(qrels: Qrels, alpha: float, kind: str, beta: float,
                      depth: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The greedy ideal's cumulative discounted gains for every topic, to ``depth``: once per qrels."""
    gains = greedy_ideal_gains(qrels, alpha, depth)
    positions = rank_positions(gains)
    return _discounted_cumsum(gains, positions, kind, beta), positions


@memoised
def _rbp_depth(qrels: Qrels, alpha: float, beta: float) -> int | None:
    """How deep the greedy ideal must go for its whole NRBP (None: all the way).

    The greedy's gains never increase, and neither do beta's powers, so no term
    after rank D exceeds g_D beta^D; once that is below half the spacing of every
    topic's sum at rank D, adding the later terms cannot change a bit of the sum.
    """
    depth = SHALLOW_DEPTH
    while True:
        gains = greedy_ideal_gains(qrels, alpha, depth)
        if gains.shape[1] < depth:  # the whole ideal ranking
            return None
        total = _discounted_cumsum(gains, rank_positions(gains), "rbp", beta)[:, -1]
        later = gains[:, -1] * repeated_powers(beta, depth + 1)[-1]
        if np.all(later < np.spacing(total) / 2):
            return depth
        depth *= 4


@memoised
def _cumulative(ctx: RunContext, which: str, alpha: float, kind: str, beta: float, depth: int | None):
    """(cumulative discounted gains, positions) of the run or the ideal (to ``depth``), over the
    context's topics."""
    if which == "ideal":
        cumulative, positions = _ideal_cumulative(ctx.qrels, alpha, kind, beta, depth)
        return cumulative[ctx.topics], positions[ctx.topics]
    gains, positions = run_gains(ctx, alpha)
    return _discounted_cumsum(gains, positions, kind, beta), positions


def _discounted_cumsum(gains: np.ndarray, positions: np.ndarray, kind: str, beta: float) -> np.ndarray:
    last = int(positions[positions < PAST_END].max(initial=1))
    clipped = np.minimum(positions, last)
    if kind == "dcg":
        terms = gains * rank_discount(positions)
    elif kind == "err":
        terms = gains / clipped
    else:  # "rbp"
        terms = gains * repeated_powers(beta, last)[clipped - 1]
    return np.cumsum(terms, axis=1)


def discounted_sum(ctx: RunContext, which: str, alpha: float, kind: str, cutoff: int | None,
                   beta: float = 0.0) -> np.ndarray:
    """sum over ranks r <= cutoff of g_r * discount(r), per topic (unnormalised)."""
    depth = None
    if which == "ideal":
        depth = ideal_depth(cutoff) if cutoff is not None else _rbp_depth(ctx.qrels, alpha, beta)
    cumulative, positions = _cumulative(ctx, which, alpha, kind, beta, depth)
    return prefix_sum_at(cumulative, positions, cutoff)


# Ranks of the ideal-ideal normaliser summed at a time (first block; later ones grow): a cutoff
# far past any ranking costs only the ranks whose terms are not yet 0.
IDEAL_IDEAL_BLOCK = 1 << 12
IDEAL_IDEAL_MAX_BLOCK = 1 << 20
# Ranks of the ideal-ideal normaliser a measure may need (about a second): past them a cutoff is
# refused when parsed, not summed for minutes (alpha near 0, where the terms never vanish).
IDEAL_IDEAL_MAX_RANKS = 10 ** 7
# Terms below 2^-54 of the first one (N) change no bit of a sum that is at least N.
VANISHING = 54 * math.log(2.0)


def ideal_ideal_ranks(params: dict, cutoff: int | None) -> str | None:
    """The cutoff of a measure normalised by :func:`ideal_ideal`, refused where the normaliser would
    sum more than :data:`IDEAL_IDEAL_MAX_RANKS` ranks before its terms vanish (no clamp gives the
    same bits: with alpha = 0 every rank to the cutoff adds to it)."""
    alpha = params["alpha"]
    if alpha == 0:
        vanished = math.inf
    elif alpha == 1:
        vanished = 2  # every term after the first is 0
    else:
        vanished = 1 + VANISHING / -math.log1p(-alpha)  # (1-alpha)^(r-1) < 2^-54
    if cutoff is not None and min(cutoff, vanished) > IDEAL_IDEAL_MAX_RANKS:
        return (f"cutoff {cutoff} with alpha={alpha:g}: the normaliser (every rank covering every intent) would "
                f"add a term at each of more than {IDEAL_IDEAL_MAX_RANKS} ranks (about a second per 10^7); "
                f"give a cutoff of at most {IDEAL_IDEAL_MAX_RANKS} or a larger alpha")
    return None


def ideal_ideal(ctx: RunContext, alpha: float, kind: str, cutoff: int) -> np.ndarray:
    """The "ideal ideal" normaliser of each of the context's topics: every rank covers every intent
    (:func:`ideal_ideal_totals`, for the topic's number of intents N)."""
    counts, totals = ideal_ideal_totals(ctx.qrels, alpha, kind, cutoff)
    return totals[np.searchsorted(counts, ctx.n_intents)]


@memoised
def ideal_ideal_totals(qrels: Qrels, alpha: float, kind: str, cutoff: int) -> tuple[np.ndarray, np.ndarray]:
    """(each distinct number of intents N of the qrels' topics, ascending; the normaliser for that N), computed
    once per qrels (not per run, nor per block of topics: with alpha = 0 and a deep cutoff it takes seconds).

    sum over r <= cutoff of N (1-alpha)^(r-1) * discount(r), summed rank after
    rank (block by block, each block's sum starting from the previous total, so
    the additions are those of one sequential loop), once per distinct N. The
    gains never increase and the discounts decrease, so once a block ends with
    a term below half an ulp of every total, no later term changes a bit of any
    sum, and the sums are final: an N's sum is the same whatever other N are
    summed beside it (with alpha = 0 no term vanishes: the cost then grows with
    the cutoff).
    """
    counts = sorted_distinct(qrels.n_intents)
    total = np.zeros(len(counts))
    gain = counts.astype(np.float64)
    first, block = 1, IDEAL_IDEAL_BLOCK
    while first <= cutoff:
        length = min(block, cutoff - first + 1)
        powers = repeated_powers(1.0 - alpha, length + 1, gain)   # the next block's first gain too
        ranks = np.arange(first, first + length)
        terms = powers[:, :length] * rank_discount(ranks) if kind == "dcg" else powers[:, :length] / ranks
        total = np.cumsum(np.concatenate([total[:, None], terms], axis=1), axis=1)[:, -1]
        if np.all(terms[:, -1] < np.spacing(total) / 2):
            break  # no later term is larger, and none this small changes a bit of the sum
        gain = powers[:, length]
        first += length
        block = min(2 * block, IDEAL_IDEAL_MAX_BLOCK)
    return counts, total


def normalised(ctx: RunContext, which: str, alpha: float, kind: str, cutoff: int) -> np.ndarray:
    """alpha-DCG@k or ERR-IA@k: discounted gain over the ideal-ideal; 0 without intents."""
    value = discounted_sum(ctx, which, alpha, kind, cutoff)
    return divide_or_zero(value, ideal_ideal(ctx, alpha, kind, cutoff), where=ctx.n_intents > 0)


def over_ideal(ctx: RunContext, alpha: float, kind: str, cutoff: int) -> np.ndarray:
    """The run's normalised value over the greedy ideal's; 0 where the run's alpha-DCG@k is 0."""
    run_value = normalised(ctx, "run", alpha, kind, cutoff)
    ideal_value = normalised(ctx, "ideal", alpha, kind, cutoff)
    run_dcg = normalised(ctx, "run", alpha, "dcg", cutoff)
    return divide_or_zero(run_value, ideal_value, where=run_dcg != 0)


def nrbp(ctx: RunContext, which: str, alpha: float, beta: float, cutoff: int | None) -> np.ndarray:
    """NRBP = (1 - (1-alpha) beta) / N * sum_r beta^(r-1) g_r; 0 without intents."""
    total = discounted_sum(ctx, which, alpha, "rbp", cutoff, beta)
    n = ctx.n_intents
    out = np.zeros(ctx.n_topics)
    factor = (1 - (1 - alpha) * beta) / np.where(n > 0, n, 1)
    np.multiply(total, factor, out=out, where=n > 0)
    return out
