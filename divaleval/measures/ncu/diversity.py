"""I-rec, the D-measures and the D#-measures (Sakai & Song 2011; NTCIREVAL).

* I-rec@k = |intents with a relevant document in the top k| / |intents with a relevant document|
* Global gain GG(d) = sum_i P(i) gain(L_i(d)); the D-measure ideal list is every
  document with GG > 0 by GG descending; D-M@k is the NCU measure M on GG.
* D#-M@k = gamma I-rec@k + (1 - gamma) D-M@k (D#-RBU is built on D-iRBU).

Conventions may round GG and the components of D# (``--compat``).
"""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, Param, in_unit_interval, measure
from ..core.kernels import covered_intent_share
from .family import D, D_SHARP, Member, member_value, members
from .lists import global_gain_list

SAKAI_SONG = ("Sakai, Song. Evaluating diversified search results using per-intent graded relevance. "
              "SIGIR 2011; NTCIREVAL (Sakai)")
GAMMA = Param("gamma", float, 0.5, "weight of I-rec in D#", in_unit_interval)


intent_recall = measure(
    name="I-rec",
    binary=True,
    summary="share of the intents (with a relevant document) covered by the top k",
    cutoff=REQUIRED,
    citation=SAKAI_SONG,
    formula="I-rec@k = |{i: some d_r, r <= k, has L_i(d_r) >= 1}| / |{i: R_i > 0}|",
)(covered_intent_share)


def _register_d(member: Member) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        return member_value(global_gain_list(ctx), member, cutoff, params)

    kernel.__doc__ = f"D-{member.name}@k = {member.name}@k computed on the global gain GG(d) = sum_i P(i) gain(L_i(d))"
    measure(name=f"D-{member.name}", summary=f"{member.summary}, on global gains", params=member.params,
            cutoff=member.cutoff, citation=SAKAI_SONG)(kernel)


def _register_d_sharp(member: Member) -> None:
    name = member.sharp_name or member.name

    def kernel(ctx: RunContext, *, cutoff: int, gamma: float, **params) -> np.ndarray:
        conventions = ctx.settings.conventions
        irec = conventions.round_components(intent_recall(ctx, cutoff=cutoff))
        d = conventions.round_components(member_value(global_gain_list(ctx), member, cutoff, params))
        return gamma * irec + (1.0 - gamma) * d

    kernel.__doc__ = f"D#-{name}@k = gamma I-rec@k + (1 - gamma) D-{member.name}@k"
    measure(name=f"D#-{name}", summary=f"gamma I-rec@k + (1-gamma) D-{member.name}@k",
            params=(GAMMA, *member.params), cutoff=REQUIRED, citation=SAKAI_SONG)(kernel)


for _member in members(D):
    _register_d(_member)
for _member in members(D_SHARP):
    _register_d_sharp(_member)
