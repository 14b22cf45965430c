"""Graded, weighted novelty gains: what wg-alpha-nDCG, EU and CT share.

r(d, i) = (2^L - 1) / 2^Lmax(i), Lmax(i) the highest level judged for intent i
in the topic (as in RBU); c(r, i) the number of documents above rank r
relevant to i; a hit's gain is sum_i P(i) r(d, i) (1 - alpha)^c(r, i).
"""
from __future__ import annotations

import numpy as np

from ...context import Hits, RunContext
from ...model.qrels import Qrels
from ..core import memoised
from .gains import greedy_gains


@memoised
def highest_levels(qrels: Qrels) -> np.ndarray:
    """(T, I) the highest level of each intent column among each topic's judgments."""
    highest = np.zeros((qrels.n_topics, qrels.max_intents), dtype=np.int64)
    # Rows are grouped by topic (row_start): one reduction per topic that has rows.
    judged = np.flatnonzero(np.diff(qrels.row_start) > 0)
    if len(judged):
        highest[judged] = np.maximum.reduceat(np.maximum(qrels.levels, 0), qrels.row_start[judged], axis=0)
    return highest


@memoised
def row_satisfaction(qrels: Qrels) -> np.ndarray:
    """(rows, I) r(d, i) of every judged row of the qrels."""
    # Gathered from the tables of 2^L - 1 and 2^Lmax(i) rather than np.exp2 taken per entry (three passes
    # over the rows, not eight); a level below 1 takes 2^0 - 1 = 0, so r is 0 there, as the formula has it.
    numerators = _level_gains(qrels)[np.maximum(qrels.levels, 0)]
    return np.divide(numerators, _highest_gains(qrels)[qrels.row_topic], out=numerators)


def _hits(ctx: RunContext, depth: int | None) -> Hits:
    return ctx.hits if depth is None else ctx.hits_to(depth)


@memoised
def _level_gains(qrels: Qrels) -> np.ndarray:
    """2^L - 1 for every level L of the qrels (0 up): r(d, i)'s numerators, once per qrels."""
    return np.exp2(np.arange(max(int(qrels.levels.max(initial=0)), 0) + 1, dtype=np.float64)) - 1.0


@memoised
def _highest_gains(qrels: Qrels) -> np.ndarray:
    """(T, I) 2^Lmax(i): r(d, i)'s denominators, once per qrels."""
    return np.exp2(highest_levels(qrels).astype(np.float64))


def _denominators(ctx: RunContext) -> np.ndarray:
    """(T * I,) 2^Lmax(i) of each (scored topic, intent column): the pairs' keys index it."""
    return _highest_gains(ctx.qrels)[ctx.topics].reshape(-1)


@memoised
def satisfaction(ctx: RunContext, depth: int | None = None) -> np.ndarray:
    """(P,) r(d, i) of each (hit, intent) pair (of the hits ranked at or above ``depth``; a pair's level is >= 1)."""
    hits = _hits(ctx, depth)
    # The same np.exp2 of the same levels, taken once per (topic, intent) and once per level rather than once
    # per pair, then gathered.
    return _level_gains(ctx.qrels)[hits.pair_level] / _denominators(ctx)[hits.pair_key]


@memoised
def graded_novelty_gains(ctx: RunContext, alpha: float, saturation: float | None = None,
                         depth: int | None = None) -> np.ndarray:
    """(T, H) sum_i P(i) r(d,i) (1-alpha)^c(r,i) of each hit, summed in intent order: of every hit, or of the
    hits ranked at or above ``depth`` (:meth:`RunContext.hits_to <divaleval.context.RunContext.hits_to>`; the
    same values, as they depend only on the hits above).

    saturation: count an intent only while the relevance gathered for it above
    the hit is below this level (the Cube Test's f_Sat).
    """
    hits = _hits(ctx, depth)
    kept = None
    if saturation is not None:
        r = satisfaction(ctx, depth)
        kept = (hits.running_by_intent(r) - r) < saturation
    # (1-alpha)^c by repeated multiplication, c = 0 .. the largest c(r, i)
    powers = np.cumprod(np.concatenate([[1.0], np.full(int(hits.pair_prior.max(initial=0)), 1.0 - alpha)]))
    # Per pair P(i) (r(d,i) (1-alpha)^c(r,i)) [f_Sat], summed over each hit's pairs in intent order.
    gains = hits.graded_gains(_level_gains(ctx.qrels), _denominators(ctx), ctx.weights.reshape(-1), powers, kept)
    return hits.grid(gains, 0.0)


@memoised
def graded_greedy_ideal_gains(qrels: Qrels, alpha: float, depth: int) -> np.ndarray:
    """(T, L) gains of the greedy ideal ranking built with the graded, weighted gain, to ``depth``."""
    return greedy_gains(qrels, alpha, qrels.weights[qrels.row_topic] * row_satisfaction(qrels), depth)
