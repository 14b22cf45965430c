"""S-RR@100%: subtopic reciprocal rank (Zhai, Cohen, Lafferty 2003)."""
from __future__ import annotations

import numpy as np

from ..context import PAST_END, RunContext
from .core import NONE, measure
from .core.kernels import first_reciprocal_rank
from .strec import ZHAI


@measure(
    name="S-RR@100%",
    binary=True,
    summary="1 / the first rank at which every intent is covered (0 if never)",
    cutoff=NONE,
    citation=ZHAI,
)
def subtopic_reciprocal_rank(ctx: RunContext, *, cutoff: None) -> np.ndarray:
    """S-RR@100% = 1 / min{r : every intent with a relevant document has one in the top r}"""
    hits = ctx.hits
    new_intents = np.bincount(hits.pair_hit[hits.pair_prior == 0], minlength=len(hits.pair_count))
    covered = np.cumsum(hits.grid(new_intents, 0), axis=1)           # (T, H) intents covered so far
    complete = (covered >= ctx.n_intents[:, None]) & (hits.position < PAST_END) & (ctx.n_intents > 0)[:, None]
    return first_reciprocal_rank(hits.position, complete)
