"""The (hit, intent) pairs of a ranking's hits: what :class:`divaleval.context.Hits` is built from.

:func:`hit_pairs` is the numpy twin, written out, and takes the compiled kernels of the same names
(divaleval/native/hits.c: two passes over the hits, without the GIL) where they are built and the
arrays are of their types. Integer gathers only: the kernel gives the twin's values exactly, or
declines (a row out of range) and the twin runs. :func:`pair_sums` (each hit's sum over its pairs,
in pair order) and :func:`pair_layout` (the pairs grouped by (topic, intent), a counting sort) stand
in for what every novelty measure did in numpy with a gather and a scatter per intent and a sort:
one loop each in C, the same additions in the same order, integers exactly.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .compiled import kernel

HitPairs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def hit_pairs(pointer: np.ndarray, intents: np.ndarray, levels: np.ndarray, row: np.ndarray, slot: np.ndarray,
              columns: int) -> HitPairs:
    """(pair_count, first_pair, pair_hit, pair_intent, pair_level, pair_key) of the hits ``row`` (their judged
    rows) in slots ``slot``: hit h is relevant to intents ``intents[pointer[row[h]]:pointer[row[h] + 1]]`` at
    ``levels[...]``; its pairs are numbered from ``first_pair[h]``, and a pair's key is
    ``slot[h] * columns + intent``."""
    counts, fill = kernel("hit_pair_counts"), kernel("hit_pairs")
    if counts is not None and fill is not None and _int64(pointer) and _int64(intents) and _int64(slot) \
            and levels.dtype == np.int16 and levels.flags.c_contiguous and len(slot) == len(row):
        row64 = np.ascontiguousarray(row, dtype=np.int64)
        pair_count, first_pair = np.empty(len(row), dtype=np.int64), np.empty(len(row), dtype=np.int64)
        total = counts(pointer, row64, pair_count, first_pair)
        if total is not None:
            pair_hit, pair_intent, pair_key = (np.empty(total, dtype=np.int64) for _ in range(3))
            pair_level = np.empty(total, dtype=np.int16)
            if fill(pointer, intents, levels, row64, slot, pair_count, first_pair, columns, pair_hit, pair_intent,
                    pair_level, pair_key) is not None:
                return pair_count, first_pair, pair_hit, pair_intent, pair_level, pair_key
    return _numpy_hit_pairs(pointer, intents, levels, row, slot, columns)


def _int64(array: np.ndarray) -> bool:
    return array.ndim == 1 and array.dtype == np.int64 and array.flags.c_contiguous


def _numpy_hit_pairs(pointer: np.ndarray, intents: np.ndarray, levels: np.ndarray, row: np.ndarray,
                     slot: np.ndarray, columns: int) -> HitPairs:
    start = pointer[row]
    pair_count = pointer[row + 1] - start
    first_pair = np.cumsum(pair_count) - pair_count
    pair_hit = np.repeat(np.arange(len(row)), pair_count)
    index = start[pair_hit] + np.arange(len(pair_hit)) - first_pair[pair_hit]
    pair_intent = intents[index]
    return pair_count, first_pair, pair_hit, pair_intent, levels[index], slot[pair_hit] * columns + pair_intent


Passes = list[tuple[np.ndarray, np.ndarray]]


def pair_passes(pair_count: np.ndarray, first_pair: np.ndarray) -> Passes:
    """For k = 0, 1, ...: the hits with more than k pairs, and their k-th pair (what the twin of
    :func:`pair_sums` walks)."""
    passes = []
    for k in range(int(pair_count.max(initial=0))):
        hits = np.flatnonzero(pair_count > k)
        passes.append((hits, first_pair[hits] + k))
    return passes


def pair_sums(values: np.ndarray, pair_count: np.ndarray, first_pair: np.ndarray,
              passes: Callable[[], Passes]) -> np.ndarray:
    """(hits,) each hit's sum of its pairs' ``values``, added in pair order from 0.0. The twin adds the k-th pair
    of every hit at pass k (``passes()``, kept by the caller: see :func:`pair_passes`); the kernel adds a hit's
    pairs in one loop, the same additions in the same order, so the same bits."""
    sums = kernel("pair_sums")
    if sums is not None and values.dtype == np.float64 and values.ndim == 1 and _int64(pair_count) \
            and _int64(first_pair) and len(first_pair) == len(pair_count):
        total = np.empty(len(pair_count))
        if sums(np.ascontiguousarray(values), pair_count, first_pair, total) is not None:
            return total
    return _numpy_pair_sums(values, len(pair_count), passes())


def _numpy_pair_sums(values: np.ndarray, hits: int, passes: Passes) -> np.ndarray:
    total = np.zeros(hits)
    for hit, pair in passes:
        total[hit] = total[hit] + values[pair]
    return total


PairLayout = tuple[np.ndarray, np.ndarray, np.ndarray, int]


def pair_layout(keys: np.ndarray, groups: int) -> PairLayout:
    """The pairs grouped by key (``0 <= key < groups``), pair order kept within a key: (order, a stable argsort
    of ``keys``; prior, per pair, how many earlier pairs share its key; cell, ``keys[order] * width +
    prior[order]``; width, the largest group, at least 1). The kernel counts and places (a counting sort,
    integers only, without the GIL); the twin sorts."""
    layout = kernel("pair_layout")
    if layout is not None and _int64(keys):
        order, prior, cell = (np.empty(len(keys), dtype=np.int64) for _ in range(3))
        width = layout(keys, groups, order, prior, cell)
        if width is not None:
            return order, prior, cell, width
    return _numpy_pair_layout(keys, groups)


def _numpy_pair_layout(keys: np.ndarray, groups: int) -> PairLayout:
    order = np.argsort(keys.astype(np.int16) if groups < 2 ** 15 else keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]) if len(keys) else keys[:0]
    column = np.arange(len(keys), dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
    width = max(int(column.max(initial=-1)) + 1, 1)
    prior = np.empty(len(order), dtype=np.int64)
    prior[order] = column
    return order, prior, sorted_keys * width + column, width


def pair_running_sums(values: np.ndarray, layout: PairLayout, groups: int) -> np.ndarray:
    """(pairs,) each pair's running sum of ``values`` over the pairs of its key up to it, in pair order, as
    np.cumsum sums a row of the by-key grid (``layout``: :func:`pair_layout` of the keys, ``groups`` keys). The
    kernel walks the pairs in the layout's order, adding as np.cumsum adds; the twin fills the grid, sums its
    rows and reads the pairs back."""
    running = kernel("pair_running_sums")
    order, prior, cell, width = layout
    if running is not None and values.dtype == np.float64 and values.ndim == 1 and _int64(order) \
            and _int64(prior) and len(order) == len(values) == len(prior):
        out = np.empty(len(values))
        if running(np.ascontiguousarray(values), order, prior, out) is not None:
            return out
    return _numpy_pair_running_sums(values, layout, groups)


def _numpy_pair_running_sums(values: np.ndarray, layout: PairLayout, groups: int) -> np.ndarray:
    order, _, cell, width = layout
    grid = np.zeros(groups * width, dtype=np.result_type(values.dtype, np.float64))
    grid[cell] = values[order]
    grid = np.cumsum(grid.reshape(groups, width), axis=1).reshape(-1)
    out = np.empty(len(order), dtype=grid.dtype)
    out[order] = grid[cell]
    return out


def graded_pair_sums(level: np.ndarray, key: np.ndarray, prior: np.ndarray, kept: np.ndarray | None,
                     level_gain: np.ndarray, top: np.ndarray, weight: np.ndarray, powers: np.ndarray,
                     pair_count: np.ndarray, first_pair: np.ndarray, passes: Callable[[], Passes]) -> np.ndarray:
    """(hits,) each hit's graded novelty gain: the sum, over its pairs in pair order from 0.0, of ``weight[key] *
    ((level_gain[level] / top[key]) * powers[prior])`` (the term times ``kept``, where given), per pair ``key``
    its (topic, intent) and ``prior`` its c(r, i). The kernel computes and adds a hit's terms in one loop, each
    operation numpy's in numpy's order; the twin computes the terms, then adds them as :func:`pair_sums`."""
    sums = kernel("graded_pair_sums")
    tables = [np.ascontiguousarray(table, dtype=np.float64) for table in (level_gain, top, weight, powers)]
    if sums is not None and level.dtype == np.int16 and _int64(key) and _int64(prior) and _int64(pair_count) \
            and _int64(first_pair) and len(level) == len(key) == len(prior) and len(first_pair) == len(pair_count) \
            and (kept is None or (kept.dtype == np.bool_ and len(kept) == len(key))):
        total = np.empty(len(pair_count))
        flags = np.zeros(0, dtype=bool) if kept is None else np.ascontiguousarray(kept)
        if sums(np.ascontiguousarray(level), key, prior, flags, *tables, pair_count, first_pair, total) is not None:
            return total
    return _numpy_graded_pair_sums(level, key, prior, kept, *tables, len(pair_count), passes)


def _numpy_graded_pair_sums(level: np.ndarray, key: np.ndarray, prior: np.ndarray, kept: np.ndarray | None,
                            level_gain: np.ndarray, top: np.ndarray, weight: np.ndarray, powers: np.ndarray,
                            hits: int, passes: Callable[[], Passes]) -> np.ndarray:
    terms = (level_gain[level] / top[key]) * powers[prior]
    if kept is not None:
        terms = terms * kept
    return _numpy_pair_sums(weight[key] * terms, hits, passes())
