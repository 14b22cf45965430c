"""alpha-nDCG@k: alpha-DCG@k over that of ndeval's greedy ideal ranking."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, measure
from .gains import ALPHA, over_ideal, ideal_ideal_ranks


@measure(
    name="alpha-nDCG",
    binary=True,
    separable=True,
    summary="alpha-DCG@k over the alpha-DCG@k of the greedy ideal ranking",
    params=[ALPHA],
    cutoff=REQUIRED,
    check_binding=ideal_ideal_ranks,
    citation="Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher, MacKinnon. Novelty and diversity in information retrieval evaluation. SIGIR 2008",
)
def alpha_ndcg(ctx: RunContext, *, alpha: float, cutoff: int) -> np.ndarray:
    """alpha-nDCG@k = alpha-DCG@k(run) / alpha-DCG@k(greedy ideal); 0 if alpha-DCG@k(run) = 0

    The greedy ideal takes at each rank the judged document of largest novelty
    gain, exact ties to the greatest docno. It is not always optimal, so values
    above 1 occur; they are not clamped (ndeval 4.5).
    """
    return over_ideal(ctx, alpha, "dcg", cutoff)
