"""Intentwise qrels in array form, built once and shared by every run.

The judged documents of each topic are the rows of a
:class:`~divaleval.model.judged.JudgedDocuments`; :class:`Qrels` adds, per
topic, a documents x intents matrix of levels for the intents that have at
least one relevant document (in natural intent order), the number of relevant
documents of each intent, and intent weights. Ad hoc qrels are intentwise qrels
with the one intent ``0``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

from typing import TYPE_CHECKING

import numpy as np

from ..arrays import PackedTexts, all_distinct, dense_rank, first_tie
from ..errors import InputError, WarningSink, as_written, describe_ids, emit_warning
from ..ids import natural_key, sort_labels
from ..io.frames import qrels_table
from ..io.qrels import QrelsTable
from .judged import JudgedDocuments, row_starts, sorted_docnos

if TYPE_CHECKING:
    import pandas as pd

    from ..io.iprob import IntentProbabilities  # (the model holds one; reading it is the API's)

IPROB_TOLERANCE = 1e-3
@dataclass(eq=False)
class Qrels(JudgedDocuments):
    """Intentwise judgments of every topic as arrays (see module docstring)."""

    levels: np.ndarray           # (rows, I) int16 level of row's document for intent column i
    intent_ids: list[list[str]]  # per topic, the intents of its columns
    rel_count: np.ndarray        # (T, I) relevant documents of each intent (0 for padding)
    weights: np.ndarray          # (T, I) intent weights P(i) (uniform unless an iprob file is given)
    iprob: IntentProbabilities | None = None
    navigational: np.ndarray | None = None  # (T, I) bool: intents typed nav by the iprob file (else inf)
    adhoc: bool = False              # every judgment is for intent "0" (an ad hoc qrels file)

    # -- in memory ---------------------------------------------------------
    @classmethod
    def from_arrays(cls, topic, intent, docno, level, name: str = "<memory>") -> "Qrels":
        """Qrels from one array per field (``intent`` None: ad hoc judgments, one intent per topic)."""
        return build_qrels(QrelsTable.from_arrays(topic, intent, docno, level, name))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "<memory>") -> "Qrels":
        """Qrels from a DataFrame with columns topic, intent (optional), docno and level.

        ir_measures' names (query_id, iteration, doc_id, relevance) and PyTerrier's (qid, docno,
        label) are read too (:mod:`divaleval.io.frames`).
        """
        return build_qrels(qrels_table(frame, name))

    # -- shape -------------------------------------------------------------
    @cached_property
    def n_intents(self) -> np.ndarray:
        """Intents with at least one relevant document, per topic."""
        return (self.rel_count > 0).sum(axis=1)

    @property
    def has_relevant(self) -> np.ndarray:
        return self.n_intents > 0

    @property
    def max_intents(self) -> int:
        return self.levels.shape[1]

    @cached_property
    def row_relevant(self) -> np.ndarray:
        return (self.levels >= 1).any(axis=1)

    @cached_property
    def row_judged(self) -> np.ndarray:
        """Rows judged in trec_eval's sense: some level >= 0 (a row only ever judged negative, TREC's -2,
        is "pooled but not judged" there); what a condensed list (``--judged-only``) and bpref keep."""
        columns = self.n_intents[self.row_topic]  # a topic's own columns; the others are padding
        own = np.arange(self.max_intents)[None, :] < columns[:, None]
        return (np.where(own, self.levels, -1).max(axis=1, initial=-1) >= 0) | (columns == 0)

    @cached_property
    def relevant_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pointer, intent, level): judged row r is relevant to intent columns
        ``intent[pointer[r]:pointer[r+1]]`` (ascending), at those levels."""
        row, intent = np.nonzero(self.levels >= 1)
        pointer = np.zeros(len(self.levels) + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=len(self.levels)), out=pointer[1:])
        return pointer, intent.astype(np.int64), self.levels[row, intent]

    # -- intent probabilities ----------------------------------------------
    def with_iprob(self, iprob: IntentProbabilities, warn: WarningSink = emit_warning) -> "Qrels":
        """These qrels with the probabilities of ``iprob`` as intent weights (this object is unchanged).

        Probabilities are used as given (NTCIREVAL's convention): a topic whose
        probabilities do not sum to 1 is named in a warning, not renormalised.
        """
        topic_of = {tid: t for t, tid in enumerate(self.topic_ids)}
        column_of = [{iid: c for c, iid in enumerate(ids)} for ids in self.intent_ids]
        weights = np.zeros_like(self.weights)
        sums: dict[str, float] = {}
        unknown_topics: set[str] = set()
        unknown_intents: list[str] = []
        given = np.zeros(weights.shape, dtype=bool)
        navigational = np.zeros(weights.shape, dtype=bool)
        for tid, iid, p, kind in zip(iprob.topic, iprob.intent, iprob.probability, iprob.kind):
            sums[tid] = sums.get(tid, 0.0) + float(p)
            t = topic_of.get(tid)
            if t is None:
                unknown_topics.add(tid)
                continue
            c = column_of[t].get(iid)
            if c is None:
                unknown_intents.append(f"{tid}/{iid}")
            else:
                weights[t, c] = p
                given[t, c] = True
                navigational[t, c] = kind == "nav"
        if unknown_topics:
            warn(f"{iprob.name}: topics not in the qrels are ignored: "
                 f"{describe_ids(sorted(unknown_topics, key=natural_key))}")
        if unknown_intents:  # a typo here would silently move weight away from a judged intent
            warn(f"{iprob.name}: intents the qrels do not have are ignored (topic/intent): "
                 f"{describe_ids(unknown_intents)}")
        unweighted = [f"{self.topic_ids[t]}/{self.intent_ids[t][c]}"
                      for t, c in zip(*np.nonzero((self.rel_count > 0) & ~given))
                      if self.topic_ids[t] in sums]
        if unweighted:
            warn(f"{iprob.name}: intents with relevant documents but no probability get weight 0 "
                 f"(topic/intent): {describe_ids(unweighted)}")
        off = [tid for tid in sorted(sums, key=natural_key)
               if tid in topic_of and abs(sums[tid] - 1.0) > IPROB_TOLERANCE]
        if off:
            warn(f"{iprob.name}: intent probabilities do not sum to 1 for topics "
                 f"{describe_ids(off)} (used as given)")
        missing = [tid for tid, t in topic_of.items()
                   if self.rel_count[t].any() and tid not in sums]
        if missing:
            warn(f"{iprob.name}: no probabilities for topics {describe_ids(missing)}; "
                 f"their intents get weight 0")
        return dataclasses.replace(self, docnos=self.docno_texts, weights=weights, iprob=iprob,
                                   navigational=navigational if navigational.any() else None)

    # -- a relevance threshold (--rel-min) ------------------------------------------
    def at_relevance_level(self, level: int) -> "Qrels":
        """These qrels as binary measures see them with the relevance threshold ``level``
        (trec_eval's -l): levels 1 .. level-1 become 0 (judged non-relevant), and intents left
        without a relevant document stop counting (uniform weights are recomputed over the others;
        given probabilities stay as given). Rows are unchanged, so a ranked run's rows still point
        at the right documents. Built once per level, kept in :attr:`cache`.
        """
        if level <= 1:
            return self
        key = ("relevance level", level)
        if key not in self.cache:
            levels = np.where((self.levels >= 1) & (self.levels < level), 0, self.levels).astype(self.levels.dtype)
            width = self.max_intents
            counts = np.bincount((self.row_topic[:, None] * width + np.arange(width)).ravel()[(levels >= 1).ravel()],
                                 minlength=self.n_topics * width).reshape(self.n_topics, width)
            kept = counts > 0
            column = np.cumsum(kept, axis=1) - 1           # each kept intent's column once the others go
            n_columns = max(int(kept.sum(axis=1).max(initial=0)), 1)
            compact = np.zeros((len(levels), n_columns), dtype=levels.dtype)
            rel_count = np.zeros((self.n_topics, n_columns), dtype=np.int64)
            weights = np.zeros((self.n_topics, n_columns))
            navigational = None if self.navigational is None else np.zeros((self.n_topics, n_columns), dtype=bool)
            for c in range(width):
                topics = np.flatnonzero(kept[:, c])
                rows = np.flatnonzero(kept[self.row_topic, c])
                compact[rows, column[self.row_topic[rows], c]] = levels[rows, c]
                rel_count[topics, column[topics, c]] = counts[topics, c]
                weights[topics, column[topics, c]] = self.weights[topics, c]
                if navigational is not None:
                    navigational[topics, column[topics, c]] = self.navigational[topics, c]
            if self.iprob is None:
                weights = np.where(rel_count > 0, 1.0 / np.maximum((rel_count > 0).sum(axis=1), 1)[:, None], 0.0)
            intent_ids = [[ids[c] for c in np.flatnonzero(kept[t, :len(ids)])] for t, ids in enumerate(self.intent_ids)]
            self.cache[key] = dataclasses.replace(self, docnos=self.docno_texts, levels=compact, rel_count=rel_count,
                                                  weights=weights, navigational=navigational, intent_ids=intent_ids)
        return self.cache[key]


def build_qrels(table: QrelsTable, *, duplicates: str = "error") -> Qrels:
    """Turn validated qrels lines into :class:`Qrels`.

    duplicates: "error" rejects a repeated (topic, intent, docno);
        "last" keeps the last line's level and counts every relevant line in
        the intent's number of relevant documents (ndeval's reading).
    """
    # Each label's code in natural order: lines are re-coded where needed only, not every line.
    topic_of, topic_ids = sort_labels(np.arange(len(table.topic.labels)), table.topic.labels, natural_key)
    intent_of, intent_names = sort_labels(np.arange(len(table.intent.labels)), table.intent.labels, natural_key)
    # Judged rows: one per (topic, docno), in (topic, docno) order. Many files list a document's judgments (one
    # per intent) on consecutive lines: the keys are then ranked once per stretch of lines sharing one.
    stretches = _stretches(table.topic.codes, table.docno.codes)
    topic_codes, docno_codes = ((table.topic.codes, table.docno.codes) if stretches is None else
                                (table.topic.codes[stretches[0]], table.docno.codes[stretches[0]]))
    doc, docnos = sorted_docnos(docno_codes, table.docno.labels)
    n_topics, n_docs, n_int = len(topic_ids), len(docnos), len(intent_names)
    row_key, row_of_key = dense_rank(topic_of[topic_codes].astype(np.int64) * n_docs + doc)
    del doc, topic_codes, docno_codes
    row_of_line = row_of_key.astype(np.int32 if len(row_key) < 2**31 else np.int64)
    if stretches is not None:
        row_of_line = np.repeat(row_of_line, stretches[1])

    # One cell per (row, intent); a repeated cell is an error or "last wins". (Whether any repeats does not
    # depend on the intents' order: the codes as read tell.)
    kept_lines = None
    cell = row_of_line.astype(np.int64) * n_int + table.intent.codes
    n_cells = len(row_key) * n_int
    if n_cells <= 4 * len(cell) + 1024:
        repeats = np.bincount(cell, minlength=n_cells).max(initial=0) > 1
    else:
        repeats = not all_distinct(cell)
    if repeats:
        intent = intent_of[table.intent.codes]
        cell = row_of_line.astype(np.int64) * n_int + intent
        order = np.argsort(cell, kind="stable")
        repeated = cell[order][1:] == cell[order][:-1]
        if duplicates == "error":
            pair = first_tie(order, repeated)
            line = pair[1]
            at = int(row_key[row_of_line[line]] % n_docs)
            docno = as_written(docnos.text(at) if isinstance(docnos, PackedTexts) else docnos[at].as_py())
            raise InputError.repeat(table.name, table.line, pair,
                                    f"judgment of document {docno} for intent {intent_names[intent[line]]} "
                                    f"of topic {topic_ids[topic_of[table.topic.codes[line]]]}")
        last_of_cell = np.ones(len(order), dtype=bool)
        last_of_cell[:-1] = ~repeated
        kept_lines = np.sort(order[last_of_cell])
        del intent
    del cell

    # Relevant lines per (topic, intent); intents without any are left out. Only lines with a non-zero
    # level count (as relevant) or fill the level matrix (0 is its default), so only they are re-coded.
    marked = np.flatnonzero(table.level != 0)
    marked_level = table.level[marked]
    pair_key = topic_of[table.topic.codes[marked]].astype(np.int64) * n_int + intent_of[table.intent.codes[marked]]
    if n_topics * n_int <= 1 << 24:  # (topic, intent) pairs as a small dense range
        pairs, pair_of_line = np.arange(n_topics * n_int), pair_key
    else:
        pairs, pair_of_line = dense_rank(pair_key)
    del pair_key
    rel_per_pair = np.bincount(pair_of_line[marked_level >= 1], minlength=len(pairs))  # (repeated lines too)
    if kept_lines is not None:  # the matrix holds the last of repeated lines only
        kept_line = np.zeros(len(table.level), dtype=bool)
        kept_line[kept_lines] = True
        kept_marked = kept_line[marked]
        marked, marked_level, pair_of_line = marked[kept_marked], marked_level[kept_marked], pair_of_line[kept_marked]
    kept = rel_per_pair > 0
    kept_pairs = pairs[kept]
    kept_topic = kept_pairs // n_int
    n_intents = np.bincount(kept_topic, minlength=n_topics).astype(np.int64)
    pair_start = np.searchsorted(kept_topic, np.arange(n_topics))
    # Column of a kept pair: its rank among the topic's kept intents (natural order).
    column_of_kept = np.arange(len(kept_pairs)) - pair_start[kept_topic]
    n_columns = max(int(n_intents.max()) if len(n_intents) else 0, 1)

    rel_count = np.zeros((n_topics, n_columns), dtype=np.int64)
    rel_count[kept_topic, column_of_kept] = rel_per_pair[kept].astype(np.int64)
    intent_ids: list[list[str]] = [[] for _ in topic_ids]
    for t, i in zip(kept_topic.tolist(), (kept_pairs % n_int).tolist()):
        intent_ids[t].append(intent_names[i])

    row_topic = row_key // n_docs
    row_start = row_starts(row_topic, n_topics)

    levels = np.zeros((len(row_key), n_columns), dtype=np.int16)
    kept_index = np.full(len(pairs), -1, dtype=np.int64)
    kept_index[kept] = np.arange(len(kept_pairs))
    line_kept = kept_index[pair_of_line]
    filled = line_kept >= 0
    levels[row_of_line[marked[filled]], column_of_kept[line_kept[filled]]] = marked_level[filled]

    weights = np.where(
        rel_count > 0, 1.0 / np.maximum(n_intents, 1)[:, None], 0.0
    )
    return Qrels(
        name=table.name,
        topic_ids=[str(t) for t in topic_ids],
        row_start=row_start,
        row_key=row_key.astype(np.int64),
        docnos=docnos,
        levels=levels,
        intent_ids=intent_ids,
        rel_count=rel_count,
        weights=weights,
        adhoc=list(intent_names) == ["0"],
    )


def _stretches(topic: np.ndarray, docno: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(first line, lines) of each stretch of consecutive lines with the same topic and docno codes; None where
    they hold fewer than two lines on average (ad hoc qrels, files sorted by intent): then lines are taken one
    by one."""
    changes = np.flatnonzero((topic[1:] != topic[:-1]) | (docno[1:] != docno[:-1])) + 1
    if 2 * (len(changes) + 1) > len(topic):
        return None
    starts = np.concatenate([np.zeros(1, dtype=np.int64), changes])
    return starts, np.diff(np.append(starts, len(topic)))
