"""strec@k: subtopic recall."""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from .base import REQUIRED, measure


ZHAI = ("Zhai, Cohen, Lafferty. Beyond independent relevance: methods and evaluation metrics "
        "for subtopic retrieval. SIGIR 2003")


@measure(
    name="strec",
    summary="share of the intents covered by the top k",
    cutoff=REQUIRED,
    citation=ZHAI,
)
def strec(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """strec@k = |{i: some d_r with r <= k is relevant to i}| / N"""
    covered = (ctx.hits().coverage_at(cutoff) > 0).sum(axis=1)
    n = ctx.n_intents
    return np.where(n > 0, covered / np.maximum(n, 1), 0.0)
