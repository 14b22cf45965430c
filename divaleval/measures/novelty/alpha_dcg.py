"""alpha-DCG@k with ndeval's collection-independent ("ideal ideal") normalisation."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, measure
from .gains import ALPHA, normalised, ideal_ideal_ranks


@measure(
    name="alpha-DCG",
    binary=True,
    separable=True,
    summary="novelty-discounted DCG@k over an ideal where every rank covers every intent",
    params=[ALPHA],
    cutoff=REQUIRED,
    check_binding=ideal_ideal_ranks,
    citation="Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher, MacKinnon. Novelty and diversity in information retrieval evaluation. SIGIR 2008",
)
def alpha_dcg(ctx: RunContext, *, alpha: float, cutoff: int) -> np.ndarray:
    """alpha-DCG@k = [sum_{r<=k} g_r / log2(r+1)] / [sum_{r<=k} N (1-alpha)^(r-1) / log2(r+1)]

    g_r is the novelty gain (see :mod:`divaleval.measures.novelty.gains`), N the
    number of intents with a relevant document. The denominator assumes every
    rank covers every intent, so the value can fall as k grows (ndeval 4.5).
    """
    return normalised(ctx, "run", alpha, "dcg", cutoff)
