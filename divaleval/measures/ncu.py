"""The NCU family of ad hoc measures on graded gains (Sakai & Zeng 2019, sec. 3.1; NTCIREVAL).

For one ranked list with gain g(r) at rank r: I(r) = 1 iff g(r) > 0,
C(r) = sum_{s<=r} I(s), cg(r) and cg*(r) the cumulative gains of the run and of
the ideal list (every judged document by gain, descending), R the number of
documents with a gain, hg the largest gain of the ideal list. At cutoff k:

* Prec@k = C(k)/k;  AP@k = (1/min(k,R)) sum_{r<=k} I(r) C(r)/r;  RR = 1/(first relevant rank)
* nDCG@k = sum_{r<=k} g(r)/log2(r+1) over the same for the ideal list (NTCIREVAL's MSnDCG)
* Q@k = (1/min(k,R)) sum_{r<=k} I(r) BR(r),  BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(r))
* s(r) = g(r)/(hg+1), P_ERR(r) = s(r) prod_{t<r} (1 - s(t))
* ERR@k = sum P_ERR(r)/r;  EBR@k = sum P_ERR(r) BR(r);  iRBU@k = sum P_ERR(r) p^r
* RBP@k = (1-p) sum p^(r-1) g(r)/hg
* nERR, nEBR, nRBP, niRBU: over the same measure of the ideal list.

Without a cutoff a measure covers the whole list. This module holds the
kernels, shared by the ad hoc measures (registered here, on topicwise gains),
the D-measures (on global gains) and the intent-aware measures (per intent).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..context import PAST_END, RunContext, pad_groups
from ..gains import GainTable, topicwise_levels
from .base import OPTIONAL, REQUIRED, Param, measure, non_negative
from .novelty import log_discount

SAKAI_ZENG = ("Sakai, Zeng. Which diversity evaluation measures are \"good\"? SIGIR 2019 (sec. 3.1); "
              "NTCIREVAL (Sakai)")


def _in_open_unit(value: float) -> str | None:
    return None if 0.0 < value < 1.0 else "must be in (0, 1)"


BETA = Param("beta", float, 1.0, "weight of the cumulative gain in the blended ratio BR (Q, EBR)", non_negative)
P_RBP = Param("p", float, 0.95, "persistence of the rank-biased user (NTCIREVAL's default)", _in_open_unit)
P_IRBU = Param("p", float, 0.99, "persistence of the rank-biased user (NTCIREVAL's default)", _in_open_unit)


@dataclass
class GainList:
    """Ranked lists with graded gains, one per row (a topic, or a topic's intent).

    Quantities shared by several measures and cutoffs are kept in ``memo``.
    """

    gains: np.ndarray       # (N, H) gains of ranked documents with a gain, in rank order; 0-padded
    position: np.ndarray    # (N, H) their 1-based ranks; PAST_END padding
    ideal: np.ndarray       # (N, L) the ideal list's gains, descending; 0-padded
    n_relevant: np.ndarray  # (N,) R
    top_gain: np.ndarray    # (N,) hg
    memo: dict = field(default_factory=dict, repr=False)

    def remember(self, key: tuple, compute: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def ideal_list(self) -> "GainList":
        """The ideal list itself, as a ranking."""
        def build() -> GainList:
            position = np.broadcast_to(np.arange(1, self.ideal.shape[1] + 1), self.ideal.shape)
            return GainList(self.ideal, position, self.ideal, self.n_relevant, self.top_gain)
        return self.remember(("ideal-list",), build)


# -- gains ----------------------------------------------------------------------

def row_gains(ctx: RunContext, kind: str) -> np.ndarray:
    """Gain of every judged row: ``topicwise`` (ad hoc) or ``global`` (D-measures)."""
    qrels, settings = ctx.qrels, ctx.settings

    def compute() -> np.ndarray:
        if kind == "topicwise":
            level = qrels.levels[:, 0] if qrels.adhoc else topicwise_levels(qrels.levels, settings.topicwise)
            return settings.gain.gains(level)
        # Global gain GG(d) = sum_i P(i) gain(L_i(d)), summed in intent order.
        gains = settings.gain.gains(qrels.levels)
        weights = qrels.weights[qrels.row_topic]
        total = np.zeros(len(gains))
        for i in range(gains.shape[1]):
            total = total + weights[:, i] * gains[:, i]
        if settings.compat == "ntcireval":
            total = np.array([float(f"{v:.6g}") for v in total])  # awk's %.6g in NTCIREVAL's Grelv files
        return total

    return qrels.cached(("row-gains", kind, settings.gain, settings.topicwise, settings.compat), compute)


def _ideal_lists(group: np.ndarray, gains: np.ndarray, n_groups: int) -> np.ndarray:
    """(n_groups, L): each group's positive gains in descending order."""
    keep = gains > 0
    group, gains = group[keep], gains[keep]
    order = np.lexsort((-gains, group))
    (ideal,) = pad_groups(group[order], n_groups, (gains[order], 0.0))
    return ideal


def topic_gain_list(ctx: RunContext, kind: str) -> GainList:
    """Topicwise or global gains of the run's topics, as a :class:`GainList`, cached."""
    return gain_list_of_rows(ctx, (kind, ctx.settings), lambda: row_gains(ctx, kind), kind)


def gain_list_of_rows(ctx: RunContext, key: tuple, gains_of_rows, kind: str = "") -> GainList:
    """A :class:`GainList` from one gain per judged row of the qrels (``gains_of_rows()``).

    ``key`` names the gains in the caches (the ideal lists are kept on the qrels).
    """
    def compute() -> GainList:
        qrels, run = ctx.qrels, ctx.run
        gains_of_row = gains_of_rows()
        ideal_all = qrels.cached(
            ("ideal-gains",) + key,
            lambda: _ideal_lists(qrels.row_topic, gains_of_row, qrels.n_topics),
        )
        judged = run.row >= 0
        gain = np.zeros(len(run.row))
        gain[judged] = gains_of_row[run.row[judged]]
        slot, hit = _slots(ctx, run.topic)
        hit &= gain > 0
        gains, position = pad_groups(slot[hit], ctx.n_topics, (gain[hit], 0.0), (run.position[hit], PAST_END))
        ideal = ideal_all[ctx.topics]
        return _finish(ctx, kind, gains, position, ideal)

    return ctx.cached(("gain-list",) + key, compute)


def intent_gain_list(ctx: RunContext, gain_table: GainTable | None = None) -> GainList:
    """One row per (topic, intent column): each intent's own gains and ideal list.

    gain_table: the gains to use; default the evaluation's (``--gain``).
    """
    gain_table = gain_table or ctx.settings.gain

    def compute() -> GainList:
        qrels, run = ctx.qrels, ctx.run
        n_int = qrels.max_intents

        def ideal_every_topic() -> np.ndarray:
            row, intent = np.nonzero(qrels.levels >= 1)
            group = qrels.row_topic[row] * n_int + intent
            return _ideal_lists(group, gain_table.gains(qrels.levels[row, intent]),
                                qrels.n_topics * n_int)

        ideal_all = qrels.cached(("ideal-intent-gains", gain_table), ideal_every_topic)
        slot, ok = _slots(ctx, run.topic)
        ok &= run.row >= 0
        entries, intent = np.nonzero(qrels.levels[run.row[ok]] >= 1)
        ranked = np.flatnonzero(ok)[entries]
        group = slot[ranked] * n_int + intent
        order = np.argsort(group, kind="stable")  # by (topic, intent), rank order kept
        gains = gain_table.gains(qrels.levels[run.row[ranked], intent])
        gains, position = pad_groups(group[order], ctx.n_topics * n_int,
                                     (gains[order], 0.0), (run.position[ranked][order], PAST_END))
        rows = (ctx.topics[:, None] * n_int + np.arange(n_int)).reshape(-1)
        ideal = ideal_all[rows] if len(rows) else np.zeros((0, ideal_all.shape[1]))
        return _finish(ctx, "intent", gains, position, ideal)

    return ctx.cached(("gain-list", "intent", gain_table), compute)


def _slots(ctx: RunContext, topic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row of each ranked document's topic among ctx.topics, and whether it is scored."""
    if not ctx.n_topics:
        return np.zeros(len(topic), dtype=np.int64), np.zeros(len(topic), dtype=bool)
    slot = np.minimum(np.searchsorted(ctx.topics, topic), ctx.n_topics - 1)
    return slot, ctx.topics[slot] == topic


def _finish(ctx: RunContext, kind: str, gains: np.ndarray, position: np.ndarray, ideal: np.ndarray) -> GainList:
    n_relevant = (ideal > 0).sum(axis=1)
    top_gain = ideal.max(axis=1, initial=0.0)
    table_top = ctx.settings.gain.top_gain()
    if kind == "topicwise" and table_top is not None and ctx.settings.compat == "ntcireval":
        # NTCIREVAL's ad hoc compute divides by the largest gain of its -g table.
        top_gain = np.where(n_relevant > 0, table_top, 0.0)
    return GainList(gains, position, ideal, n_relevant, top_gain)


# -- kernels ----------------------------------------------------------------------

def _within(gl: GainList, cutoff: int | None) -> np.ndarray:
    return (gl.position <= (PAST_END - 1 if cutoff is None else cutoff)) & (gl.gains > 0)


def _rank_normaliser(gl: GainList, cutoff: int | None) -> np.ndarray:
    """min(k, R), or R without a cutoff."""
    return gl.n_relevant if cutoff is None else np.minimum(cutoff, gl.n_relevant)


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(np.shape(numerator))
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) != 0)
    return out


def _blended_ratio(gl: GainList, beta: float) -> np.ndarray:
    return gl.remember(("blended-ratio", beta), lambda: _compute_blended_ratio(gl, beta))


def _compute_blended_ratio(gl: GainList, beta: float) -> np.ndarray:
    count = np.cumsum(gl.gains > 0, axis=1)
    cumulative = np.cumsum(gl.gains, axis=1)
    ideal_cumulative = np.cumsum(gl.ideal, axis=1)
    width = max(ideal_cumulative.shape[1], 1)
    if ideal_cumulative.shape[1] == 0:
        ideal_cumulative = np.zeros((len(gl.gains), 1))
    rank = np.minimum(gl.position, width)
    ideal_at = np.take_along_axis(ideal_cumulative, rank - 1, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (count + beta * cumulative) / (gl.position + beta * ideal_at)


def _err_probability(gl: GainList) -> np.ndarray:
    """P_ERR at each entry: s(r) times the chance the user got that far."""
    return gl.remember(("err-probability",), lambda: _compute_err_probability(gl))


def _compute_err_probability(gl: GainList) -> np.ndarray:
    stop = gl.gains / (gl.top_gain + 1.0)[:, None]
    survive = np.cumprod(1.0 - stop, axis=1)
    before = np.concatenate([np.ones((len(stop), 1)), survive[:, :-1]], axis=1)
    return stop * before


def _sum(gl: GainList, cutoff: int | None, terms: np.ndarray) -> np.ndarray:
    return np.where(_within(gl, cutoff), terms, 0.0).sum(axis=1)


def precision(gl: GainList, cutoff: int) -> np.ndarray:
    return _within(gl, cutoff).sum(axis=1) / cutoff


def average_precision(gl: GainList, cutoff: int | None) -> np.ndarray:
    count = np.cumsum(gl.gains > 0, axis=1)
    return _divide(_sum(gl, cutoff, count / gl.position), _rank_normaliser(gl, cutoff))


def reciprocal_rank(gl: GainList, cutoff: int | None) -> np.ndarray:
    first = np.where(_within(gl, cutoff), gl.position, PAST_END).min(axis=1, initial=PAST_END)
    return np.where(first < PAST_END, 1.0 / np.maximum(first, 1), 0.0)


def q_measure(gl: GainList, cutoff: int | None, beta: float) -> np.ndarray:
    return _divide(_sum(gl, cutoff, _blended_ratio(gl, beta)), _rank_normaliser(gl, cutoff))


def dcg(gl: GainList, cutoff: int | None) -> np.ndarray:
    last = int(gl.position[gl.position < PAST_END].max(initial=1))
    discount = log_discount(last)[np.minimum(gl.position, last) - 1]
    return _sum(gl, cutoff, gl.gains * discount)


def err(gl: GainList, cutoff: int | None) -> np.ndarray:
    return _sum(gl, cutoff, _err_probability(gl) / gl.position)


def ebr(gl: GainList, cutoff: int | None, beta: float) -> np.ndarray:
    return _sum(gl, cutoff, _err_probability(gl) * _blended_ratio(gl, beta))


def rbp(gl: GainList, cutoff: int | None, p: float) -> np.ndarray:
    last = int(gl.position[gl.position < PAST_END].max(initial=1))
    decay = np.power(p, np.minimum(gl.position, last) - 1.0)
    return (1.0 - p) * _divide(_sum(gl, cutoff, gl.gains * decay), gl.top_gain)


def irbu(gl: GainList, cutoff: int | None, p: float) -> np.ndarray:
    last = int(gl.position[gl.position < PAST_END].max(initial=1))
    return _sum(gl, cutoff, _err_probability(gl) * np.power(p, np.minimum(gl.position, last) * 1.0))


def normalised(kernel: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """The kernel's value over the same value of the ideal list (0 where that is 0)."""
    def over_ideal(gl: GainList, cutoff: int | None, **params) -> np.ndarray:
        return _divide(kernel(gl, cutoff, **params), kernel(gl.ideal_list(), cutoff, **params))
    return over_ideal


@dataclass(frozen=True)
class NcuMeasure:
    """One measure of the family: its name, kernel, parameters, cutoff rule and summary."""

    name: str
    kernel: Callable[..., np.ndarray]
    params: tuple[Param, ...]
    cutoff: str
    summary: str


FAMILY = [
    NcuMeasure("nDCG", normalised(dcg), (), OPTIONAL, "DCG with discount 1/log2(r+1) over the ideal's (MSnDCG)"),
    NcuMeasure("Q", q_measure, (BETA,), OPTIONAL, "mean blended ratio BR at the relevant ranks"),
    NcuMeasure("AP", average_precision, (), OPTIONAL, "average precision over min(k, R)"),
    NcuMeasure("Prec", precision, (), REQUIRED, "relevant documents in the top k, over k"),
    NcuMeasure("RR", reciprocal_rank, (), OPTIONAL, "1 / the rank of the first relevant document"),
    NcuMeasure("ERR", err, (), OPTIONAL, "expected reciprocal rank, s(r) = g(r)/(hg+1)"),
    NcuMeasure("nERR", normalised(err), (), OPTIONAL, "ERR over the ideal list's ERR"),
    NcuMeasure("EBR", ebr, (BETA,), OPTIONAL, "expected blended ratio: sum of P_ERR(r) BR(r)"),
    NcuMeasure("nEBR", normalised(ebr), (BETA,), OPTIONAL, "EBR over the ideal list's EBR"),
    NcuMeasure("RBP", rbp, (P_RBP,), OPTIONAL, "rank-biased precision of g(r)/hg"),
    NcuMeasure("nRBP", normalised(rbp), (P_RBP,), OPTIONAL, "RBP over the ideal list's RBP"),
    NcuMeasure("iRBU", irbu, (P_IRBU,), OPTIONAL, "intentwise rank-biased utility: sum of P_ERR(r) p^r"),
    NcuMeasure("niRBU", normalised(irbu), (P_IRBU,), OPTIONAL, "iRBU over the ideal list's iRBU"),
]
BY_NAME = {m.name: m for m in FAMILY}


def round4(values: np.ndarray) -> np.ndarray:
    """Values as NTCIREVAL prints them (%.4f), for its rounding chain."""
    return np.array([float(f"{v:.4f}") for v in np.asarray(values, dtype=np.float64)])


def _register_adhoc(spec: NcuMeasure) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        return spec.kernel(topic_gain_list(ctx, "topicwise"), cutoff, **params)

    kernel.__doc__ = (f"{spec.name}: {spec.summary}, on topicwise gains.\n\n"
                      "Definitions: see :mod:`divaleval.measures.ncu` (e.g. Q@k = (1/min(k,R)) sum I(r) BR(r)).")
    measure(name=spec.name, summary=spec.summary + " (topicwise gains)", params=spec.params,
            cutoff=spec.cutoff, citation=SAKAI_ZENG)(kernel)


for _spec in FAMILY:
    _register_adhoc(_spec)
