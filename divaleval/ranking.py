"""A run in array form: per topic, the ranked documents as judged rows.

The order rule is chosen by the caller:

* ``score``: score descending, ties by docno descending (trec_eval, ``ndeval
  -traditional``);
* ``rank``: the rank column ascending (ndeval's default); a repeated rank is an
  error;
* ``file``: the order of the lines (NTCIREVAL, the RBU and GAP scripts).

Positions are 1..n within each topic whatever the rank numbers were.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import InputError
from .ids import factorize_sorted, natural_key
from .io.runs import RunTable
from .topics import Qrels

ORDERS = ("score", "rank", "file")


@dataclass
class RankedRun:
    """One run ranked and matched against the qrels.

    The flat arrays hold every ranked document of the topics the qrels know,
    grouped by topic (ascending qrels index) and ranked within each topic.
    """

    name: str
    runid: str
    topic: np.ndarray       # qrels topic index of each ranked document
    position: np.ndarray    # 1-based rank position within its topic
    row: np.ndarray         # judged row in the qrels, -1 if unjudged
    topics: np.ndarray      # the distinct qrels topics of the run, ascending
    unknown_topics: list[str]  # run topics the qrels lack, in natural order

    def lengths(self) -> np.ndarray:
        """Ranking length of each topic in :attr:`topics`."""
        return np.diff(np.searchsorted(self.topic, np.append(self.topics, np.iinfo(np.int64).max)))


def rank_run(
    run: RunTable,
    qrels: Qrels,
    *,
    order: str = "score",
    depth: int | None = None,
    dedupe: bool = False,
    duplicates_after_depth: bool = False,
) -> RankedRun:
    """Order, de-duplicate and truncate ``run``, and look up its judgments.

    duplicates_after_depth: look for a repeated docno only among the first
        ``depth`` documents (ndeval's behaviour) rather than in the whole topic.
    """
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}")
    # Topics: qrels index, or an index past the qrels for topics they lack.
    known = qrels.topic_position(run.topic)
    unknown_ids = sorted(set(run.topic[known < 0].tolist()), key=natural_key)
    topic = known.astype(np.int64)
    if unknown_ids:
        extra = pd.Index(unknown_ids).get_indexer(run.topic[known < 0])
        topic[known < 0] = qrels.n_topics + extra

    ranked = _order(run, topic, order)
    topic_sorted = topic[ranked]

    def positions(sorted_topics: np.ndarray) -> np.ndarray:
        starts = np.searchsorted(sorted_topics, sorted_topics, side="left")
        return np.arange(len(sorted_topics), dtype=np.int64) - starts + 1

    if duplicates_after_depth and depth is not None:
        ranked = ranked[positions(topic_sorted) <= depth]
        topic_sorted = topic[ranked]
    ranked = _check_duplicates(run, topic, ranked, dedupe)
    topic_sorted = topic[ranked]
    position = positions(topic_sorted)
    if depth is not None:
        keep = position <= depth
        ranked, topic_sorted, position = ranked[keep], topic_sorted[keep], position[keep]

    in_qrels = topic_sorted < qrels.n_topics
    ranked, topic_sorted, position = ranked[in_qrels], topic_sorted[in_qrels], position[in_qrels]
    row = qrels.lookup_rows(topic_sorted, run.docno[ranked]) if len(ranked) else np.zeros(0, np.int64)
    return RankedRun(
        name=run.name,
        runid=run.runid,
        topic=topic_sorted,
        position=position,
        row=row.astype(np.int64),
        topics=np.unique(topic_sorted),
        unknown_topics=unknown_ids,
    )


def _order(run: RunTable, topic: np.ndarray, order: str) -> np.ndarray:
    """Line indices in evaluation order: by topic, then by the order rule."""
    if order == "file":
        return np.lexsort((run.line, topic))
    if order == "rank":
        ranked = np.lexsort((run.rank, topic))
        same = (topic[ranked][1:] == topic[ranked][:-1]) & (run.rank[ranked][1:] == run.rank[ranked][:-1])
        if same.any():
            j = int(np.argmax(same))
            first, second = sorted((int(ranked[j]), int(ranked[j + 1])))
            raise InputError(
                run.name, int(run.line[second]),
                f"rank {run.rank[second]} of topic {run.topic[second]} repeats line {run.line[first]} "
                f"(ranks must be distinct to order by rank; try --order score)",
            )
        return ranked
    # score descending; exact ties broken by docno descending. Docno order is
    # computed only among tied lines, which are usually few.
    ranked = np.lexsort((-run.score, topic))
    tied = (topic[ranked][1:] == topic[ranked][:-1]) & (run.score[ranked][1:] == run.score[ranked][:-1])
    if not tied.any():
        return ranked
    involved = np.zeros(len(ranked), dtype=bool)
    involved[:-1] |= tied
    involved[1:] |= tied
    lines = ranked[involved]
    docno_rank = np.zeros(len(topic), dtype=np.int64)
    docno_rank[lines], _ = factorize_sorted(run.docno[lines])
    return np.lexsort((-docno_rank, -run.score, topic))


def _check_duplicates(run: RunTable, topic: np.ndarray, ranked: np.ndarray, dedupe: bool) -> np.ndarray:
    """Reject (or, with ``dedupe``, drop) a docno repeated within a topic.

    The copy kept is the one ranked first.
    """
    docno_code, _ = pd.factorize(run.docno[ranked])
    key = topic[ranked] * (int(docno_code.max(initial=0)) + 1) + docno_code
    by_key = np.argsort(key, kind="stable")
    repeat = key[by_key][1:] == key[by_key][:-1]
    if not repeat.any():
        return ranked
    if not dedupe:
        j = int(np.argmax(repeat))
        first, second = sorted((int(ranked[by_key[j]]), int(ranked[by_key[j + 1]])))
        raise InputError(
            run.name, int(run.line[second]),
            f"document {run.docno[second]} of topic {run.topic[second]} repeats line {run.line[first]} "
            f"(use --dedupe to keep the first)",
        )
    drop = np.zeros(len(ranked), dtype=bool)
    drop[by_key[1:][repeat]] = True
    return ranked[~drop]
