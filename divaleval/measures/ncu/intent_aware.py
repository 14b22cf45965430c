"""Intent-aware forms of the NCU measures (Agrawal et al. 2009; NTCIREVAL's IA-*).

IA-M@k = sum_i P(i) M_i@k, where M_i is measure M on intent i's own gains
gain(L_i(d)), with its own ideal list, R_i and hg_i. The sum runs over the
intents with a relevant document, so the weights used may sum to less than 1
(NTCIREVAL's SUMp). ndeval's ERR-IA, MAP-IA and P-IA are other measures, under
their own names. Conventions may round each M_i before the sum (``--compat``).
"""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import measure
from ..core.kernels import weighted_intent_sum
from .family import IA, Member, member_value, members
from .lists import intent_gain_list

AGRAWAL = ("Agrawal, Gollapudi, Halverson, Ieong. Diversifying search results. WSDM 2009; "
           "Sakai, Zeng SIGIR 2019; NTCIREVAL (Sakai)")


def _register(member: Member) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        # Through the family's memo: P+Q reads the same per-intent Q and P+ values.
        per_intent = member_value(intent_gain_list(ctx, ctx.settings.gain), member, cutoff, params)
        per_intent = ctx.settings.conventions.round_components(per_intent)
        return weighted_intent_sum(per_intent.reshape(ctx.n_topics, ctx.qrels.max_intents), ctx.weights)

    kernel.__doc__ = f"IA-{member.name}@k = sum_i P(i) {member.name}_i@k over the intents with a relevant document"
    measure(name=f"IA-{member.name}", summary=f"sum over intents of P(i) times {member.name} on the intent's gains",
            params=member.params, cutoff=member.cutoff, citation=AGRAWAL, binary=member.binary)(kernel)


for _member in members(IA):
    _register(_member)
