"""I-rec, the D-measures and the D#-measures (Sakai & Song 2011; NTCIREVAL).

* I-rec@k = |intents with a relevant document in the top k| / |intents with a relevant document|
* Global gain GG(d) = sum_i P(i) gain(L_i(d)); the D-measure ideal list is every
  document with GG > 0 by GG descending; D-M@k is the NCU measure M on GG
  (:mod:`divaleval.measures.ncu`).
* D#-M@k = gamma I-rec@k + (1 - gamma) D-M@k (D#-RBU is built on D-iRBU).

With ``--compat ntcireval`` GG is rounded to 6 significant digits and D# is
combined from components already rounded to 4 decimals, as NTCIREVAL does.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from .base import REQUIRED, Param, in_unit_interval, measure
from .ncu import BY_NAME, NcuMeasure, round4, topic_gain_list

SAKAI_SONG = ("Sakai, Song. Evaluating diversified search results using per-intent graded relevance. "
              "SIGIR 2011; NTCIREVAL (Sakai)")
GAMMA = Param("gamma", float, 0.5, "weight of I-rec in D#", in_unit_interval)

# The D-measures, and the D#-measures with the D-measure each is built on.
D_MEASURES = ["nDCG", "Q", "ERR", "nERR", "EBR", "RBP", "iRBU"]
D_SHARP = {"nDCG": "nDCG", "Q": "Q", "ERR": "ERR", "nERR": "nERR", "EBR": "EBR", "RBP": "RBP", "RBU": "iRBU"}


@measure(
    name="I-rec",
    summary="share of the intents (with a relevant document) covered by the top k",
    cutoff=REQUIRED,
    citation=SAKAI_SONG,
)
def intent_recall(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """I-rec@k = |{i: some d_r, r <= k, has L_i(d_r) >= 1}| / |{i: R_i > 0}|"""
    covered = (ctx.hits().coverage_at(cutoff) > 0).sum(axis=1)
    n = ctx.n_intents
    return np.where(n > 0, covered / np.maximum(n, 1), 0.0)


def d_measure(ctx: RunContext, spec: NcuMeasure, cutoff: int | None, params: dict) -> np.ndarray:
    return spec.kernel(topic_gain_list(ctx, "global"), cutoff, **params)


def _register_d(spec: NcuMeasure) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        return d_measure(ctx, spec, cutoff, params)

    kernel.__doc__ = f"D-{spec.name}@k = {spec.name}@k computed on the global gain GG(d) = sum_i P(i) gain(L_i(d))"
    measure(name=f"D-{spec.name}", summary=f"{spec.summary}, on global gains", params=spec.params,
            cutoff=spec.cutoff, citation=SAKAI_SONG)(kernel)


def _register_d_sharp(name: str, spec: NcuMeasure) -> None:
    def kernel(ctx: RunContext, *, cutoff: int, gamma: float, **params) -> np.ndarray:
        irec = intent_recall(ctx, cutoff=cutoff)
        d = d_measure(ctx, spec, cutoff, params)
        if ctx.settings.compat == "ntcireval":
            irec, d = round4(irec), round4(d)
        return gamma * irec + (1.0 - gamma) * d

    kernel.__doc__ = f"D#-{name}@k = gamma I-rec@k + (1 - gamma) D-{spec.name}@k"
    measure(name=f"D#-{name}", summary=f"gamma I-rec@k + (1-gamma) D-{spec.name}@k", params=(GAMMA, *spec.params),
            cutoff=REQUIRED, citation=SAKAI_SONG)(kernel)


for _name in D_MEASURES:
    _register_d(BY_NAME[_name])
for _name, _base in D_SHARP.items():
    _register_d_sharp(_name, BY_NAME[_base])
