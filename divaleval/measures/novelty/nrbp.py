"""NRBP, novelty- and rank-biased precision."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import OPTIONAL, measure
from .gains import ALPHA, BETA
from .gains import nrbp as nrbp_value


@measure(
    name="NRBP",
    binary=True,
    separable=True,
    summary="rank-biased precision of the novelty gains, over the whole ranking (or the top k)",
    params=[ALPHA, BETA],
    cutoff=OPTIONAL,
    citation="Clarke, Kolla, Vechtomova. An effectiveness measure for ambiguous and underspecified queries. ICTIR 2009",
)
def nrbp(ctx: RunContext, *, alpha: float, beta: float, cutoff: int | None) -> np.ndarray:
    """NRBP = (1 - (1-alpha) beta) / N * sum_r beta^(r-1) g_r

    Summed over the whole ranking, or over r <= k with a cutoff.
    """
    return nrbp_value(ctx, "run", alpha, beta, cutoff)
