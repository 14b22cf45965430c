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

from dataclasses import dataclass, field

import numpy as np

from .lazy import pyarrow as pa  # (imported on first use: see divaleval/lazy.py)
# Arrow's compute functions are called by name (arrow_call: see the note on imports in divaleval/arrays.py).

from .arrays import (PackedTexts, arrow_call, arrow_of, arrow_options, arrow_take, dense_text_ranks, dictionary_encoded,
                     first_tie, group_positions, numpy_of, sorted_distinct)
from .errors import InputError
from .ids import natural_key
from .io.runs import RunTable
from .model.judged import JudgedDocuments
from .model.text_keys import matched_keys

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
    unknown_lines: list[int] = field(default_factory=list)  # the run's lines of each of them (for warnings)


@dataclass
class MatchedRun:
    """A run's lines matched to the judgments, not yet ordered (what can be done while another run is scored)."""

    run: RunTable
    topic: np.ndarray          # int32: qrels index of each line's topic (past the qrels for topics they lack)
    unknown_topics: list[str]  # run topics the qrels lack, in natural order
    row: np.ndarray            # int32: each line's judged row in the qrels, -1 if unjudged
    repeat_topics: np.ndarray  # the topics (indices as ``topic``) that list some docno twice
    unknown_lines: list[int] = field(default_factory=list)  # the run's lines of each unknown topic


def match_run(run: RunTable, qrels: JudgedDocuments, judgments: bool = True) -> MatchedRun:
    """Each line's topic index and judged row, and the topics listing a docno twice, without a Python
    object per line: the run's (topic, docno) keys looked up in the qrels' table of judged pairs
    (:attr:`JudgedDocuments.judged_table`, built once), and repeats found among the keys.

    judgments: False leaves every docno unjudged (no lookup): enough to check a run's form.
    """
    labels = run.topic.labels
    label_topic = qrels.topic_position(labels).astype(np.int32)
    unknown = np.flatnonzero(label_topic < 0)
    unknown_ids = sorted((str(labels[j]) for j in unknown), key=natural_key)
    unknown_lines = []
    if len(unknown):
        after = {topic: qrels.n_topics + j for j, topic in enumerate(unknown_ids)}
        label_topic[unknown] = [after[str(labels[j])] for j in unknown]
        # Lines per label, counted once here for the warning (the lines themselves are dropped when ranked).
        per_label = np.bincount(run.topic.codes, minlength=len(labels))
        lines_of = {str(labels[j]): int(per_label[j]) for j in unknown}
        unknown_lines = [lines_of[topic] for topic in unknown_ids]
    topic = label_topic[run.topic.codes]
    row, repeated = matched_keys(qrels.judged_table if judgments else None, run.docno_texts, topic)
    return MatchedRun(run, topic, unknown_ids, row.astype(np.int32, copy=False),
                      sorted_distinct(topic[repeated]).astype(np.int32), unknown_lines)


def rank_run(run: RunTable, qrels: JudgedDocuments, **options) -> RankedRun:
    """Match ``run`` to the judgments and rank it (see :func:`rank_matched` for the options)."""
    return rank_matched(match_run(run, qrels), qrels, **options)


def rank_matched(
    matched: MatchedRun,
    qrels: JudgedDocuments,
    *,
    order: str = "score",
    depth: int | None = None,
    duplicates: str = "error",
    duplicates_within_depth: bool = False,
    advice: bool = True,
    lines_per_topic: int | None = None,
    score_floor: float | None = None,
    judged_only: bool = False,
) -> RankedRun:
    """Order, de-duplicate and truncate a matched run.

    duplicates: what a docno repeated within a topic does (:data:`DUPLICATE_RULES`).
    duplicates_within_depth: look for a repeated docno only among the first
        ``depth`` documents (ndeval's behaviour) rather than in the whole topic.
    advice: error messages suggest the native command's options (--order, --dedupe);
        a drop-in that has no such options turns this off.
    lines_per_topic, score_floor: read only the first lines of each topic (file
        order) and only lines scored above the floor, as some tools do.
    judged_only: a condensed list (trec_eval's -J): after the depth cut, documents
        the qrels do not judge for the topic (:attr:`JudgedDocuments.row_judged`) are removed
        and the others ranked 1, 2, ...; a topic left empty stays one of the run's.
    """
    if order not in ORDERS or duplicates not in DUPLICATE_RULES:
        raise ValueError(f"unknown order {order!r} or duplicate rule {duplicates!r}")
    if lines_per_topic is not None or score_floor is not None:
        matched = _lines_read(matched, lines_per_topic, score_floor)
    run, topic = matched.run, matched.topic
    ranked = _order(run, topic, order, advice)  # None: the lines' own order
    if duplicates_within_depth and depth is not None:
        ranked = _identity(ranked, len(topic))[group_positions(_taken(topic, ranked)) <= depth]
    if duplicates != "keep" and len(matched.repeat_topics):
        ranked = _check_duplicates(run, topic, _identity(ranked, len(topic)), matched.repeat_topics,
                                   duplicates == "first", advice)
    topic_sorted = _taken(topic, ranked)
    position = group_positions(topic_sorted)
    keep = topic_sorted < qrels.n_topics
    if depth is not None:
        keep &= position <= depth
    if not keep.all():
        ranked = _identity(ranked, len(topic))[keep]
        topic_sorted, position = topic_sorted[keep], position[keep]
    del keep
    row = _taken(matched.row, ranked)
    topics = topic_sorted[np.r_[True, topic_sorted[1:] != topic_sorted[:-1]]] if len(topic_sorted) \
        else np.zeros(0, dtype=np.int32)
    if judged_only:
        condensed = row >= 0
        condensed[condensed] = qrels.row_judged[row[condensed]]
        topic_sorted, row = topic_sorted[condensed], row[condensed]
        position = group_positions(topic_sorted)
    return RankedRun(
        name=run.name,
        runid=run.runid,
        topic=topic_sorted,
        position=position,
        row=row,
        topics=topics,
        unknown_topics=matched.unknown_topics,
        unknown_lines=matched.unknown_lines,
    )


def _lines_read(matched: MatchedRun, lines_per_topic: int | None, score_floor: float | None) -> MatchedRun:
    """The matched run with only the lines a tool reads: the first N of each topic, scores above a floor."""
    keep = np.ones(len(matched.topic), dtype=bool)
    if lines_per_topic is not None:
        by_topic = np.argsort(matched.topic, kind="stable")
        position = np.empty(len(keep), dtype=np.int64)
        position[by_topic] = group_positions(matched.topic[by_topic])
        keep &= position <= lines_per_topic
    if score_floor is not None:
        keep &= matched.run.score > score_floor
    rows = np.flatnonzero(keep)
    topic = matched.topic[rows]
    return MatchedRun(matched.run.take(rows), topic, matched.unknown_topics, matched.row[rows],
                      np.intersect1d(matched.repeat_topics, topic).astype(np.int32), matched.unknown_lines)


def _taken(values: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """``values[rows]``, or ``values`` itself for None (the identity: no copy of a large run's arrays)."""
    return values if rows is None else values[rows]


def _identity(ranked: np.ndarray | None, count: int) -> np.ndarray:
    return np.arange(count, dtype=np.int32 if count < 2 ** 31 else np.int64) if ranked is None else ranked


def docno_text(run: RunTable, line: int) -> str:
    return run.docno[line].as_py().decode("utf-8", "surrogateescape")


def _topic_of(run: RunTable, line: int) -> str:
    return str(run.topic.labels[run.topic.codes[line]])


def _order(run: RunTable, topic: np.ndarray, order: str, advice: bool = True) -> np.ndarray | None:
    """Line indices in evaluation order: by topic, then by the order rule; None when that is the
    lines' own order (no array of indices is made)."""
    # Runs usually list each topic's lines together and in order: the order is then the lines'
    # own, found without a sort or a copy of the keys.
    if order == "rank" and run.rank_out_of_range is not None:
        raise InputError(run.name, run.rank_out_of_range, "rank is out of range (it must fit in 64 bits) "
                         "to order by rank" + ("; try --order score" if advice else ""))
    index = np.int32 if len(topic) < 2 ** 31 else np.int64
    grouped = bool(np.all(topic[1:] >= topic[:-1]))
    if order == "file":
        return None if grouped else np.argsort(topic, kind="stable").astype(index)
    values = run.rank if order == "rank" else run.score
    same_topic = topic[1:] == topic[:-1]
    in_order = (values[1:] >= values[:-1]) if order == "rank" else (values[1:] <= values[:-1])
    if grouped and np.all(~same_topic | in_order):
        ranked = None
        tied = same_topic & (values[1:] == values[:-1])
    else:
        key = values if order == "rank" else -values
        ranked = np.lexsort((key, topic)).astype(index)
        ranked_key = key[ranked]
        del key
        tied = (topic[ranked][1:] == topic[ranked][:-1]) & (ranked_key[1:] == ranked_key[:-1])
    del same_topic, in_order
    if not tied.any():
        return ranked
    ranked = _identity(ranked, len(topic))
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
    docno_rank[lines] = _docno_ranks(run, lines)
    return np.lexsort((-docno_rank, -run.score, topic)).astype(index)


def _docno_ranks(run: RunTable, lines: np.ndarray) -> np.ndarray:
    """Dense ranks of these lines' docnos in byte order: by numpy (a run the compiled reader read never needs
    pyarrow here), or by Arrow's rank where the docnos are too long to lay out."""
    texts, rows, taken = run.docno_texts, lines, None
    if not isinstance(texts, PackedTexts):
        taken = arrow_take(texts, arrow_of(lines))
        texts, rows = PackedTexts.of_arrow(taken), np.arange(len(lines))
    ranks = None if texts is None else dense_text_ranks(texts, rows)
    if ranks is not None:
        return ranks
    taken = arrow_take(run.docno, arrow_of(lines)) if taken is None else taken
    return numpy_of(arrow_call("rank", taken, options=arrow_options("RankOptions", sort_keys="ascending",
                                                                    tiebreaker="dense")))


def _check_duplicates(run: RunTable, topic: np.ndarray, ranked: np.ndarray, repeat_topics: np.ndarray,
                      dedupe: bool, advice: bool = True) -> np.ndarray:
    """Reject (or, with ``dedupe``, drop) a docno repeated within a topic.

    Only the topics in ``repeat_topics`` can hold one. The copy kept is the
    one ranked first; an error names the first repeat in rank order.
    """
    ranked_topic = topic[ranked]
    drop = np.zeros(len(ranked), dtype=bool)
    for t in repeat_topics:
        where = np.flatnonzero(ranked_topic == t)
        if len(where) < 2:
            continue
        docnos = arrow_take(run.docno, arrow_of(ranked[where]))
        if isinstance(docnos, pa.ChunkedArray):
            docnos = docnos.combine_chunks()
        codes = numpy_of(dictionary_encoded(docnos).indices)
        seen = np.zeros(len(where), dtype=bool)
        first_of_code = np.full(int(codes.max()) + 1, -1, dtype=np.int64)
        for j, code in enumerate(codes.tolist()):  # a topic's few documents
            if first_of_code[code] < 0:
                first_of_code[code] = j
            else:
                seen[j] = True
        if not seen.any():
            continue  # the repeat lies beyond the depth (ndeval looks only within it)
        if not dedupe:
            j = int(np.argmax(seen))
            pair = tuple(sorted((int(ranked[where[first_of_code[codes[j]]]]), int(ranked[where[j]]))))
            line = pair[1]
            raise InputError.repeat(run.name, run.line, pair, f"document {docno_text(run, line)} of topic "
                                    f"{_topic_of(run, line)}", " (use --dedupe to keep the first)" if advice else "")
        drop[where[seen]] = True
    return ranked[~drop] if drop.any() else ranked
