"""Graded, weighted novelty gains: what wg-alpha-nDCG, EU and CT share.

r(d, i) = (2^L - 1) / 2^Lmax(i), Lmax(i) the highest level judged for intent i
in the topic (as in RBU); c(r, i) the number of documents above rank r
relevant to i; a hit's gain is sum_i P(i) r(d, i) (1 - alpha)^c(r, i).
"""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ...model.qrels import Qrels
from ..core import memoised
from ..core.kernels import weighted_intent_sum
from .gains import greedy_gains


@memoised
def highest_levels(qrels: Qrels) -> np.ndarray:
    """(T, I) the highest level of each intent column among each topic's judgments."""
    highest = np.zeros((qrels.n_topics, qrels.max_intents), dtype=np.int64)
    np.maximum.at(highest, qrels.row_topic, np.maximum(qrels.levels, 0))
    return highest


@memoised
def row_satisfaction(qrels: Qrels) -> np.ndarray:
    """(rows, I) r(d, i) of every judged row of the qrels."""
    top = np.exp2(highest_levels(qrels)[qrels.row_topic].astype(np.float64))
    levels = np.maximum(qrels.levels, 0).astype(np.float64)
    return np.where(qrels.levels >= 1, (np.exp2(levels) - 1.0) / top, 0.0)


@memoised
def satisfaction(ctx: RunContext) -> tuple[np.ndarray, np.ndarray]:
    """(r, c): (T, H, I) r(d, i) of each hit and c(r, i), the hits above it relevant to i."""
    hits = ctx.hits
    top = np.exp2(highest_levels(ctx.qrels)[ctx.topics].astype(np.float64))[:, None, :]
    levels = np.maximum(hits.levels, 0).astype(np.float64)
    r = np.where(hits.relevant, (np.exp2(levels) - 1.0) / top, 0.0)
    return r, hits.coverage - hits.relevant


@memoised
def graded_novelty_gains(ctx: RunContext, alpha: float, saturation: float | None = None) -> np.ndarray:
    """(T, H) sum_i P(i) r(d,i) (1-alpha)^c(r,i) of each hit, summed in intent order.

    saturation: count an intent only while the relevance gathered for it above
    the hit is below this level (the Cube Test's f_Sat).
    """
    r, covered_before = satisfaction(ctx)
    powers = np.cumprod(np.concatenate([[1.0], np.full(int(covered_before.max(initial=0)), 1.0 - alpha)]))
    terms = r * powers[covered_before]
    if saturation is not None:
        terms = terms * ((np.cumsum(r, axis=1) - r) < saturation)
    return weighted_intent_sum(terms, ctx.weights[:, None, :])


@memoised
def graded_greedy_ideal_gains(qrels: Qrels, alpha: float, depth: int) -> np.ndarray:
    """(T, L) gains of the greedy ideal ranking built with the graded, weighted gain, to ``depth``."""
    return greedy_gains(qrels, alpha, qrels.weights[qrels.row_topic] * row_satisfaction(qrels), depth)
