"""The topics of a run against their judgments, as the matrices every trec_eval measure reads.

Topics are rows, ranks are columns: a batch holds topics of similar length
(the ranks past a topic's end padded: no grade, never judged or relevant), so
that each measure is a few numpy operations for every topic at once, not a
Python loop a topic. The rows hold the grade at each rank (NaN where
unjudged), which ranks are judged (a grade of 0 or more) and relevant (grade
>= -l), the running count of relevant documents, and the qrels' own counts (R,
judged non-relevant N) and grades sorted best first (the ideal orderings of
the gain measures, padded with 0).

Sums that trec_eval adds in rank order are running sums along a row
(``np.cumsum(..., axis=1)``: one addition after another, as its loops add, so
the last bit matches before rounding to four decimals); the padding adds
zeros, which change no sum.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Batch:
    grades: np.ndarray     # (T, L) grade of the document at each rank, NaN where not in the qrels or past the end
    judged: np.ndarray     # (T, L) bool: a grade of 0 or more (negative ones count as unjudged)
    relevant: np.ndarray   # (T, L) bool: judged and grade >= the relevance level
    cum_rel: np.ndarray    # (T, L) relevant documents at or above each rank (int32)
    num_ret: np.ndarray    # (T,) documents ranked
    num_rel: np.ndarray    # (T,) R: relevant documents in the qrels
    num_nonrel: np.ndarray  # (T,) judged documents below the relevance level in the qrels
    ideal: np.ndarray      # (T, Q) the qrels' grades (negative ones as 0), best first, padded with 0
    top_grade: np.ndarray  # (T,) the qrels' highest grade (0 at least)
    memo: dict = field(default_factory=dict)  # what several measures read, made once

    def once(self, key, make):
        """``make()``, made once for the batch (the gains, the DCGs... that several measures read)."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    @property
    def width(self) -> int:
        return self.grades.shape[1]

    @property
    def valid(self) -> np.ndarray:
        """(T, L) bool: the ranks within each topic's ranking."""
        return np.arange(self.width) < self.num_ret[:, None]

    @property
    def ranks(self) -> np.ndarray:
        return np.arange(1, self.width + 1)

    @property
    def cum_judged(self) -> np.ndarray:
        """(T, L) judged documents at or above each rank."""
        return self.once("cum_judged", lambda: np.cumsum(self.judged, axis=1, dtype=np.int32))

    @property
    def num_rel_ret(self) -> np.ndarray:
        return self.once("num_rel_ret", lambda: at(self.cum_rel, self.num_ret).astype(np.int64))

    def rel_in_top(self, k) -> np.ndarray:
        """Relevant documents in the first k ranks of each topic (k beyond the ranking: all of them)."""
        return at(self.cum_rel, np.minimum(k, self.num_ret))

    @property
    def precision_at_relevant(self) -> np.ndarray:
        """Precision at the rank of each relevant retrieved document, 0 at the other ranks."""
        return self.once("prec", lambda: np.where(self.relevant, self.cum_rel / self.ranks, 0.0))

    def rank_of_relevant(self, counts: np.ndarray) -> np.ndarray:
        """The rank (1-based) of each topic's counts[t, j]-th relevant document (counts of (T, J), at
        least 1; past the last one: past the row), by one search over the rows laid end to end (each
        row's running count, offset by the row's number times more than its largest)."""
        rows, width = self.cum_rel.shape
        offsets = np.arange(rows, dtype=np.int64)[:, None] * (width + 1)
        flat = (self.cum_rel + offsets).ravel()
        return np.searchsorted(flat, counts + offsets) - np.arange(rows)[:, None] * width + 1


def at(matrix: np.ndarray, k) -> np.ndarray:
    """Each row's k-th value (1-based; k of each row or one for all, within the row), 0 where k <= 0."""
    width = matrix.shape[1]
    if isinstance(k, int):
        if k <= 0 or not width:
            return np.zeros(matrix.shape[0], dtype=matrix.dtype)
        return matrix[:, min(k, width) - 1]
    if not width:
        return np.zeros(matrix.shape[0], dtype=matrix.dtype)
    values = matrix[np.arange(matrix.shape[0]), np.minimum(np.maximum(k, 1), width) - 1]
    return np.where(k > 0, values, 0)


def row_sums(matrix: np.ndarray) -> np.ndarray:
    """Each row's sum, added in order (trec_eval's loops), not pairwise as ``sum`` adds."""
    if not matrix.shape[1]:
        return np.zeros(matrix.shape[0])
    return np.cumsum(matrix, axis=1)[:, -1]


def build_batch(rows: np.ndarray, ranks: np.ndarray, grades: np.ndarray, lengths: np.ndarray, judged,
                level: int) -> Batch:
    """A batch of topics from their ranked documents (each one's row, 0-based rank and grade, after -J and
    -M), each topic's length and what the measures read of its judgments (reading.Judged)."""
    matrix = np.full((len(lengths), int(lengths.max(initial=0))), np.nan)
    matrix[rows, ranks] = grades
    with np.errstate(invalid="ignore"):
        judged_ranks = matrix >= 0  # a negative grade is a document in the qrels but not judged
        relevant = judged_ranks & (matrix >= level)
    ideal = judged.ideal
    return Batch(matrix, judged_ranks, relevant, np.cumsum(relevant, axis=1, dtype=np.int32),
                 lengths.astype(np.int64), judged.num_rel, judged.num_nonrel, ideal,
                 ideal[:, 0] if ideal.shape[1] else np.zeros(len(lengths)))


def batches(lengths: np.ndarray) -> list[np.ndarray]:
    """The topics (indexes) of each batch: all in one where padding them to the longest costs little,
    else by the power of two of their length (a batch padded to at most twice its topics' lengths)."""
    total, longest = int(lengths.sum()), int(lengths.max(initial=0))
    if len(lengths) * longest <= 2 * total + 65536:
        return [np.arange(len(lengths))]
    classes = np.ceil(np.log2(np.maximum(lengths, 1))).astype(int)
    return [np.flatnonzero(classes == c) for c in np.unique(classes)]
