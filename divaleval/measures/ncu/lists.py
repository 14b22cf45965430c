"""Ranked lists of graded gains, the input of every NCU kernel.

A :class:`GainList` holds, per row (a topic, or a topic's intent), the gains of
the ranked documents that have one and the ideal list. The gains come from one
gain per judged row of the qrels: topicwise (ad hoc measures), global (the
D-measures), per intent (the IA-measures), or any other rule (TOMA's weights,
one aspect's gains): :func:`row_gain_list` turns such a rule into a gain list,
and the ideal lists of every topic are computed once per qrels.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...arrays import pad_groups
from ...context import PAST_END, RunContext
from ...model.gains import GainTable, topicwise_levels
from ...model.qrels import Qrels
from ...model.settings import Settings
from ..core import memoised
from ..core.kernels import weighted_intent_sum


@dataclass(eq=False)
class GainList:
    """Ranked lists with graded gains, one per row (a topic, or a topic's intent)."""

    gains: np.ndarray       # (N, H) gains of ranked documents with a gain, in rank order; 0-padded
    position: np.ndarray    # (N, H) their 1-based ranks; PAST_END padding
    ideal: np.ndarray       # (N, L) the ideal list's gains, descending; 0-padded
    n_relevant: np.ndarray  # (N,) R
    top_gain: np.ndarray    # (N,) hg
    cache: dict = field(default_factory=dict, init=False, repr=False)
    # Where the ideal lists are the qrels' own (the same for every run): those of every row of the qrels
    # as a ranking (kept with the qrels), and this list's rows among them. None: only this list's.
    shared_ideal: "tuple[GainList, np.ndarray] | None" = field(default=None, repr=False)
    # The cutoffs the measures scored with this list ask for (the run context's): a kernel's sums at all of
    # them come from one pass over its terms.
    cutoffs: tuple = field(default=(), repr=False)

    @classmethod
    def of(cls, gains: np.ndarray, position: np.ndarray, ideal: np.ndarray,
           shared_ideal: "tuple[GainList, np.ndarray] | None" = None, cutoffs: tuple = ()) -> "GainList":
        """A gain list whose R and hg come from its ideal list (taken from the shared ideal lists' rows, which
        counted them once per qrels, where there are such)."""
        if shared_ideal is not None:
            every_row, rows = shared_ideal
            return cls(gains, position, ideal, every_row.n_relevant[rows], every_row.top_gain[rows],
                       shared_ideal=shared_ideal, cutoffs=cutoffs)
        return cls(gains, position, ideal, (ideal > 0).sum(axis=1), ideal.max(axis=1, initial=0.0),
                   shared_ideal=shared_ideal, cutoffs=cutoffs)


@memoised
def ideal_list(gains: GainList) -> GainList:
    """The ideal list itself, as a ranking."""
    position = np.broadcast_to(np.arange(1, gains.ideal.shape[1] + 1), gains.ideal.shape)
    return GainList(gains.ideal, position, gains.ideal, gains.n_relevant, gains.top_gain)


def ideal_value(gains: GainList, kernel: Callable[..., np.ndarray], cutoff: int | None, params: dict) -> np.ndarray:
    """``kernel`` on each row's ideal list. Every row is computed alone, so where the ideal lists are the
    qrels' the values of every qrels row are computed once (for the first run) and each run takes its rows."""
    if gains.shared_ideal is None:
        return kernel(ideal_list(gains), cutoff, **params)
    every_row, rows = gains.shared_ideal
    return _values(every_row, kernel, cutoff, tuple(sorted(params.items())))[rows]


@memoised
def _values(gains: GainList, kernel: Callable[..., np.ndarray], cutoff: int | None, params: tuple) -> np.ndarray:
    # On a copy: only the values are kept with the qrels (and sent to workers), not the arrays made on the way.
    scratch = GainList(gains.gains, gains.position, gains.ideal, gains.n_relevant, gains.top_gain)
    return kernel(scratch, cutoff, **dict(params))


def _as_ranking(ideal: np.ndarray) -> GainList:
    """Ideal lists as a ranking of their own (each row's ideal list is itself)."""
    return GainList.of(ideal, np.broadcast_to(np.arange(1, ideal.shape[1] + 1), ideal.shape), ideal)


def _ideal_lists(group: np.ndarray, gains: np.ndarray, n_groups: int) -> np.ndarray:
    """(n_groups, L): each group's positive gains in descending order."""
    keep = gains > 0
    group, gains = group[keep], gains[keep]
    order = np.lexsort((-gains, group))
    (ideal,) = pad_groups(group[order], n_groups, (gains[order], 0.0))
    return ideal


# -- one gain per judged row ---------------------------------------------------------

RowGains = Callable[..., np.ndarray]  # a memoised rule: (qrels, *args) -> (rows,) gains


@memoised
def topicwise_row_levels(qrels: Qrels, topicwise: str) -> np.ndarray:
    """Each judged document's topicwise level (its level in ad hoc qrels), under the rule ``topicwise``: once per
    qrels for the gains and for bpref's and infAP's classes."""
    return qrels.levels[:, 0] if qrels.adhoc else topicwise_levels(qrels.levels, topicwise)


@memoised
def topicwise_row_gains(qrels: Qrels, settings: Settings) -> np.ndarray:
    """The gain of each judged document's topicwise level (its level in ad hoc qrels)."""
    return settings.gain.gains(topicwise_row_levels(qrels, settings.topicwise))


@memoised
def global_row_gains(qrels: Qrels, settings: Settings) -> np.ndarray:
    """Global gain GG(d) = sum_i P(i) gain(L_i(d)), summed in intent order."""
    total = weighted_intent_sum(settings.gain.gains(qrels.levels), qrels.weights[qrels.row_topic])
    return settings.conventions.round_global_gains(total)


@memoised
def global_run_gains(qrels: Qrels, settings: Settings) -> np.ndarray:
    """GG(d) as a run's documents carry it: conventions may round it further than the ideal lists do
    (NTCIREVAL labels a run with gains printed to 4 decimals, while its ideal lists keep 6 digits)."""
    return settings.conventions.round_run_gains(global_row_gains(qrels, settings))


def row_gain_list(ctx: RunContext, row_gains: RowGains, *args) -> GainList:
    """The run's gain list over the context's topics, gains ``row_gains(qrels, *args)`` of the judged rows.

    The ideal lists of every topic are computed once per qrels and rule.
    """
    return ranked_gain_list(ctx, row_gains, row_gains, *args)


@memoised
def ranked_gain_list(ctx: RunContext, ideal_gains: RowGains, run_gains: RowGains, *args) -> GainList:
    """:func:`row_gain_list` where the run's documents take their gains by one rule and the ideal lists by
    another (the same quantity, rounded differently: :func:`global_run_gains`)."""
    qrels = ctx.qrels
    every_row = _ideal_ranking_of_rows(qrels, ideal_gains, *args)
    row_gain = _float_gains(qrels, run_gains, *args)
    if _gains_where_relevant(qrels, run_gains, *args):  # the ranked documents with a gain are the hits
        hits = ctx.hits
        gains, position = hits.grid(row_gain[hits.row], 0.0), hits.position
    else:
        slot, row, position = ctx.judged_lines  # (an unjudged document has no gain)
        gain = row_gain[row]
        hit = np.flatnonzero(gain > 0)  # (indices: much cheaper to take by than a boolean mask)
        gains, position = pad_groups(slot[hit], ctx.n_topics, (gain[hit], 0.0), (position[hit], PAST_END))
    return GainList.of(gains, position, _rows_of(every_row.ideal, ctx.topics), (every_row, ctx.topics), ctx.cutoffs)


def _rows_of(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]`` for ascending distinct ``rows``: ``values`` itself where they are all of its rows (every
    topic scored), rather than a copy."""
    if len(rows) == len(values) and (not len(rows) or (rows[0] == 0 and rows[-1] == len(values) - 1)):
        return values
    return values[rows]


@memoised
def _float_gains(qrels: Qrels, row_gains: RowGains, *args) -> np.ndarray:
    """The rule's gain of each judged row, as float64: once per qrels."""
    return row_gains(qrels, *args).astype(np.float64, copy=False)


@memoised
def _gains_where_relevant(qrels: Qrels, row_gains: RowGains, *args) -> bool:
    """Whether the rows with a gain under the rule are the relevant rows (a level >= 1 for some intent): then
    a run's entries with a gain are its hits, laid out as :class:`~divaleval.context.Hits` lays them out (each
    topic's in rank order), and a gain list takes the hits' grid of ranks rather than laying out its own.
    Checked once per qrels (a rule may give a relevant row no gain: a gain table's 0, a weight of 0, a
    rounding)."""
    return bool(np.array_equal(_float_gains(qrels, row_gains, *args) > 0, qrels.row_relevant))


@memoised
def _ideal_ranking_of_rows(qrels: Qrels, row_gains: RowGains, *args) -> GainList:
    """Every topic's ideal list under the rule, as a ranking: once per qrels."""
    return _as_ranking(_ideal_lists(qrels.row_topic, row_gains(qrels, *args), qrels.n_topics))


@memoised
def topicwise_gain_list(ctx: RunContext) -> GainList:
    """Topicwise gains (the ad hoc measures). hg may come from an explicit gain table (conventions)."""
    settings = ctx.settings
    listed = row_gain_list(ctx, topicwise_row_gains, settings)
    table_top = settings.gain.top_gain()
    if table_top is None or not settings.conventions.top_gain_from_table:
        return listed
    top_gain = np.where(listed.n_relevant > 0, table_top, 0.0)
    return GainList(listed.gains, listed.position, listed.ideal, listed.n_relevant, top_gain, cutoffs=listed.cutoffs)


def global_gain_list(ctx: RunContext) -> GainList:
    """Global gains (the D-measures)."""
    return ranked_gain_list(ctx, global_row_gains, global_run_gains, ctx.settings)


# -- one list per (topic, intent) ------------------------------------------------------

@memoised
def _intent_ideal_ranking(qrels: Qrels, gain_table: GainTable) -> GainList:
    """Every (topic, intent column)'s ideal list, as a ranking: once per qrels."""
    n_int = qrels.max_intents
    row, intent = np.nonzero(qrels.levels >= 1)
    return _as_ranking(_ideal_lists(qrels.row_topic[row] * n_int + intent,
                                    gain_table.gains(qrels.levels[row, intent]), qrels.n_topics * n_int))


@memoised
def intent_gain_list(ctx: RunContext, gain_table: GainTable) -> GainList:
    """One row per (topic, intent column): each intent's own gains under ``gain_table``, and its ideal list.

    The rows are the run's (hit, intent) pairs grouped by intent, in rank order.
    """
    hits, n_int = ctx.hits, ctx.qrels.max_intents
    # Each level's gain computed once and gathered for the pairs (the same numbers: gains are per level).
    gains = hits.by_intent(gain_table.gains(np.arange(int(hits.pair_level.max(initial=0)) + 1))[hits.pair_level], 0.0)
    position = hits.position_by_intent
    every_row = _intent_ideal_ranking(ctx.qrels, gain_table)
    rows = (ctx.topics[:, None] * n_int + np.arange(n_int)).reshape(-1)
    return GainList.of(gains, position, _rows_of(every_row.ideal, rows), (every_row, rows), ctx.cutoffs)

