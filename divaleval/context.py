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

from .arrays import group_positions
from .native import (PairLayout, Passes, graded_pair_sums, hit_pairs, pair_layout, pair_passes, pair_running_sums,
                     pair_sums)
from .model.judged import JudgedDocuments
from .model.qrels import Qrels
from .model.settings import Settings
from .ranking import RankedRun

PAST_END = np.iinfo(np.int64).max // 4  # position of padding: beyond every cutoff


class Hits:
    """The relevant documents of each topic's ranking, in rank order, and the intents they serve.

    A hit is a ranked document relevant to some intent. Hits are kept flat (topics
    in order, ranks ascending within a topic) and, for per-hit quantities, as
    padded (T, H) grids. What a hit gives each intent is kept as *pairs*, one per
    (hit, intent it is relevant to), intents ascending within a hit: work is then
    proportional to the relevant pairs, not to topics x hits x intents. Sums over
    a hit's intents are made in intent order, and sums over an intent's hits in
    rank order, as C loops make them, so values agree to the last bit.
    """

    def __init__(self, slot: np.ndarray, position: np.ndarray, row: np.ndarray, qrels: Qrels,
                 n_topics: int) -> None:
        self.n_topics, self.n_columns = n_topics, qrels.max_intents
        self.slot = slot                                  # (n,) row of the hit's topic
        self.hit_position = position                      # (n,) its 1-based rank
        self.row = row                                    # (n,) its row in the qrels
        self.column = group_positions(slot) - 1           # (n,) its column in the (T, H) grid
        self.width = max(int(self.column.max(initial=-1)) + 1, 1)
        self._cell = slot * self.width + self.column      # (n,) its cell in the grid, flattened
        self.position = self.grid(position, PAST_END)     # (T, H); PAST_END pads
        # Per hit: intents it is relevant to, and where its pairs start; per pair (P of them): its hit,
        # intent column, level (>= 1) and (topic row, intent) key. (The gathers in one compiled pass.)
        (self.pair_count, self.first_pair, self.pair_hit, self.pair_intent, self.pair_level,
         self.pair_key) = hit_pairs(*qrels.relevant_pairs, row, slot, self.n_columns)
        self._coverage: dict[int, np.ndarray] = {}

    def grid(self, values: np.ndarray, fill) -> np.ndarray:
        """(T, H) grid of per-hit ``values``, ``fill`` where there is no hit."""
        out = np.full(self.n_topics * self.width, fill, dtype=np.result_type(values.dtype, np.dtype(type(fill))))
        out[self._cell] = values  # a flat index: much cheaper than indexing by (row, column)
        return out.reshape(self.n_topics, self.width)

    @cached_property
    def _key_layout(self) -> PairLayout:
        """Pairs grouped by (topic, intent), rank order kept: (order, c(r, i) per pair, cell in the
        flattened by-intent grid, width)."""
        return pair_layout(self.pair_key, self.n_topics * self.n_columns)

    @property
    def pair_prior(self) -> np.ndarray:
        """(P,) c(r, i): the hits above this one in its topic relevant to the same intent."""
        return self._key_layout[1]

    def by_intent(self, values: np.ndarray, fill) -> np.ndarray:
        """(T * I, W) grid of per-pair ``values`` by (topic, intent), in rank order; ``fill`` pads."""
        order, _, cell, width = self._key_layout
        out = np.full(self.n_topics * self.n_columns * width, fill,
                      dtype=np.result_type(values.dtype, np.dtype(type(fill))))
        out[cell] = values[order]
        return out.reshape(self.n_topics * self.n_columns, width)

    def running_by_intent(self, values: np.ndarray) -> np.ndarray:
        """(P,) per pair, the sum of ``values`` over the pairs of its (topic, intent) ranked at or above it,
        added in rank order (the cumulative sums of the :meth:`by_intent` grid, read back per pair)."""
        return pair_running_sums(values, self._key_layout, self.n_topics * self.n_columns)

    @cached_property
    def pair_position(self) -> np.ndarray:
        """(P,) the rank of each pair's hit."""
        return self.hit_position[self.pair_hit]

    @cached_property
    def position_by_intent(self) -> np.ndarray:
        """(T * I, W) :meth:`by_intent` grid of the pairs' ranks (PAST_END pads): MAP-IA and the IA gain
        lists read the same one."""
        return self.by_intent(self.pair_position, PAST_END)

    @cached_property
    def _passes(self) -> Passes:
        return pair_passes(self.pair_count, self.first_pair)

    def per_hit_sum(self, values: np.ndarray) -> np.ndarray:
        """(n,) each hit's sum of its pairs' ``values``, added in intent order."""
        return pair_sums(values, self.pair_count, self.first_pair, lambda: self._passes)

    def graded_gains(self, level_gain: np.ndarray, top: np.ndarray, weight: np.ndarray, powers: np.ndarray,
                     kept: np.ndarray | None = None) -> np.ndarray:
        """(n,) each hit's sum, in intent order, of its pairs' ``weight[key] * ((level_gain[level] / top[key]) *
        powers[c(r, i)])`` (times ``kept`` per pair, where given): the graded novelty gain, in one pass."""
        return graded_pair_sums(self.pair_level, self.pair_key, self.pair_prior, kept, level_gain, top, weight, powers,
                                self.pair_count, self.first_pair, lambda: self._passes)

    def coverage_at(self, cutoff: int) -> np.ndarray:
        """(T, I) hits relevant to each intent ranked at or above ``cutoff`` (kept per cutoff)."""
        if cutoff not in self._coverage:
            within = self.pair_position <= cutoff
            counts = np.bincount(self.pair_key[within], minlength=self.n_topics * self.n_columns)
            self._coverage[cutoff] = counts.reshape(self.n_topics, self.n_columns)
        return self._coverage[cutoff]


class RunContext:
    """One run, the judgments, and the topics to score (qrels indices, ascending).

    The judgments are of the kind the measures need (:meth:`Measure.check
    <divaleval.measures.Measure.check>`): what concerns intents (:attr:`hits`,
    :attr:`n_intents`, :attr:`weights`...) is there for intentwise qrels.
    """

    def __init__(self, qrels: JudgedDocuments, run: RankedRun, topics: np.ndarray,
                 settings: Settings | None = None, cutoffs: tuple = ()) -> None:
        self.qrels = qrels
        self.run = run
        self.topics = np.asarray(topics, dtype=np.int64)
        self.settings = settings or Settings()
        # The cutoffs the measures scored in this context ask for (None: the whole ranking): a gain list's
        # sums at all of them are made in one pass (:class:`~divaleval.measures.ncu.lists.GainList`).
        self.cutoffs = cutoffs
        self.cache: dict = {}
        self._hits_to: dict[int, Hits] = {}

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def n_intents(self) -> np.ndarray:
        """(T,) intents with at least one relevant document."""
        return self.qrels.n_intents[self.topics]

    @cached_property
    def rel_count(self) -> np.ndarray:
        """(T, I) relevant documents of each intent."""
        return self.qrels.rel_count[self.topics]

    @cached_property
    def weights(self) -> np.ndarray:
        """(T, I) intent weights P(i) (gathered once per run: every IA- measure reads them)."""
        return self.qrels.weights[self.topics]

    def slots(self, topic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row among the scored topics of each qrels topic index in ``topic``, whether it is scored)."""
        if not self.n_topics:
            return np.zeros(len(topic), dtype=np.int64), np.zeros(len(topic), dtype=bool)
        slot = np.minimum(np.searchsorted(self.topics, topic), self.n_topics - 1)
        return slot, self.topics[slot] == topic

    def per_document(self, row_values: np.ndarray) -> np.ndarray:
        """Each ranked document's value of its judged row (``row_values[row]``); 0 for an unjudged one."""
        return np.append(row_values, np.zeros(1, dtype=row_values.dtype))[self.run.row]  # row -1: the 0

    @cached_property
    def _topic_runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The run's runs of lines of one topic (a run is grouped by topic): (their slot, whether it is
        scored, their length)."""
        topic = self.run.topic
        starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]]) if len(topic) else topic[:0]
        slot, scored = self.slots(topic[starts])
        return slot, scored, np.diff(np.r_[starts, len(topic)])

    @cached_property
    def run_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`slots` of every ranked document of the run (looked up once per topic)."""
        slot, scored, lengths = self._topic_runs
        return np.repeat(slot, lengths), np.repeat(scored, lengths)

    @cached_property
    def ranking_lengths(self) -> np.ndarray:
        """(T,) documents ranked for each topic (after the depth cut), added up per run of lines rather
        than counted line by line."""
        slot, scored, lengths = self._topic_runs
        counts = np.zeros(self.n_topics, dtype=np.int64)
        np.add.at(counts, slot[scored], lengths[scored])
        return counts

    @cached_property
    def judged_lines(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ranked documents of the scored topics that have a row in the qrels, in rank order: (each
        one's row among the scored topics, its qrels row, its rank). Every measure that looks only at such
        documents (hits, gains, bpref, infAP, Judged@k) starts from these, gathered once per run, rather
        than from every line of the run (about twice as many in a pooled collection)."""
        slot, scored = self.run_slots
        lines = np.flatnonzero(scored & (self.run.row >= 0))
        return slot[lines], self.run.row[lines], self.run.position[lines]

    @cached_property
    def hits(self) -> Hits:
        slot, row, position = self.judged_lines
        hit = np.flatnonzero(self.qrels.row_relevant[row])
        return Hits(slot[hit], position[hit], row[hit], self.qrels, self.n_topics)

    def hits_to(self, depth: int) -> Hits:
        """The hits ranked at or above ``depth``, laid out as :attr:`hits` lays out all of them (each topic's
        first hits, in its first columns). What depends only on the hits above one (its c(r, i), its pairs'
        running sums) is the same there: a measure that reads only the first ranks computes it for far fewer
        hits (kept per depth)."""
        hits = self.hits
        if depth >= int(hits.hit_position.max(initial=0)):
            return hits
        if depth not in self._hits_to:
            kept = np.flatnonzero(hits.hit_position <= depth)
            self._hits_to[depth] = Hits(hits.slot[kept], hits.hit_position[kept], hits.row[kept], self.qrels,
                                        self.n_topics)
        return self._hits_to[depth]


def prefix_sum_at(cumulative: np.ndarray, position: np.ndarray, cutoff: int | None) -> np.ndarray:
    """Row-wise value of a cumulative sum after the last entry ranked <= cutoff.

    ``cumulative`` is ``np.cumsum(terms, axis=1)`` (sequential, hence exact and
    identical to a loop), (T, H) or (T, H, ...) for several sums at once;
    ``position`` is (T, H), each row's ranks distinct and ascending (padding last), so
    that only its first k entries can be ranked <= k. Rows with no entry within the
    cutoff give 0.
    """
    if cumulative.shape[1] == 0:
        return np.zeros(cumulative.shape[:1] + cumulative.shape[2:])
    if cutoff is None:
        count = (position <= PAST_END - 1).sum(axis=1)
    else:  # (entry j is ranked j + 1 or deeper)
        count = (position[:, :cutoff] <= cutoff).sum(axis=1)
    picked = cumulative[np.arange(cumulative.shape[0]), np.maximum(count - 1, 0)]
    return np.where((count > 0).reshape((-1,) + (1,) * (picked.ndim - 1)), picked, 0.0)
