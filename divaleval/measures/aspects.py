"""What the aspect-based utility measures (EU, CT) share: per-hit, per-intent satisfaction.

r(d, i) = (2^L - 1) / 2^Lmax(i), Lmax(i) the highest level judged for intent i
in the topic (as in RBU); c(r, i) the number of documents above rank r
relevant to i.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext


def highest_levels(ctx: RunContext) -> np.ndarray:
    """(T, I) the highest level of each intent column among the topic's judgments."""
    qrels = ctx.qrels

    def every_topic() -> np.ndarray:
        highest = np.zeros((qrels.n_topics, qrels.max_intents), dtype=np.int64)
        np.maximum.at(highest, qrels.row_topic, np.maximum(qrels.levels, 0))
        return highest

    return qrels.cached(("highest-levels",), every_topic)[ctx.topics]


def satisfaction(ctx: RunContext) -> tuple[np.ndarray, np.ndarray]:
    """(r, c): (T, H, I) r(d, i) of each hit and c(r, i), the hits above it relevant to i."""
    def compute():
        hits = ctx.hits()
        top = np.exp2(highest_levels(ctx).astype(np.float64))[:, None, :]
        levels = np.maximum(hits.levels, 0).astype(np.float64)
        r = np.where(hits.relevant, (np.exp2(levels) - 1.0) / top, 0.0)
        return r, hits.coverage - hits.relevant
    return ctx.cached(("aspect-satisfaction",), compute)
