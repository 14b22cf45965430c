"""Measures that know intent types (NTCIR INTENT-2; Sakai 2012; NTCIREVAL's DIN-NTCIR-eval and DIN-NTCIR-PQeval).

An intent is informational (``inf``: every relevant document helps) or
navigational (``nav``: one relevant document is all the user wants), as the 4th
column of the intent-probability file says (``--iprob``); an intent without a
type is informational, so that without types every measure here equals its
type-agnostic form.

* DIN-M@k: the D-measure M on the gain GG'(d_r) = sum over informational i of
  P(i) gain(L_i(d_r)) + sum over navigational j not served by a document above
  r of P(j) gain(L_j(d_r)): a navigational intent's redundant relevant documents
  earn nothing. The ideal list is the D-measures' (every document by GG).
* DIN#-M@k = gamma I-rec@k + (1-gamma) DIN-M@k (DIN#-RBU from DIN-iRBU).
* P+Q@k = sum_i P(i) [Q_i@k if i is informational, P+_i@k if navigational], over
  the intents with a relevant document, each on the intent's own gains and ideal
  list (as IA-Q), P+ on the top k (:func:`.kernels.p_plus`).
* P+Q#@k = gamma I-rec@k + (1-gamma) P+Q@k.

Conventions may round GG' (as GG) and the components of the # forms and of P+Q
(``--compat``: NTCIREVAL combines values it has printed with 4 decimals).
"""
from __future__ import annotations

import numpy as np

from ...arrays import pad_groups
from ...context import PAST_END, RunContext
from ..core import OPTIONAL, REQUIRED, measure, memoised
from ..core.kernels import weighted_intent_sum
from .diversity import GAMMA, intent_recall, register_global_forms
from .family import BETA, BY_NAME, member_value
from .lists import GainList, global_gain_list, intent_gain_list

SAKAI_2012 = ("Sakai. Evaluation with informational and navigational intents. WWW 2012; "
              "Sakai, Dou, Yamamoto et al. Overview of the NTCIR-10 INTENT-2 task; NTCIREVAL (Sakai)")


def navigational(ctx: RunContext) -> np.ndarray:
    """(T, I) whether each intent column of the scored topics is navigational."""
    types = ctx.qrels.navigational
    return np.zeros(ctx.rel_count.shape, dtype=bool) if types is None else types[ctx.topics]


@memoised
def din_gain_list(ctx: RunContext) -> GainList:
    """The run's DIN gains GG'(d_r) (see the module), with the D-measures' ideal lists.

    A hit's gain is summed over its intents in intent order, as GG is, so that
    without navigational intents it is GG to the last bit.
    """
    d_list = global_gain_list(ctx)
    if ctx.qrels.navigational is None:
        return d_list
    hits, settings = ctx.hits, ctx.settings
    topic = ctx.topics[hits.slot[hits.pair_hit]]
    share = ctx.qrels.weights[topic, hits.pair_intent] * settings.gain.gains(hits.pair_level)
    redundant = ctx.qrels.navigational[topic, hits.pair_intent] & (hits.pair_prior > 0)
    gain = settings.conventions.round_global_gains(hits.per_hit_sum(np.where(redundant, 0.0, share)))
    earns = gain > 0
    gains, position = pad_groups(hits.slot[earns], ctx.n_topics, (gain[earns], 0.0),
                                 (hits.hit_position[earns], PAST_END))
    return GainList.of(gains, position, d_list.ideal, d_list.shared_ideal, ctx.cutoffs)


register_global_forms("DIN", din_gain_list, "GG'(d) = sum over informational i of P(i) gain(L_i(d)) + sum over "
                      "navigational j not served above of P(j) gain(L_j(d)), over the D-measures' ideal list",
                      "on global gains where a navigational intent's redundant documents earn nothing", SAKAI_2012)


def _p_plus_q(ctx: RunContext, cutoff: int | None, beta: float) -> np.ndarray:
    gains = intent_gain_list(ctx, ctx.settings.gain)
    params = {"beta": beta}
    per_intent = member_value(gains, BY_NAME["Q"], cutoff, params)
    is_navigational = navigational(ctx).reshape(-1)
    if is_navigational.any():  # (P+ is computed only where some intent is navigational)
        per_intent = np.where(is_navigational, member_value(gains, BY_NAME["P+"], cutoff, params), per_intent)
    per_intent = ctx.settings.conventions.round_components(per_intent)
    return weighted_intent_sum(per_intent.reshape(ctx.n_topics, ctx.qrels.max_intents), ctx.weights)


@measure(
    name="P+Q",
    summary="sum over intents of P(i) times Q (informational) or P+ (navigational), on the intent's gains",
    params=[BETA],
    cutoff=OPTIONAL,
    citation=SAKAI_2012,
)
def p_plus_q(ctx: RunContext, *, cutoff: int | None, beta: float) -> np.ndarray:
    """P+Q@k = sum_i P(i) [Q_i@k if i is informational else P+_i@k], over the intents with a relevant document."""
    return _p_plus_q(ctx, cutoff, beta)


@measure(
    name="P+Q#",
    summary="gamma I-rec@k + (1-gamma) P+Q@k",
    params=[GAMMA, BETA],
    cutoff=REQUIRED,
    citation=SAKAI_2012,
)
def p_plus_q_sharp(ctx: RunContext, *, cutoff: int, gamma: float, beta: float) -> np.ndarray:
    """P+Q#@k = gamma I-rec@k + (1 - gamma) P+Q@k"""
    conventions = ctx.settings.conventions
    irec = conventions.round_components(intent_recall(ctx, cutoff=cutoff))
    return gamma * irec + (1.0 - gamma) * conventions.round_components(_p_plus_q(ctx, cutoff, beta))
