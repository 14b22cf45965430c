"""``divaleval trec_eval``: a drop-in for trec_eval 10.0 (or 9.0.7 with ``--trec-eval-version 9``).

The same standard output byte for byte and the same exit status class (0 or
not) as trec_eval on ordinary qrels and results files, for its default
measures and the measures of ``-m all_trec``, with its options -q, -m (with
parameters: ``P.5,10``), -c, -n, -M, -J, -l, -N. One home for the tool's
quirks: its command line (options.py), how it reads (reading.py), its measures
as a table (measures.py, over the arrays of topic.py), what differs between
9.0 and 10.0 (versions.py), and its lines (writer.py).

How topics are taken: 9.0 evaluates the results' topics found in the qrels
(others ignored), in ``strcmp`` order; with -c the qrels topics without
results count too, scoring 0 (an empty ranking). 10.0 walks the qrels topics
in order and stops (exit 4, "result qid 'N' not found in qrels", after what
it printed for earlier topics) at one without results, unless -c. Summaries
are the mean over those topics (sums for counts; exp of the mean log, floored
at 0.00001, for gm_*), added in topic order as trec_eval adds them.

Speed: a run is evaluated as arrays, every topic at once (topic.py's batches:
topics as rows, ranks as columns), its documents' grades found by one search
(reading.py), and a topic's lines printed by one ``%`` of a template
(writer.py): no Python loop a document, a measure's value or a line. Many
runs in one call pay the start of the process (Python, numpy) and the
reading of the qrels once.

Refused, not ignored: the other qrels and results formats (-R, -T), -Z, -D,
-o, and measures of trec_eval this does not reproduce.
"""
from __future__ import annotations

import math
import sys
from typing import TextIO

import numpy as np

from ...errors import InputError
from ...io.source import read_input
from . import measures as table
from .options import USAGE, UsageError, parse
from .reading import read_qrels, read_results
from .topic import batches, build_batch
from .writer import labels, line, topic_lines, topic_template

MISSING_TOPIC_STATUS = 4


class TrecEvalError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run trec_eval's command line; return its exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        options = parse(argv)
        if options.help:
            out.write(USAGE)
            return 0
        selected = table.select(options.measures, options.version)
        qrels = read_qrels(read_input(options.qrels), options.version.comment_lines)
        for run in options.runs:
            evaluate_run(run, qrels, selected, options, out)
    except UsageError as exc:
        err.write(f"divaleval trec_eval: {exc}\n{USAGE}")
        return 2
    except ValueError as exc:
        err.write(f"divaleval trec_eval: {exc}\n")
        return 2
    except InputError as exc:
        err.write(f"divaleval: {exc}\n")
        return 2
    except TrecEvalError as exc:
        err.write(f"trec_eval: {exc}\n")
        return exc.status
    return 0


def _topics(qrels, run, options) -> list[tuple[bytes, bool]]:
    """The topics evaluated, in order, each with whether the run has results for it (a qrels topic
    without, which stops 10.0 unless -c, scores 0)."""
    if options.version.missing_topic_stops:
        return [(topic, topic in run.index) for topic in sorted(qrels)]
    topics = {topic for topic in run.topics if topic in qrels}
    if options.complete:
        topics |= set(qrels)
    return [(topic, topic in run.index) for topic in sorted(topics)]


def _stop(topics, qrels, options) -> tuple[int, TrecEvalError | None]:
    """How many topics are evaluated before one stops trec_eval (exit 4, after what it printed for
    the earlier ones), and the error it stops with (None: all of them)."""
    for k, (topic, present) in enumerate(topics):
        if not present and not options.complete:
            return k, TrecEvalError(f"result qid '{_text(topic)}' not found in qrels", MISSING_TOPIC_STATUS)
        if not (qrels[topic] >= 0).any():  # both versions stop here (exit 4), the reference outputs show
            return k, TrecEvalError(f"qrels topic '{_text(topic)}' has no judged document (only negative grades)",
                                    MISSING_TOPIC_STATUS)
    return len(topics), None


def _ranked_grades(topics, qrels, run, options) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The documents the topics rank, after -J and -M: each one's topic (its row), rank (0-based) and
    grade (NaN where unjudged), topic by topic in rank order."""
    row_of = np.full(len(run.topics), -1)
    qrels_topic = np.zeros(len(run.topics), dtype=np.int64)
    for row, (topic, present) in enumerate(topics):
        if present:
            row_of[run.index[topic]] = row
            qrels_topic[run.index[topic]] = qrels.index[topic]
    run_topic = np.repeat(np.arange(len(run.topics)), np.diff(run.bounds))
    if (row_of >= 0).all():  # (every topic of the run is evaluated: no copy)
        rows, docnos, hashes = row_of[run_topic], run.docnos, run.hashes
    else:
        kept = np.flatnonzero(row_of[run_topic] >= 0)
        run_topic = run_topic[kept]
        rows, docnos, hashes = row_of[run_topic], run.docnos[kept], run.hashes[kept]
    grades = qrels.grades_of(qrels_topic[run_topic], docnos, hashes)
    if options.judged_only:
        with np.errstate(invalid="ignore"):
            judged = grades >= 0
        rows, grades = rows[judged], grades[judged]
    firsts = np.flatnonzero(np.append(True, rows[1:] != rows[:-1]))  # (the rows ascend: topics in byte order)
    ranks = np.arange(len(rows)) - np.repeat(firsts, np.diff(np.append(firsts, len(rows))))
    if options.max_retrieved is not None:
        shown = ranks < max(options.max_retrieved, 0)
        rows, ranks, grades = rows[shown], ranks[shown], grades[shown]
    return rows, ranks, grades


def _values(topics, qrels, run, selected, options) -> dict[str, object]:
    """measure name -> its (topics, parameters) values (a list of lists for strings), every topic's."""
    rows, ranks, grades = _ranked_grades(topics, qrels, run, options)
    lengths = np.bincount(rows, minlength=len(topics))
    without_results = np.array([not present for _, present in topics], dtype=bool)
    values: dict[str, object] = {}
    batch_row = np.zeros(len(topics), dtype=np.int64)
    judged = qrels.judged(options.relevance_level)
    qrels_rows = np.array([qrels.index[topic] for topic, _ in topics], dtype=np.int64)
    for members in batches(lengths):
        batch_row[members] = np.arange(len(members))
        taken = np.isin(rows, members) if len(members) < len(topics) else slice(None)
        batch = build_batch(batch_row[rows[taken]], ranks[taken], grades[taken], lengths[members],
                            judged.take(qrels_rows[members]), options.relevance_level)
        computed: dict = {}  # (map and gm_map, bpref and gm_bpref differ only in their summaries)
        for measure, params in selected:
            key = (measure.compute, params)
            if key not in computed:
                computed[key] = measure.compute(batch, params, options.version)
            result = computed[key]
            if measure.kind == "str":
                column = values.setdefault(measure.name, [None] * len(topics))
                for row, value in zip(members.tolist(), result):
                    column[row] = value
                continue
            if measure.name not in values:
                values[measure.name] = np.zeros((len(topics), result.shape[1]), dtype=result.dtype)
            values[measure.name][members] = result
    if without_results.any():  # -c's topics without results: trec_eval adds zeros, never a 0/0
        for measure, _ in selected:
            if measure.kind == "float":
                column = values[measure.name]
                column[without_results] = np.nan_to_num(column[without_results], nan=0.0)
    return values


def evaluate_run(path: str, qrels, selected, options, out: TextIO) -> None:
    comments = options.version.comment_lines
    if path == "-" and not options.version.stdin_results:
        raise TrecEvalError("results from standard input ('-') need trec_eval 10.0's behaviour "
                            "(--trec-eval-version 10)", 1)
    source = read_input(path)
    run = read_results(source, comments)
    topics = _topics(qrels, run, options)
    if not topics and not options.complete:
        raise TrecEvalError("No queries with both results and relevance info", 7)
    evaluated, stop = _stop(topics, qrels, options)
    values = _values(topics[:evaluated], qrels, run, selected, options)
    if options.per_topic:
        _per_topic(topics[:evaluated], selected, values, out)
    if stop is not None:
        out.flush()
        raise stop
    if options.summary:
        _summary(run.name, len(topics), selected, values, out)


def _per_topic(topics, selected, values, out: TextIO) -> None:
    shown = [(measure, params) for measure, params in selected if measure.per_topic and values.get(measure.name)
             is not None and measure.name not in ("runid", "num_q")]
    columns = [(name, measure.kind) for measure, params in shown for name in labels(measure, params)]
    template = topic_template(columns)
    table = np.empty((len(topics), len(columns)), dtype=object)  # a topic's values, as Python objects, a row
    has_nan = np.zeros(len(topics), dtype=bool)
    at = 0
    for measure, _ in shown:
        column = values[measure.name]
        width = 1 if measure.kind == "str" else column.shape[1]
        table[:, at:at + width] = column if measure.kind == "str" else column.tolist()
        if measure.kind == "float":
            has_nan |= np.isnan(column).any(axis=1)
        at += width
    for (topic, present), row, nan in zip(topics, table.tolist(), has_nan.tolist()):
        if present:
            out.write(topic_lines(template, columns, _text(topic), row, nan))


def _text(topic: bytes) -> str:
    return topic.decode("utf-8", "surrogateescape")


def _summary(run_name: bytes, num_q: int, selected, values, out: TextIO) -> None:
    for measure, params in selected:
        if measure.name == "runid":
            out.write(line("runid", "all", run_name, "str"))
            continue
        if measure.name == "num_q":
            out.write(line("num_q", "all", num_q, "int"))
            continue
        if measure.summary == "none":
            continue
        for k, label in enumerate(labels(measure, params)):
            column = values[measure.name][:, k].tolist()
            out.write(line(label, "all", _aggregate(measure.summary, column, num_q), measure.kind))


def _aggregate(how: str, column: list, num_q: int):
    if how == "sum":
        return sum(column)
    total = 0.0
    for value in column:
        total += table.geometric_mean_term(value) if how == "gm" else value
    if not num_q:
        return 0.0
    return math.exp(total / num_q) if how == "gm" else total / num_q
