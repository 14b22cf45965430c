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

Refused, not ignored: the other qrels and results formats (-R, -T), -Z, -D,
-o, and measures of trec_eval this does not reproduce.
"""
from __future__ import annotations

import math
import sys
from typing import TextIO

from ...errors import InputError
from ...io.source import read_input
from . import measures as table
from .options import USAGE, UsageError, parse
from .reading import read_qrels, read_results
from .topic import build_topic
from .writer import line, labels

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


def _topics(qrels, rankings, options) -> list[tuple[bytes, list[bytes] | None]]:
    """The topics evaluated, in order, each with its ranked docnos (None: a qrels topic without
    results, which stops 10.0 unless -c)."""
    if options.version.missing_topic_stops:
        return [(topic, rankings[topic].docnos if topic in rankings else None) for topic in sorted(qrels)]
    topics = {topic for topic in rankings if topic in qrels}
    if options.complete:
        topics |= set(qrels)
    return [(topic, rankings[topic].docnos if topic in rankings else None) for topic in sorted(topics)]


def evaluate_run(path: str, qrels, selected, options, out: TextIO) -> None:
    comments = options.version.comment_lines
    if path == "-" and not options.version.stdin_results:
        raise TrecEvalError("results from standard input ('-') need trec_eval 10.0's behaviour "
                            "(--trec-eval-version 10)", 1)
    source = read_input(path)
    run_name, rankings = read_results(source, comments)
    topics = _topics(qrels, rankings, options)
    if not topics and not options.complete:
        raise TrecEvalError("No queries with both results and relevance info", 7)
    values: dict[str, list] = {m.name: [] for m, _ in selected}
    for topic, docnos in topics:
        if docnos is None and not options.complete:
            out.flush()
            raise TrecEvalError(f"result qid '{_text(topic)}' not found in qrels",
                                MISSING_TOPIC_STATUS)
        if not any(grade >= 0 for grade in qrels[topic].values()):
            out.flush()  # both versions stop here (exit 4), the reference outputs show
            raise TrecEvalError(f"qrels topic '{_text(topic)}' has no judged document (only negative grades)",
                                MISSING_TOPIC_STATUS)
        state = build_topic(docnos or [], qrels[topic], options.relevance_level, options.judged_only,
                            options.max_retrieved)
        name = _text(topic)
        for measure, params in selected:
            result = measure.compute(state, params, options.version)
            if docnos is None:  # -c's topic without results: trec_eval adds zeros, never a 0/0
                result = [0.0 if value != value else value for value in result]
            values[measure.name].append(result)
            if options.per_topic and measure.per_topic and docnos is not None:
                for label, value in zip(labels(measure, params), result):
                    out.write(line(label, name, value, measure.kind))
    if options.summary:
        _summary(run_name, len(topics), selected, values, out)


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
            column = [result[k] for result in values[measure.name]]
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
