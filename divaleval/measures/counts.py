"""The binary ad hoc measures trec_eval prints beside MAP and P@k: counts, recall, set measures, R-precision.

Each is a function of where the relevant documents are ranked (a document is
relevant when its topicwise level reaches 1, or ``--rel-min``), so each reads
the topicwise gain list of the ad hoc measures (:mod:`.ncu.lists`): its
entries are the ranked relevant documents, its ideal list gives R. Judged@k
alone looks at every ranked document (is it judged?). With R the relevant
documents of a topic, ret the documents ranked, and rel(k) the relevant ones
among the first k:

    NumRet = ret    NumRel = R    NumRelRet = rel(ret)
    Recall@k = rel(k) / R         (no cutoff: rel(ret) / R, trec_eval's set_recall)
    R-Prec = rel(R) / R           Success@k = 1 if rel(k) > 0
    SetP = rel(ret) / ret         SetF(beta) = (1 + b^2) SetP Recall / (b^2 SetP + Recall)
    AP_cut@k = (1/R) sum_{r <= k, relevant} rel(r) / r    (trec_eval's map_cut; AP@k divides by min(k, R))
    GMAP = AP on each topic, summarised by the geometric mean over topics (trec_eval's gm_map)
    IPrec(recall=x) = max {rel(r) / r : rel(r) >= max(1, round(x R))}, 0 if none (iprec_at_recall)
    Judged@k = |judged documents among the first k| / k
    Unjudged@k = |unjudged documents among the first k| / k    (trec_eval 10's unj)

Judged counts trec_eval's judged documents (some level >= 0: a document judged
only negatively, TREC's -2, is not), the ones ``--judged-only`` keeps. Judged@k
and Unjudged@k add up to 1 where k documents or more are ranked; with fewer,
both still divide by k and neither counts the ranks past the end.

The counts' summaries are their sums over topics, as trec_eval and ir_measures
print them (``-f trec`` prints them as integers, as trec_eval does).
GMAP's per-topic value is AP's (trec_eval prints gm_map only for all topics);
what differs is its summary, declared as the family's ``aggregation``: exp of
the mean of log(max(AP, 0.00001)) (:mod:`divaleval.aggregate`), which punishes
the topics a run fails on far more than the mean does (Robertson 2006).
IPrec's recall level stands for round(x R) relevant documents, halves up, as
trec_eval 10.0 rounds it (9.0 took nearly the ceiling); at x = 0 it is the best
precision at any rank.
"""
from __future__ import annotations

import numpy as np

from ..context import PAST_END, RunContext
from .core import NONE, OPTIONAL, REQUIRED, Param, in_unit_interval, measure, memoised
from .core.definition import GEOMETRIC_MEAN, SUM, non_negative
from .core.kernels import divide_or_zero
from .ncu.kernels import average_precision, average_precision_over_r, precision_terms, relevant_running_count
from .ncu.lists import GainList, topicwise_gain_list

TREC_EVAL = "trec_eval (Buckley, NIST): its measure of the same name"
MANNING = "Manning, Raghavan, Schütze. Introduction to Information Retrieval, ch. 8 (2008); trec_eval"
ROBERTSON = "Robertson. On GMAP: and other transformations. CIKM 2006; trec_eval's gm_map"


def _relevant_within(gl: GainList, cutoff: int | np.ndarray | None) -> np.ndarray:
    """rel(k) per row: relevant documents ranked <= cutoff (None: all of them; an array: one cutoff per row)."""
    if cutoff is None or isinstance(cutoff, int):
        return _relevant_within_cutoff(gl, cutoff)
    return ((gl.position <= np.reshape(cutoff, (-1, 1))) & (gl.gains > 0)).sum(axis=1)


@memoised
def _relevant_within_cutoff(gl: GainList, cutoff: int | None) -> np.ndarray:
    """:func:`_relevant_within` at one cutoff, once per list (Recall, Success, SetP, SetF, NumRelRet share it)."""
    bound = PAST_END - 1 if cutoff is None else cutoff
    return ((gl.position <= bound) & (gl.gains > 0)).sum(axis=1)


@measure(name="NumRet", summary="documents ranked (trec_eval's num_ret; summed over topics)", cutoff=NONE,
         citation=TREC_EVAL, binary=True, aggregation=SUM)
def documents_ranked(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """NumRet = the number of documents ranked"""
    return ctx.ranking_lengths.astype(np.float64)


@measure(name="NumRel", summary="relevant documents in the qrels, R (trec_eval's num_rel; summed over topics)",
         cutoff=NONE, citation=TREC_EVAL, binary=True, aggregation=SUM)
def relevant_judged(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """NumRel = R"""
    return topicwise_gain_list(ctx).n_relevant.astype(np.float64)


@measure(name="NumRelRet", summary="relevant documents ranked (trec_eval's num_rel_ret; summed over topics)",
         cutoff=NONE, citation=TREC_EVAL, binary=True, aggregation=SUM)
def relevant_ranked(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """NumRelRet = rel(ret)"""
    return _relevant_within(topicwise_gain_list(ctx), None).astype(np.float64)


@measure(name="Recall", summary="relevant documents in the top k, over R (without k: of the whole ranking)",
         cutoff=OPTIONAL, citation=MANNING, binary=True)
def recall(ctx: RunContext, *, cutoff: int | None) -> np.ndarray:
    """Recall@k = rel(k) / R"""
    gl = topicwise_gain_list(ctx)
    return divide_or_zero(_relevant_within(gl, cutoff), gl.n_relevant)


@measure(name="R-Prec", summary="relevant documents in the top R, over R (trec_eval's Rprec)", cutoff=NONE,
         citation=MANNING, binary=True)
def r_precision(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """R-Prec = rel(R) / R"""
    gl = topicwise_gain_list(ctx)
    return divide_or_zero(_relevant_within(gl, gl.n_relevant), gl.n_relevant)


@measure(name="Success", summary="1 if a relevant document is in the top k (trec_eval's success)",
         cutoff=REQUIRED, citation=TREC_EVAL, binary=True)
def success(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """Success@k = 1 if rel(k) > 0 else 0"""
    return (_relevant_within(topicwise_gain_list(ctx), cutoff) > 0).astype(np.float64)


@measure(name="SetP", summary="relevant documents ranked, over the documents ranked (trec_eval's set_P)",
         cutoff=NONE, citation=TREC_EVAL, binary=True)
def set_precision(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """SetP = rel(ret) / ret"""
    return divide_or_zero(_relevant_within(topicwise_gain_list(ctx), None), ctx.ranking_lengths)


@measure(name="SetF", summary="F-measure of SetP and Recall of the whole ranking (trec_eval's set_F)",
         params=(Param("beta", float, 1.0, "weight of recall against precision", non_negative),),
         cutoff=NONE, citation=MANNING, binary=True)
def set_f(ctx: RunContext, *, cutoff: None = None, beta: float) -> np.ndarray:
    """SetF = (1 + beta^2) P R / (beta^2 P + R), P = SetP, R = Recall (0 when both are 0)"""
    gl = topicwise_gain_list(ctx)
    found = _relevant_within(gl, None)
    precision = divide_or_zero(found, ctx.ranking_lengths)
    recalled = divide_or_zero(found, gl.n_relevant)
    return divide_or_zero((1 + beta * beta) * precision * recalled, beta * beta * precision + recalled)


@measure(name="AP_cut", summary="precision at each relevant document in the top k, summed over R "
                                "(trec_eval's map_cut; AP@k divides by min(k, R))",
         cutoff=REQUIRED, citation=TREC_EVAL, binary=True)
def average_precision_cut(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """AP_cut@k = (1/R) sum_{r <= k, relevant} rel(r) / r"""
    return average_precision_over_r(topicwise_gain_list(ctx), cutoff)


@memoised
def _judged_within(ctx: RunContext, cutoff: int) -> np.ndarray:
    """Judged documents ranked <= cutoff, per topic (Judged@k and Unjudged@k share it)."""
    slot, position = _judged_ranks(ctx)
    return np.bincount(slot[position <= cutoff], minlength=ctx.n_topics)


@memoised
def _judged_ranks(ctx: RunContext) -> tuple[np.ndarray, np.ndarray]:
    """(row among the scored topics, rank) of each ranked judged document: once per run for every cutoff."""
    slot, row, position = ctx.judged_lines  # (a document without a qrels row is not judged)
    judged = np.flatnonzero(ctx.qrels.row_judged[row])
    return slot[judged], position[judged]


@measure(name="Judged", summary="share of the top k documents that the qrels judge (k the divisor)",
         cutoff=REQUIRED, citation=TREC_EVAL)
def judged_share(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """Judged@k = |judged documents ranked <= k| / k"""
    return _judged_within(ctx, cutoff) / cutoff


@measure(name="Unjudged", summary="share of the top k documents that the qrels do not judge, k the divisor "
                                  "(trec_eval 10's unj)",
         cutoff=REQUIRED, citation=TREC_EVAL)
def unjudged_share(ctx: RunContext, *, cutoff: int) -> np.ndarray:
    """Unjudged@k = |unjudged documents ranked <= k| / k = (min(k, ret) - |judged ranked <= k|) / k"""
    return (np.minimum(ctx.ranking_lengths, cutoff) - _judged_within(ctx, cutoff)) / cutoff


@measure(name="GMAP", summary="AP per topic, summarised by the geometric mean over topics, each AP floored at "
                              "0.00001 (trec_eval's gm_map)",
         cutoff=NONE, citation=ROBERTSON, binary=True, aggregation=GEOMETRIC_MEAN)
def geometric_map(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """GMAP: per topic AP = (1/R) sum_{relevant r} rel(r) / r; over topics exp(mean(log(max(AP, 0.00001))))"""
    return average_precision(topicwise_gain_list(ctx), None)


@measure(name="IPrec", summary="interpolated precision at a recall level: the best precision at any rank "
                               "reaching it (trec_eval's iprec_at_recall)",
         params=(Param("recall", float, 0.0, "the recall level, round(recall R) relevant documents",
                       in_unit_interval),),
         cutoff=NONE, citation=MANNING, binary=True)
def interpolated_precision(ctx: RunContext, *, cutoff: None = None, recall: float) -> np.ndarray:
    """IPrec(recall=x) = max {rel(r) / r : r relevant, rel(r) >= max(1, floor(x R + 0.5))}, 0 if no such r"""
    gl = topicwise_gain_list(ctx)
    needed = np.maximum(np.floor(recall * gl.n_relevant + 0.5), 1)
    found = relevant_running_count(gl)
    reaching = (gl.gains > 0) & (found >= needed[:, None])
    return np.where(reaching, precision_terms(gl), 0.0).max(axis=1, initial=0.0)
