"""One topic's ranking against its judgments, as arrays every trec_eval measure reads.

Built once a topic (after -J and -M), so each measure is a few numpy
operations over the same arrays: the grade at each rank (NaN where
unjudged), which ranks are relevant (grade >= -l), the running count of
relevant documents, and the qrels' own counts (R, judged non-relevant N)
and grades (for the ideal orderings of the gain measures).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Topic:
    grades: np.ndarray     # grade of the document at each rank, NaN where not in the qrels
    judged: np.ndarray     # bool a rank: a grade of 0 or more (negative ones count as unjudged)
    relevant: np.ndarray   # bool a rank: judged and grade >= the relevance level
    cum_rel: np.ndarray    # relevant documents at or above each rank (int)
    num_rel: int           # R: relevant documents in the qrels
    num_nonrel: int        # judged documents below the relevance level in the qrels
    qrels_grades: np.ndarray  # every grade of the topic's qrels

    @property
    def num_ret(self) -> int:
        return len(self.grades)

    @property
    def num_rel_ret(self) -> int:
        return int(self.cum_rel[-1]) if len(self.cum_rel) else 0

    def rel_in_top(self, k: int) -> int:
        """Relevant documents in the first k ranks (k beyond the ranking: all of them)."""
        if k <= 0 or not len(self.cum_rel):
            return 0
        return int(self.cum_rel[min(k, len(self.cum_rel)) - 1])

    @property
    def precision_at_relevant(self) -> np.ndarray:
        """Precision at the rank of each relevant retrieved document, in rank order."""
        ranks = np.flatnonzero(self.relevant) + 1
        return self.cum_rel[ranks - 1] / ranks


def build_topic(docnos: list[bytes], judgments: dict[bytes, int], level: int, judged_only: bool,
                max_retrieved: int | None) -> Topic:
    grades = np.array([judgments.get(d, np.nan) for d in docnos], dtype=np.float64)
    if judged_only:
        with np.errstate(invalid="ignore"):
            grades = grades[grades >= 0]
    if max_retrieved is not None:
        grades = grades[:max(max_retrieved, 0)]
    with np.errstate(invalid="ignore"):
        judged = grades >= 0  # a negative grade is a document in the qrels but not judged
        relevant = judged & (grades >= level)
    qrels_grades = np.fromiter(judgments.values(), dtype=np.float64, count=len(judgments))
    num_rel = int((qrels_grades >= level).sum())
    num_nonrel = int(((qrels_grades >= 0) & (qrels_grades < level)).sum())
    return Topic(grades, judged, relevant, np.cumsum(relevant), num_rel, num_nonrel, qrels_grades)
