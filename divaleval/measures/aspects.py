"""What the aspect-based utility measures (EU, CT) share: per-hit, per-intent satisfaction.

r(d, i) = (2^L - 1) / 2^Lmax(i), Lmax(i) the highest level judged for intent i
in the topic (as in RBU); c(r, i) the number of documents above rank r
relevant to i.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from ..topics import Qrels


def _highest_every_topic(qrels: Qrels) -> np.ndarray:
    def compute() -> np.ndarray:
        highest = np.zeros((qrels.n_topics, qrels.max_intents), dtype=np.int64)
        np.maximum.at(highest, qrels.row_topic, np.maximum(qrels.levels, 0))
        return highest
    return qrels.cached(("highest-levels",), compute)


def highest_levels(ctx: RunContext) -> np.ndarray:
    """(T, I) the highest level of each intent column among the topic's judgments."""
    return _highest_every_topic(ctx.qrels)[ctx.topics]


def row_satisfaction(qrels: Qrels) -> np.ndarray:
    """(rows, I) r(d, i) of every judged row of the qrels."""
    def compute() -> np.ndarray:
        top = np.exp2(_highest_every_topic(qrels)[qrels.row_topic].astype(np.float64))
        levels = np.maximum(qrels.levels, 0).astype(np.float64)
        return np.where(qrels.levels >= 1, (np.exp2(levels) - 1.0) / top, 0.0)
    return qrels.cached(("row-satisfaction",), compute)


def satisfaction(ctx: RunContext) -> tuple[np.ndarray, np.ndarray]:
    """(r, c): (T, H, I) r(d, i) of each hit and c(r, i), the hits above it relevant to i."""
    def compute():
        hits = ctx.hits()
        top = np.exp2(highest_levels(ctx).astype(np.float64))[:, None, :]
        levels = np.maximum(hits.levels, 0).astype(np.float64)
        r = np.where(hits.relevant, (np.exp2(levels) - 1.0) / top, 0.0)
        return r, hits.coverage - hits.relevant
    return ctx.cached(("aspect-satisfaction",), compute)


def aspect_gains(ctx: RunContext, alpha: float, saturation: float | None = None) -> np.ndarray:
    """(T, H) sum_i P(i) r(d,i) (1-alpha)^c(r,i) of each hit, summed in intent order.

    saturation: count an intent only while the relevance gathered for it above
    the hit is below this level (the Cube Test's f_Sat).
    """
    def compute() -> np.ndarray:
        r, covered_before = satisfaction(ctx)
        powers = np.cumprod(np.concatenate([[1.0], np.full(int(covered_before.max(initial=0)), 1.0 - alpha)]))
        weights = ctx.qrels.weights[ctx.topics]
        unsaturated = None if saturation is None else (np.cumsum(r, axis=1) - r) < saturation
        gain = np.zeros(r.shape[:2])
        for i in range(r.shape[2]):
            term = r[:, :, i] * powers[covered_before[:, :, i]]
            if unsaturated is not None:
                term = term * unsaturated[:, :, i]
            gain = gain + weights[:, i:i + 1] * term
        return gain
    return ctx.cached(("aspect-gains", alpha, saturation), compute)
