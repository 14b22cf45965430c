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
import pyarrow as pa
import pyarrow.compute as pc

from .arrays import all_distinct, first_tie, group_positions
from .errors import InputError
from .ids import natural_key
from .io.runs import RunTable
from .model.qrels import Qrels

ORDERS = ("score", "rank", "file")
# A docno repeated within a topic: an error, keep the first-ranked copy, or keep every copy.
DUPLICATE_RULES = ("error", "first", "keep")


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


@dataclass
class MatchedRun:
    """A run's lines matched to the judgments, not yet ordered (what can be done while another run is scored)."""

    run: RunTable
    docno_code: np.ndarray     # identity of each line's docno (codes below n_codes)
    judged_code: np.ndarray    # its position among the judged docnos, -1 if never judged
    n_codes: int


def match_run(run: RunTable, qrels: Qrels) -> MatchedRun:
    """Look up each line's docno among the judged ones: one Arrow hash pass, no Python object per line.

    A docno's code serves the duplicate check, and its judged code the lookup of judgments.
    """
    return MatchedRun(run, *qrels.match_docnos(run.docno))


def rank_run(run: RunTable, qrels: Qrels, **options) -> RankedRun:
    """Match ``run`` to the judgments and rank it (see :func:`rank_matched` for the options)."""
    return rank_matched(match_run(run, qrels), qrels, **options)


def rank_matched(
    matched: MatchedRun,
    qrels: Qrels,
    *,
    order: str = "score",
    depth: int | None = None,
    duplicates: str = "error",
    duplicates_within_depth: bool = False,
    advice: bool = True,
) -> RankedRun:
    """Order, de-duplicate and truncate a matched run.

    duplicates: what a docno repeated within a topic does (:data:`DUPLICATE_RULES`).
    duplicates_within_depth: look for a repeated docno only among the first
        ``depth`` documents (ndeval's behaviour) rather than in the whole topic.
    advice: error messages suggest the native command's options (--order, --dedupe);
        a drop-in that has no such options turns this off.
    """
    if order not in ORDERS or duplicates not in DUPLICATE_RULES:
        raise ValueError(f"unknown order {order!r} or duplicate rule {duplicates!r}")
    run = matched.run
    # Topics: qrels index, or an index past the qrels for topics they lack.
    labels = run.topic.labels
    label_topic = qrels.topic_position(labels).astype(np.int64)
    unknown = np.flatnonzero(label_topic < 0)
    unknown_ids = sorted((str(labels[j]) for j in unknown), key=natural_key)
    if len(unknown):
        after = {topic: qrels.n_topics + j for j, topic in enumerate(unknown_ids)}
        label_topic[unknown] = [after[str(labels[j])] for j in unknown]
    topic = label_topic[run.topic.codes]
    row = np.full(len(topic), -1, dtype=np.int64)
    judged = np.flatnonzero(matched.judged_code >= 0)
    row[judged] = qrels.rows_of(np.minimum(topic[judged], qrels.n_topics), matched.judged_code[judged])

    ranked = _order(run, topic, order, advice)
    if duplicates_within_depth and depth is not None:
        ranked = ranked[group_positions(topic[ranked]) <= depth]
    if duplicates != "keep":
        ranked = _check_duplicates(run, topic, matched.docno_code, matched.n_codes, ranked, duplicates == "first",
                                   advice)
    topic_sorted = topic[ranked]
    position = group_positions(topic_sorted)
    keep = topic_sorted < qrels.n_topics
    if depth is not None:
        keep &= position <= depth
    ranked, topic_sorted, position = ranked[keep], topic_sorted[keep], position[keep]
    return RankedRun(
        name=run.name,
        runid=run.runid,
        topic=topic_sorted,
        position=position,
        row=row[ranked],
        topics=topic_sorted[np.r_[True, topic_sorted[1:] != topic_sorted[:-1]]] if len(topic_sorted)
        else np.zeros(0, dtype=np.int64),
        unknown_topics=unknown_ids,
    )


def docno_text(run: RunTable, line: int) -> str:
    return run.docno[line].as_py().decode("utf-8", "surrogateescape")


def _topic_of(run: RunTable, line: int) -> str:
    return str(run.topic.labels[run.topic.codes[line]])


def _order(run: RunTable, topic: np.ndarray, order: str, advice: bool = True) -> np.ndarray:
    """Line indices in evaluation order: by topic, then by the order rule."""
    # Runs usually list each topic's lines together and in order: a stable
    # sort by topic is then close to linear, and often already the answer.
    by_topic = np.argsort(topic, kind="stable")
    if order == "file":
        return by_topic
    if order == "rank" and run.rank_out_of_range is not None:
        raise InputError(run.name, run.rank_out_of_range, "rank is out of range (it must fit in 64 bits) "
                         "to order by rank" + ("; try --order score" if advice else ""))
    key = run.rank if order == "rank" else -run.score
    grouped_topic, grouped_key = topic[by_topic], key[by_topic]
    same_topic = grouped_topic[1:] == grouped_topic[:-1]
    if np.all(~same_topic | (grouped_key[1:] >= grouped_key[:-1])):
        ranked = by_topic
    else:
        ranked = np.lexsort((key, topic))
    ranked_key = key[ranked]
    tied = (topic[ranked][1:] == topic[ranked][:-1]) & (ranked_key[1:] == ranked_key[:-1])
    if not tied.any():
        return ranked
    if order == "rank":
        pair = first_tie(ranked, tied)
        line = pair[1]
        raise InputError.repeat(run.name, run.line, pair, f"rank {run.rank[line]} of topic {_topic_of(run, line)}",
                                " (ranks must be distinct to order by rank; try --order score)" if advice else "")
    # Exact score ties are broken by docno descending; docno order is computed
    # only among the tied lines, which are usually few.
    involved = np.zeros(len(ranked), dtype=bool)
    involved[:-1] |= tied
    involved[1:] |= tied
    lines = ranked[involved]
    docno_rank = np.zeros(len(topic), dtype=np.int64)
    docno_rank[lines] = pc.rank(run.docno.take(pa.array(lines)), sort_keys="ascending", tiebreaker="dense").to_numpy()
    return np.lexsort((-docno_rank, key, topic))


def _check_duplicates(run: RunTable, topic: np.ndarray, code: np.ndarray, n_codes: int, ranked: np.ndarray,
                      dedupe: bool, advice: bool = True) -> np.ndarray:
    """Reject (or, with ``dedupe``, drop) a docno repeated within a topic.

    ``code`` identifies each line's docno (codes below ``n_codes``). The copy kept
    is the one ranked first.
    """
    code = code[ranked]
    lines_of_docno = np.bincount(code, minlength=n_codes)
    if lines_of_docno.max(initial=0) <= 1:  # no docno in two lines at all: the usual case
        return ranked
    key = topic[ranked] * n_codes + code
    if all_distinct(key[lines_of_docno[code] > 1]):  # docnos shared by topics, once per topic
        return ranked
    by_key = np.argsort(key, kind="stable")
    repeat = key[by_key][1:] == key[by_key][:-1]
    if not dedupe:
        pair = first_tie(ranked[by_key], repeat)
        line = pair[1]
        raise InputError.repeat(run.name, run.line, pair, f"document {docno_text(run, line)} of topic "
                                f"{_topic_of(run, line)}", " (use --dedupe to keep the first)" if advice else "")
    drop = np.zeros(len(ranked), dtype=bool)
    drop[by_key[1:][repeat]] = True
    return ranked[~drop]
