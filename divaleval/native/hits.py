"""The (hit, intent) pairs of a ranking's hits: what :class:`divaleval.context.Hits` is built from.

:func:`hit_pairs` is the numpy twin, written out, and takes the compiled kernels of the same names
(divaleval/native/hits.c: two passes over the hits, without the GIL) where they are built and the
arrays are of their types. Integer gathers only: the kernel gives the twin's values exactly, or
declines (a row out of range) and the twin runs.
"""
from __future__ import annotations

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
