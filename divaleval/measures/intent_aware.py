"""Intent-aware forms of the NCU measures (Agrawal et al. 2009; NTCIREVAL's IA-*).

IA-M@k = sum_i P(i) M_i@k, where M_i is measure M on intent i's own gains
gain(L_i(d)), with its own ideal list, R_i and hg_i. The sum runs over the
intents with a relevant document, so the weights used may sum to less than 1
(NTCIREVAL's SUMp). ndeval's ERR-IA, MAP-IA and P-IA are other measures, under
their own names.

With ``--compat ntcireval`` each M_i is rounded to 4 decimals before the sum.
"""
from __future__ import annotations

import numpy as np

from ..context import RunContext
from .base import measure
from .ncu import BY_NAME, NcuMeasure, intent_gain_list, round4

AGRAWAL = ("Agrawal, Gollapudi, Halverson, Ieong. Diversifying search results. WSDM 2009; "
           "Sakai, Zeng SIGIR 2019; NTCIREVAL (Sakai)")
IA_MEASURES = ["nDCG", "Q", "ERR", "nERR", "EBR", "RBP", "iRBU", "AP", "Prec", "RR"]


def _register_ia(spec: NcuMeasure) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        per_intent = spec.kernel(intent_gain_list(ctx), cutoff, **params)
        if ctx.settings.compat == "ntcireval":
            per_intent = round4(per_intent)
        per_intent = per_intent.reshape(ctx.n_topics, ctx.qrels.max_intents)
        weights = ctx.qrels.weights[ctx.topics]
        total = np.zeros(ctx.n_topics)
        for i in range(per_intent.shape[1]):
            total = total + weights[:, i] * per_intent[:, i]
        return total

    kernel.__doc__ = f"IA-{spec.name}@k = sum_i P(i) {spec.name}_i@k over the intents with a relevant document"
    measure(name=f"IA-{spec.name}", summary=f"sum over intents of P(i) times {spec.name} on the intent's gains",
            params=spec.params, cutoff=spec.cutoff, citation=AGRAWAL)(kernel)


for _name in IA_MEASURES:
    _register_ia(BY_NAME[_name])
