"""RBU, Rank-Biased Utility (Amigó, Spina, Carrillo-de-Albornoz 2018, eq. 11)."""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from ..model.gains import GainTable
from .core import EFFORT, OPTIONAL, Param, measure
from .core.kernels import weighted_intent_sum
from .ncu.kernels import irbu
from .ncu.lists import intent_gain_list

EXPONENTIAL = GainTable("exp")


def _persistence(value: float) -> str | None:
    return None if 0.0 < value <= 1.0 else "must be in (0, 1]"


@measure(
    name="RBU",
    summary="rank-biased utility: the user goes on with probability p, gains r(d,i) once per intent, "
            "pays e per document",
    params=[
        Param("p", float, 0.99, "probability of going on to the next document", _persistence),
        EFFORT,
        Param("scale", str, "paper", "paper (eq. 11) or program (the authors' program: x (1-p)/p)",
              choices=("paper", "program")),
    ],
    cutoff=OPTIONAL,
    citation="Amigó, Spina, Carrillo-de-Albornoz. An axiomatic analysis of diversity evaluation metrics: "
             "introducing the rank-biased utility metric. SIGIR 2018 (eq. 11); Sakai & Zeng SIGIR 2019 (eq. 9)",
)
def rbu(ctx: RunContext, *, p: float, e: float, scale: str, cutoff: int | None) -> np.ndarray:
    """RBU@k = sum_{r<=k} p^r ( sum_i P(i) r(d_r,i) prod_{t<r} (1 - r(d_t,i)) - e )

    r(d, i) = (2^L - 1) / 2^Lmax(i), Lmax(i) the highest level judged for intent
    i in the topic; P(i) from --iprob, else uniform over the intents with a
    relevant document. The effort is paid at every rank of the run up to k,
    relevant or not. Without k, the whole run. With e = 0, RBU = IA-iRBU on
    gains 2^L - 1. ``scale=program`` gives the authors' program's value,
    RBU x (1-p)/p (it weights rank r by (1-p) p^(r-1)).
    """
    gains = intent_gain_list(ctx, EXPONENTIAL)  # s(r) = g/(hg+1) = (2^L-1)/2^Lmax
    per_intent = irbu(gains, cutoff, p=p).reshape(ctx.n_topics, ctx.qrels.max_intents)
    utility = weighted_intent_sum(per_intent, ctx.weights)
    depth = ctx.ranking_lengths
    if cutoff is not None:
        depth = np.minimum(depth, cutoff)
    # sum_{r=1..depth} p^r
    visits = depth.astype(np.float64) if p == 1.0 else p * (1.0 - np.power(p, depth)) / (1.0 - p)
    value = utility - e * visits
    return value * (1.0 - p) / p if scale == "program" else value
