"""Preference judgments in array form: how often each document was shown and preferred.

The judgments of a collection become a :class:`PreferenceQrels`: judged
documents (:class:`~divaleval.model.judged.JudgedDocuments`) whose rows are the
documents the judgments name, topic by topic (so a run is matched to them as to
any qrels), and no intents. Its :attr:`PreferenceQrels.judgments` holds a
:class:`PreferenceJudgments`: per judged row, the counts that estimate

* U(d): times d was preferred / times d was one of the two compared documents,
  over the pairwise judgments of its topic; a topic that has none (a file of
  triplets only) takes them from its triplets, the given document ignored;
* U(d | g): the same over the triplets whose given document is g.

Counts add up over assessors; a ``-2`` or ``-3`` judgment (neither preferred)
counts as an appearance of both documents without a preference. An estimate
may be smoothed, preferred / (shown + s) (:meth:`unconditional`,
:meth:`conditional`); with s = 0 an estimate with nothing shown is undefined
(NaN), and the measure decides what stands for it.

Where a reference tool reads, estimates or scores preferences otherwise than
the paper (Chandar & Carterette 2013), its :class:`PreferenceRules` say how; an
evaluation's conventions carry them (:attr:`Conventions.preference_rules
<divaleval.model.conventions.Conventions.preference_rules>`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import dense_rank
from ..errors import InputError
from ..ids import natural_key, sort_labels
from ..io.preferences import PREFER_A, PREFER_B, PreferenceTable
from .judged import JudgedDocuments, row_starts, sorted_docnos
from .preference_rules import PAPER_RULES, PREFERENCE_IDEALS, PreferenceRules  # noqa: F401  (their home before)

# (PreferenceRules lives apart: every evaluation's conventions hold it, and most load nothing else of here)


@dataclass(eq=False)
class PreferenceJudgments:
    """Counts per judged row of the preference qrels (see the module docstring).

    Conditional counts are kept sparse: one entry per (given row, document row)
    pair that was judged, keyed ``given * n_rows + document``, keys ascending.
    """

    n_rows: int
    wins: np.ndarray          # (rows,) preferences counted for U(d)
    shown: np.ndarray         # (rows,) appearances counted for U(d)
    compared: np.ndarray      # (rows,) bool: the document is docA or docB of some judgment
    given_seen: np.ndarray    # (rows,) bool: the document is the given one of some triplet
    cond_key: np.ndarray      # (P,) int64, ascending
    cond_wins: np.ndarray     # (P,)
    cond_shown: np.ndarray    # (P,)
    has_pairwise: np.ndarray  # (T,) bool: the topic has pairwise judgments
    cache: dict = field(default_factory=dict, init=False, repr=False)

    def unconditional(self, smoothing: float = 0.0) -> np.ndarray:
        """(rows,) U(d) = wins / (shown + smoothing); 0 for a document never compared."""
        key = ("unconditional", smoothing)
        if key not in self.cache:
            denominator = self.shown + smoothing
            self.cache[key] = np.divide(self.wins, denominator, out=np.zeros(self.n_rows), where=denominator > 0)
        return self.cache[key]

    def judged_utilities(self, smoothing: float = 0.0) -> np.ndarray:
        """(P,) U(d | g) of every judged (given, document) pair."""
        key = ("pairs", smoothing)
        if key not in self.cache:
            self.cache[key] = self.cond_wins / (self.cond_shown + smoothing)
        return self.cache[key]

    def conditional(self, given: np.ndarray, document: np.ndarray, smoothing: float = 0.0) -> np.ndarray:
        """U(document | given) for arrays of rows (-1: not a judged document), any shape.

        A pair never judged is undefined (NaN) without smoothing, and 0 with it
        (nothing preferred out of nothing shown, plus s).
        """
        given, document = np.broadcast_arrays(np.asarray(given, dtype=np.int64), np.asarray(document, dtype=np.int64))
        key = given * self.n_rows + document
        missing = 0.0 if smoothing > 0 else np.nan
        out = np.full(key.shape, missing)
        if not len(self.cond_key):
            return out
        where = np.minimum(np.searchsorted(self.cond_key, key), len(self.cond_key) - 1)
        found = (self.cond_key[where] == key) & (given >= 0) & (document >= 0)
        out[found] = self.judged_utilities(smoothing)[where[found]]
        return out


@dataclass(eq=False)
class PreferenceQrels(JudgedDocuments):
    """Preference judgments of every topic: the documents they name, and their counts (module docstring)."""

    judgments: PreferenceJudgments
    n_preferred: np.ndarray  # (T,) documents preferred at least once: a topic without any scores 0

    @property
    def has_relevant(self) -> np.ndarray:
        return self.n_preferred > 0


def build_preference_qrels(table: PreferenceTable) -> PreferenceQrels:
    """:class:`PreferenceQrels` whose judged rows are the documents the judgments name."""
    import pandas as pd  # preference judgments only

    if not len(table):
        raise InputError(table.name, None, "preference file holds no judgments")
    topic, topic_ids = sort_labels(*pd.factorize(table.topic), natural_key)
    triplet = table.given != ""
    n = len(table)
    # Every document a judgment names: docA, docB, and the given document of triplets.
    names = np.concatenate([table.doc_a, table.doc_b, table.given[triplet]])
    doc, docnos = sorted_docnos(*pd.factorize(names))
    n_docnos = len(docnos)
    owner = np.concatenate([topic, topic, topic[triplet]]).astype(np.int64)
    row_key, row_of = dense_rank(owner * n_docnos + doc)
    n_rows, n_topics = len(row_key), len(topic_ids)
    row_a, row_b = row_of[:n], row_of[n:2 * n]
    row_given = np.full(n, -1, dtype=np.int64)
    row_given[triplet] = row_of[2 * n:]
    win_a = table.outcome == PREFER_A
    win_b = table.outcome == PREFER_B

    def tally(rows_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        shown = np.bincount(row_a[rows_mask], minlength=n_rows) + np.bincount(row_b[rows_mask], minlength=n_rows)
        wins = (np.bincount(row_a[rows_mask & win_a], minlength=n_rows)
                + np.bincount(row_b[rows_mask & win_b], minlength=n_rows))
        return wins.astype(np.float64), shown.astype(np.float64)

    has_pairwise = np.bincount(topic[~triplet], minlength=n_topics) > 0
    pair_wins, pair_shown = tally(~triplet)
    triplet_wins, triplet_shown = tally(triplet)
    row_topic = (row_key // n_docnos).astype(np.int64)
    from_pairs = has_pairwise[row_topic]
    wins = np.where(from_pairs, pair_wins, triplet_wins)
    shown = np.where(from_pairs, pair_shown, triplet_shown)

    # Conditional counts: (given, document) pairs of the triplets.
    cond_given = np.concatenate([row_given[triplet], row_given[triplet]])
    cond_doc = np.concatenate([row_a[triplet], row_b[triplet]])
    cond_win = np.concatenate([win_a[triplet], win_b[triplet]])
    keys, key_of = dense_rank(cond_given * n_rows + cond_doc) if len(cond_doc) else (
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    cond_shown = np.bincount(key_of, minlength=len(keys)).astype(np.float64)
    cond_wins = np.bincount(key_of[cond_win], minlength=len(keys)).astype(np.float64)

    compared = np.zeros(n_rows, dtype=bool)
    compared[row_a] = True
    compared[row_b] = True
    given_seen = np.zeros(n_rows, dtype=bool)
    given_seen[row_given[triplet]] = True

    ever_preferred = np.zeros(n_rows, dtype=bool)
    ever_preferred[row_a[win_a]] = True
    ever_preferred[row_b[win_b]] = True
    judgments = PreferenceJudgments(
        n_rows=n_rows, wins=wins, shown=shown, compared=compared, given_seen=given_seen,
        cond_key=np.asarray(keys, dtype=np.int64), cond_wins=cond_wins, cond_shown=cond_shown,
        has_pairwise=has_pairwise,
    )
    return PreferenceQrels(
        name=table.name,
        topic_ids=[str(t) for t in topic_ids],
        row_start=row_starts(row_topic, n_topics),
        row_key=np.asarray(row_key, dtype=np.int64),
        docnos=docnos,
        judgments=judgments,
        n_preferred=np.bincount(row_topic[ever_preferred], minlength=n_topics).astype(np.int64),
    )
