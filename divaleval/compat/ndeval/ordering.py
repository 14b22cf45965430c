"""Ranking as ndeval does, a group of whole topics at a time: by the rank column, or with
``-traditional`` by score (ties by docno descending), NaN scores ordered as glibc's merge sort orders them."""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np
import pyarrow as pa

from ...io.runs import RunTable
from .reading import NdevalRun, number_factor, setting


def topic_groups(topic: np.ndarray) -> Iterator[np.ndarray]:
    """Line indices (0-based) of groups of whole topics, ascending topics, file order within a topic."""
    order = np.argsort(topic, kind="stable")
    if len(order) < 2**31:
        order = order.astype(np.int32)
    sorted_topic = topic[order]
    starts = np.flatnonzero(np.r_[True, sorted_topic[1:] != sorted_topic[:-1]])
    del sorted_topic
    group_of_topic = starts // setting("GROUP_LINES")
    bounds = starts[np.r_[True, group_of_topic[1:] != group_of_topic[:-1]]]
    for lo, hi in zip(bounds, np.r_[bounds[1:], len(order)]):
        yield order[lo:hi].astype(np.int64)


def take_rows(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """``column[rows]`` without copying the whole column (as ChunkedArray.take would)."""
    if len(rows) and rows[-1] - rows[0] == len(rows) - 1 and (np.diff(rows) == 1).all():
        return column.slice(int(rows[0]), len(rows))
    bounds = np.cumsum([0] + [len(chunk) for chunk in column.chunks])
    chunk_of = np.searchsorted(bounds, rows, side="right") - 1
    by_chunk = np.argsort(chunk_of, kind="stable")
    pieces, at = [], 0
    for c, count in zip(*np.unique(chunk_of[by_chunk], return_counts=True)):
        local = rows[by_chunk[at:at + count]] - bounds[c]
        pieces.append(column.chunk(int(c)).take(pa.array(local)))
        at += count
    gathered = pa.concat_arrays(pieces) if pieces else pa.array([], pa.binary())
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[by_chunk] = np.arange(len(rows))
    return gathered.take(pa.array(inverse))


def traditional_ranks(rows: np.ndarray, topic: np.ndarray, score: np.ndarray, docnos: list[bytes],
                      n_lines: int) -> np.ndarray:
    """Ranks of ndeval -traditional for lines (file positions ``rows``, grouped by topic) when a score is NaN.

    ndeval sorts all lines with qsort(); glibc 2.36's qsort is a stable top-down
    merge sort (halves of n // 2), and ndeval's comparator orders by topic,
    score descending, then docno descending: with a NaN score neither score
    test holds, so the docno decides, and the order is not transitive. Since
    topics compare first, the order within a topic is that of the same merge
    tree restricted to its lines; any subtree whose lines are all NaN or all
    numbers is an ordinary stable sort, the rest is merged as glibc merges.
    """
    ranks = np.zeros(len(rows), dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], len(rows)]):
        items = [(int(rows[k]), float(score[k]), docnos[k], k) for k in range(lo, hi)]
        ordered = _merge_sort(items, 0, n_lines)
        for position, item in enumerate(ordered, start=1):
            ranks[item[3]] = position
    return ranks


def _merge_sort(items: list, lo: int, hi: int) -> list:
    """glibc's msort of the lines at positions [lo, hi), restricted to ``items`` (ascending positions)."""
    if len(items) <= 1:
        return items
    nans = sum(math.isnan(item[1]) for item in items)
    if nans in (0, len(items)):  # a consistent order: stable by docno descending, then (numbers) by score
        ordered = sorted(items, key=lambda item: item[2], reverse=True)
        return ordered if nans else sorted(ordered, key=lambda item: -item[1])
    middle = lo + (hi - lo) // 2
    split = next((k for k, item in enumerate(items) if item[0] >= middle), len(items))
    left, right = _merge_sort(items[:split], lo, middle), _merge_sort(items[split:], middle, hi)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if _compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _compare(a: tuple, b: tuple) -> int:
    """ndeval's resultCompareByScore within a topic: score descending, then docno descending (strcmp)."""
    if a[1] < b[1]:
        return 1
    if a[1] > b[1]:
        return -1
    return (b[2] > a[2]) - (b[2] < a[2])


def group_table(run: NdevalRun, rows: np.ndarray, traditional: bool) -> tuple[RunTable, str]:
    """The lines ``rows`` of a run as a RunTable, and the order rule that ranks them as ndeval does."""
    topic = run.topic[rows]
    docno = take_rows(run.docno, rows)
    order, rank = "rank", run.rank[rows].astype(np.int64)
    score = np.zeros(len(rows))
    if traditional:
        score = run.score[rows]
        order = "score"
        if np.isnan(score).any():
            docnos = docno.to_pylist()
            rank = traditional_ranks(rows, topic, score, docnos, len(run))
            order = "rank"
    table = RunTable(run.name, run.runid, number_factor(topic), docno, rank, score, rows + 1)
    return table, order
