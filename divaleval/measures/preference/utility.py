"""Utilities of ranked documents from preference judgments, and the ideal rankings nPrf divides by.

Rank 1 takes U(d_1); rank i >= 2 takes F over U(d_i | d_j), j < i (Chandar &
Carterette 2013, eq. 8: at rank 2 that is U(d_2 | d_1) alone), F the average
or the minimum. An undefined U(d_i | d_j) (the pair was never judged with d_j
given) is U(d_i) (``missing=unconditional``) or 0 (``missing=zero``). A
document nobody judged has utility 0 at every rank. A tool's rules
(:class:`~divaleval.model.preference_rules.PreferenceRules`) may add U(d_i) itself to
F, leave unseen given documents out of the minimum, smooth the estimates, and
replace the greedy ideal by the largest utilities.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...arrays import pad_groups
from ...context import RunContext
from ..core import memoised

if TYPE_CHECKING:  # (annotations only: scoring other judgments leaves this model unloaded)
    from ...model.preference_rules import PreferenceRules
    from ...model.preferences import PreferenceJudgments, PreferenceQrels

F_CHOICES = ("avg", "min")
MISSING_CHOICES = ("unconditional", "zero")
BLOCK_CELLS = 1 << 22  # (topics x ranks x ranks above) values looked up at once


@memoised
def ranked_rows(ctx: RunContext, cutoff: int) -> np.ndarray:
    """(T, cutoff) judged row of the document at each rank of each topic; -1 for none or an unjudged one."""
    slot, scored = ctx.run_slots
    position = ctx.run.position
    within = scored & (position <= cutoff)
    grid = np.full((ctx.n_topics, cutoff), -1, dtype=np.int64)
    grid[slot[within], position[within] - 1] = ctx.run.row[within]
    return grid


def ranking_utilities(judgments: PreferenceJudgments, rows: np.ndarray, f: str, missing: str,
                      rules: PreferenceRules) -> np.ndarray:
    """(T, K) utility of the document at each rank of each ranking of ``rows`` ((T, K) judged rows, -1 for none)."""
    smoothing = rules.smoothing
    judged = rows >= 0
    safe = np.maximum(rows, 0)
    u0 = np.where(judged, judgments.unconditional(smoothing)[safe], 0.0)
    seen = judged & judgments.given_seen[safe]
    out = u0.copy()
    n_topics, depth = rows.shape
    step = max(1, BLOCK_CELLS // max(n_topics * depth, 1))
    for start in range(1, depth, step):
        stop = min(depth, start + step)
        docs = rows[:, start:stop, None]                                   # (T, B, 1): d_i
        values = judgments.conditional(rows[:, None, :stop], docs, smoothing)  # (T, B, stop): U(d_i | d_j)
        fallback = u0[:, start:stop, None] if missing == "unconditional" else 0.0
        values = np.where(np.isnan(values), fallback, values)
        values = np.where(docs >= 0, values, 0.0)
        above = np.arange(stop)[None, None, :] < np.arange(start, stop)[None, :, None]   # j < i
        out[:, start:stop] = _combine(values, above, seen[:, None, :stop], u0[:, start:stop], f, rules)
    return out


def _combine(values: np.ndarray, above: np.ndarray, seen: np.ndarray, u0: np.ndarray, f: str,
             rules: PreferenceRules) -> np.ndarray:
    """F over the last axis of ``values`` where ``above`` (documents above), by the rules."""
    if f == "avg":
        total = np.where(above, values, 0.0).sum(axis=2)
        count = above.sum(axis=2).astype(np.float64)
        if rules.utility_with_unconditional:
            total, count = total + u0, count + 1.0
        return total / count
    considered = above & seen if rules.minimum_skips_unseen_given else above
    low = np.where(considered, values, np.inf).min(axis=2)
    if rules.utility_with_unconditional:
        low = np.minimum(low, u0)
    return np.where(np.isfinite(low), low, 0.0)


@memoised
def greedy_ideal(qrels: PreferenceQrels, f: str, missing: str, rules: PreferenceRules, depth: int) -> np.ndarray:
    """(topics of the qrels, depth) utilities of the greedy ideal ranking of each topic.

    Rank 1: the document of largest U(d); rank i: the one of largest utility
    given those placed (the utility :func:`ranking_utilities` gives it there).
    Candidates are the documents compared in some judgment; an exact tie goes
    to the greatest docno (as ndeval's greedy ideal). Ranks past the last
    candidate have utility 0.
    """
    judgments = qrels.judgments
    smoothing = rules.smoothing
    rows = np.flatnonzero(judgments.compared)
    (candidate,) = pad_groups(qrels.row_topic[rows], qrels.n_topics, (rows, -1))
    n_topics, width = candidate.shape
    valid = candidate >= 0
    u0 = np.where(valid, judgments.unconditional(smoothing)[np.maximum(candidate, 0)], 0.0)
    total, low, count = np.zeros_like(u0), np.full_like(u0, np.inf), 0.0
    if rules.utility_with_unconditional:
        total, low, count = u0.copy(), u0.copy(), 1.0
    free = valid.copy()
    topics = np.arange(n_topics)
    utilities = np.zeros((n_topics, depth))
    for rank in range(depth):
        if rank == 0:
            score = u0
        elif f == "avg":
            score = total / count
        else:
            score = np.where(np.isfinite(low), low, 0.0)
        score = np.where(free, score, -np.inf)
        pick = width - 1 - np.argmax(score[:, ::-1], axis=1)  # the last maximum: the greatest docno
        best = score[topics, pick]
        placed = np.isfinite(best)
        if not placed.any():
            break
        utilities[placed, rank] = best[placed]
        free[topics[placed], pick[placed]] = False
        given = np.where(placed, candidate[topics, pick], -1)
        values = judgments.conditional(given[:, None], candidate, smoothing)
        values = np.where(np.isnan(values), u0 if missing == "unconditional" else 0.0, values)
        total, count = total + values, count + 1.0
        lowered = placed & judgments.given_seen[np.maximum(given, 0)] if rules.minimum_skips_unseen_given \
            else placed
        low = np.where(lowered[:, None], np.minimum(low, values), low)
    return utilities


@memoised
def largest_utilities(qrels: PreferenceQrels, rules: PreferenceRules, depth: int) -> np.ndarray:
    """(topics of the qrels, depth) the largest entries of each topic's utility table, descending, 0-padded.

    The table holds U(d) of every compared document and U(d | g) of every
    judged (g, d) pair: an upper bound on any ranking's utilities, not a ranking.
    """
    judgments = qrels.judgments
    smoothing = rules.smoothing
    compared = np.flatnonzero(judgments.compared)
    given_row = judgments.cond_key // judgments.n_rows
    topic = np.concatenate([qrels.row_topic[compared], qrels.row_topic[given_row]])
    value = np.concatenate([judgments.unconditional(smoothing)[compared], judgments.judged_utilities(smoothing)])
    order = np.lexsort((-value, topic))
    (grid,) = pad_groups(topic[order], qrels.n_topics, (value[order], 0.0))
    out = np.zeros((qrels.n_topics, depth))
    kept = min(depth, grid.shape[1])
    out[:, :kept] = grid[:, :kept]
    return out
