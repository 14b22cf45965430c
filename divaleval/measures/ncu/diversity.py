"""I-rec, the D-measures and the D#-measures (Sakai & Song 2011; NTCIREVAL).

* I-rec@k = |intents with a relevant document in the top k| / |intents with a relevant document|
* Global gain GG(d) = sum_i P(i) gain(L_i(d)); the D-measure ideal list is every
  document with GG > 0 by GG descending; D-M@k is the NCU measure M on GG.
* D#-M@k = gamma I-rec@k + (1 - gamma) D-M@k (D#-RBU is built on D-iRBU).

Conventions may round GG and the components of D# (``--compat``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, Param, in_unit_interval, measure
from ..core.kernels import covered_intent_share
from .family import D, D_SHARP, Member, member_value, members
from .lists import GainList, global_gain_list

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


def register_global_forms(prefix: str, gain_list: Callable[[RunContext], GainList], gain_text: str,
                          summary_suffix: str, citation: str) -> None:
    """Register ``<prefix>-M`` for every member with a D form and ``<prefix>#-M`` for every one with a D#
    form: the member on the gains ``gain_list(ctx)``, and gamma I-rec@k + (1 - gamma) that (the D- and
    D#-measures here; the DIN- and DIN#-measures in :mod:`.intent_types`)."""
    for member in members(D):
        _register_form(prefix, member, gain_list, gain_text, summary_suffix, citation)
    for member in members(D_SHARP):
        _register_sharp(prefix, member, gain_list, citation)


def _register_form(prefix: str, member: Member, gain_list, gain_text: str, summary_suffix: str,
                   citation: str) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        return member_value(gain_list(ctx), member, cutoff, params)

    kernel.__doc__ = f"{prefix}-{member.name}@k = {member.name}@k computed on {gain_text}"
    measure(name=f"{prefix}-{member.name}", summary=f"{member.summary}, {summary_suffix}", params=member.params,
            cutoff=member.cutoff, citation=citation)(kernel)


def _register_sharp(prefix: str, member: Member, gain_list, citation: str) -> None:
    name = member.sharp_name or member.name

    def kernel(ctx: RunContext, *, cutoff: int, gamma: float, **params) -> np.ndarray:
        conventions = ctx.settings.conventions
        irec = conventions.round_components(intent_recall(ctx, cutoff=cutoff))
        value = conventions.round_components(member_value(gain_list(ctx), member, cutoff, params))
        return gamma * irec + (1.0 - gamma) * value

    kernel.__doc__ = f"{prefix}#-{name}@k = gamma I-rec@k + (1 - gamma) {prefix}-{member.name}@k"
    measure(name=f"{prefix}#-{name}", summary=f"gamma I-rec@k + (1-gamma) {prefix}-{member.name}@k",
            params=(GAMMA, *member.params), cutoff=REQUIRED, citation=citation)(kernel)


register_global_forms("D", global_gain_list, "the global gain GG(d) = sum_i P(i) gain(L_i(d))", "on global gains",
                      SAKAI_SONG)
