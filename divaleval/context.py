"""What a measure kernel sees: one run against the qrels, over a set of topics.

Everything is topic-vectorised: arrays have one row per evaluated topic. The
documents of a ranking that are relevant to some intent ("hits") are gathered
into padded ``topics x hits`` arrays; measures of the ndeval family only ever
add terms for hits, and skipping the zero terms of the other documents leaves
every sum bit for bit the same. Derived arrays are cached per context, so the
measures of one family share their work.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .gains import Settings
from .ranking import RankedRun
from .topics import Qrels

PAST_END = np.iinfo(np.int64).max // 4  # position of padding: beyond every cutoff


class Hits:
    """The relevant documents of each topic's ranking, in rank order.

    position: (T, H) 1-based rank position, PAST_END for padding;
    levels: (T, H, I) level of the document for each intent column.
    Derived arrays are computed on first use and kept.
    """

    def __init__(self, position: np.ndarray, levels: np.ndarray) -> None:
        self.position = position
        self.levels = levels
        self._relevant: np.ndarray | None = None
        self._coverage: np.ndarray | None = None

    @property
    def relevant(self) -> np.ndarray:
        """(T, H, I) bool: relevant to the intent (level >= 1)."""
        if self._relevant is None:
            self._relevant = self.levels >= 1
        return self._relevant

    @property
    def coverage(self) -> np.ndarray:
        """(T, H, I) int32: hits up to and including this one relevant to the intent."""
        if self._coverage is None:
            self._coverage = np.cumsum(self.relevant, axis=1, dtype=np.int32)
        return self._coverage

    def within(self, cutoff: int) -> np.ndarray:
        """(T,) number of hits ranked at or above ``cutoff``."""
        return (self.position <= cutoff).sum(axis=1)

    def coverage_at(self, cutoff: int) -> np.ndarray:
        """(T, I) hits relevant to each intent ranked at or above ``cutoff``."""
        count = self.within(cutoff)
        at = self.coverage[np.arange(len(count)), np.maximum(count - 1, 0)]
        return np.where((count > 0)[:, None], at, 0)


class RunContext:
    """One run, the qrels, and the topics to score (qrels indices, ascending)."""

    def __init__(self, qrels: Qrels, run: RankedRun, topics: np.ndarray, settings: Settings | None = None) -> None:
        self.qrels = qrels
        self.run = run
        self.topics = np.asarray(topics, dtype=np.int64)
        self.settings = settings or Settings()
        self._cache: dict[tuple, Any] = {}

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def n_intents(self) -> np.ndarray:
        """(T,) intents with at least one relevant document."""
        return self.cached(("n_intents",), lambda: self.qrels.n_intents[self.topics])

    @property
    def rel_count(self) -> np.ndarray:
        """(T, I) relevant documents of each intent."""
        return self.qrels.rel_count[self.topics]

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def ranking_lengths(self) -> np.ndarray:
        """(T,) documents ranked for each topic (after the depth cut)."""
        def compute() -> np.ndarray:
            slot = np.searchsorted(self.topics, self.run.topic)
            ok = slot < self.n_topics
            ok[ok] = self.topics[slot[ok]] == self.run.topic[ok]
            return np.bincount(slot[ok], minlength=self.n_topics)
        return self.cached(("ranking-lengths",), compute)

    def hits(self) -> Hits:
        return self.cached(("hits",), self._gather_hits)

    def _gather_hits(self) -> Hits:
        qrels, run = self.qrels, self.run
        row = run.row
        relevant = row >= 0
        relevant[relevant] = qrels.row_relevant[row[relevant]]
        topic, position, row = run.topic[relevant], run.position[relevant], row[relevant]
        slot = np.searchsorted(self.topics, topic)
        slot = np.minimum(slot, max(self.n_topics - 1, 0))
        scored = (self.topics[slot] == topic) if self.n_topics else np.zeros(len(topic), bool)
        slot, position, row = slot[scored], position[scored], row[scored]
        counts = np.bincount(slot, minlength=self.n_topics)
        width = max(int(counts.max(initial=0)), 1)
        column = np.arange(len(slot)) - np.repeat(np.cumsum(counts) - counts, counts)
        positions = np.full((self.n_topics, width), PAST_END, dtype=np.int64)
        positions[slot, column] = position
        levels = np.zeros((self.n_topics, width, qrels.max_intents), dtype=np.int16)
        levels[slot, column] = qrels.levels[row]
        return Hits(positions, levels)


def prefix_sum_at(cumulative: np.ndarray, position: np.ndarray, cutoff: int | None) -> np.ndarray:
    """Row-wise value of a cumulative sum after the last entry ranked <= cutoff.

    ``cumulative`` is ``np.cumsum(terms, axis=1)`` (sequential, hence exact and
    identical to a loop); rows with no entry within the cutoff give 0.
    """
    if cumulative.shape[1] == 0:
        return np.zeros(cumulative.shape[0])
    count = (position <= (PAST_END - 1 if cutoff is None else cutoff)).sum(axis=1)
    picked = cumulative[np.arange(cumulative.shape[0]), np.maximum(count - 1, 0)]
    return np.where(count > 0, picked, 0.0)


def pad_groups(group: np.ndarray, n_groups: int, *columns: tuple[np.ndarray, float]) -> list[np.ndarray]:
    """Spread entries sorted by group into (n_groups, width) arrays, one per column.

    ``columns`` are (values, padding) pairs; entries keep their order within a group.
    """
    counts = np.bincount(group, minlength=n_groups)
    width = max(int(counts.max(initial=0)), 1)
    slot = np.arange(len(group)) - np.repeat(np.cumsum(counts) - counts, counts)
    out = []
    for values, padding in columns:
        padded = np.full((n_groups, width), padding, dtype=np.result_type(values, type(padding)))
        padded[group, slot] = values
        out.append(padded)
    return out
