"""nNRBP: NRBP over the NRBP of ndeval's greedy ideal ranking."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import OPTIONAL, measure
from .gains import ALPHA, BETA, nrbp


@measure(
    name="nNRBP",
    binary=True,
    separable=True,
    summary="NRBP over the NRBP of the greedy ideal ranking",
    params=[ALPHA, BETA],
    cutoff=OPTIONAL,
    citation="Clarke, Kolla, Vechtomova. An effectiveness measure for ambiguous and underspecified queries. ICTIR 2009",
)
def nnrbp(ctx: RunContext, *, alpha: float, beta: float, cutoff: int | None) -> np.ndarray:
    """nNRBP = NRBP(run) / NRBP(greedy ideal)

    Undefined (0/0) where the ideal's NRBP is 0: a topic without relevant
    documents, or alpha = 0 with beta = 1. ndeval prints -nan there; the
    native command prints 0 and says so.
    """
    run = nrbp(ctx, "run", alpha, beta, cutoff)
    ideal = nrbp(ctx, "ideal", alpha, beta, cutoff)
    with np.errstate(invalid="ignore", divide="ignore"):
        return run / ideal
