"""What a measure kernel sees: one run against the qrels, over a set of topics.

Everything is topic-vectorised: arrays have one row per evaluated topic. The
documents of a ranking that are relevant to some intent ("hits") are gathered
into padded ``topics x hits`` arrays; measures of the ndeval family only ever
add terms for hits, and skipping the zero terms of the other documents leaves
every sum bit for bit the same. Quantities measures derive from a context are
kept in :attr:`RunContext.cache` (see :mod:`divaleval.measures.core.cache`), so
the measures of one family share their work.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from .arrays import pad_groups
from .model.qrels import Qrels
from .model.settings import Settings
from .ranking import RankedRun

PAST_END = np.iinfo(np.int64).max // 4  # position of padding: beyond every cutoff


class Hits:
    """The relevant documents of each topic's ranking, in rank order.

    position: (T, H) 1-based rank position, PAST_END for padding;
    levels: (T, H, I) level of the document for each intent column.
    """

    def __init__(self, position: np.ndarray, levels: np.ndarray) -> None:
        self.position = position
        self.levels = levels

    @cached_property
    def relevant(self) -> np.ndarray:
        """(T, H, I) bool: relevant to the intent (level >= 1)."""
        return self.levels >= 1

    @cached_property
    def coverage(self) -> np.ndarray:
        """(T, H, I) int32: hits up to and including this one relevant to the intent."""
        return np.cumsum(self.relevant, axis=1, dtype=np.int32)

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
        self.cache: dict = {}

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def n_intents(self) -> np.ndarray:
        """(T,) intents with at least one relevant document."""
        return self.qrels.n_intents[self.topics]

    @property
    def rel_count(self) -> np.ndarray:
        """(T, I) relevant documents of each intent."""
        return self.qrels.rel_count[self.topics]

    @property
    def weights(self) -> np.ndarray:
        """(T, I) intent weights P(i)."""
        return self.qrels.weights[self.topics]

    def slots(self, topic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row among the scored topics of each qrels topic index in ``topic``, whether it is scored)."""
        if not self.n_topics:
            return np.zeros(len(topic), dtype=np.int64), np.zeros(len(topic), dtype=bool)
        slot = np.minimum(np.searchsorted(self.topics, topic), self.n_topics - 1)
        return slot, self.topics[slot] == topic

    @cached_property
    def run_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`slots` of every ranked document of the run."""
        return self.slots(self.run.topic)

    @cached_property
    def ranking_lengths(self) -> np.ndarray:
        """(T,) documents ranked for each topic (after the depth cut)."""
        slot, scored = self.run_slots
        return np.bincount(slot[scored], minlength=self.n_topics)

    @cached_property
    def hits(self) -> Hits:
        qrels, run = self.qrels, self.run
        row = run.row
        relevant = row >= 0
        relevant[relevant] = qrels.row_relevant[row[relevant]]
        slot, scored = self.run_slots
        scored = scored & relevant
        positions, levels = pad_groups(slot[scored], self.n_topics, (run.position[scored], PAST_END),
                                       (qrels.levels[row[scored]], 0))
        return Hits(positions, levels)


def prefix_sum_at(cumulative: np.ndarray, position: np.ndarray, cutoff: int | None) -> np.ndarray:
    """Row-wise value of a cumulative sum after the last entry ranked <= cutoff.

    ``cumulative`` is ``np.cumsum(terms, axis=1)`` (sequential, hence exact and
    identical to a loop), (T, H) or (T, H, ...) for several sums at once;
    ``position`` is (T, H). Rows with no entry within the cutoff give 0.
    """
    if cumulative.shape[1] == 0:
        return np.zeros(cumulative.shape[:1] + cumulative.shape[2:])
    count = (position <= (PAST_END - 1 if cutoff is None else cutoff)).sum(axis=1)
    picked = cumulative[np.arange(cumulative.shape[0]), np.maximum(count - 1, 0)]
    return np.where((count > 0).reshape((-1,) + (1,) * (picked.ndim - 1)), picked, 0.0)
