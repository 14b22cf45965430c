"""Qrels and results read as trec_eval reads them (facts of its behaviour, reimplemented).

* Fields are separated by runs of C ``isspace`` (io/lines.py's splitter); a qrels
  line has four (topic, iteration, docno, grade), a results line six (topic,
  iteration, docno, rank, score, run name); a line with another count is an
  error naming FILE:LINE. 10.0 skips lines starting with ``#``.
* Topic ids and docnos are strings: topics are taken in ``strcmp`` order
  (``"100"`` before ``"51"``), not as numbers.
* A grade is a whole number (negative ones allowed: judged, never relevant);
  the rank column is ignored: documents are ranked by score descending, ties
  by docno descending (trec_eval's sort), scores read as C's ``atof``.
* A qrels pair given twice keeps its last grade.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ...errors import InputError
from ...io.lines import C_DIALECT, split
from ...io.source import InputFile

DIALECT = replace(C_DIALECT, nul="a NUL byte")


@dataclass
class Ranking:
    """One topic's results, ranked as trec_eval ranks them."""

    docnos: list[bytes]


def _lines(source: InputFile, width: int, what: str, comments: bool):
    for fields in split(source, DIALECT):
        columns = None
        counts = fields.per_line
        keep = np.ones(fields.n_lines, dtype=bool)
        if comments and fields.n_lines:
            first_starts, _ = fields.bounds(np.flatnonzero(counts > 0), 0)
            hashed = fields.data[first_starts] == ord("#")
            keep[np.flatnonzero(counts > 0)[hashed]] = False
        bad = np.flatnonzero(keep & (counts != width))
        if len(bad):
            row = int(bad[0])
            raise InputError(source.name, fields.first_line + row,
                             f"malformed {what} line: {int(counts[row])} fields, expected {width}")
        rows = np.flatnonzero(keep)
        columns = [fields.column(rows, j).to_pylist() for j in range(width)]
        yield fields.first_line, rows, columns


def read_qrels(source: InputFile, comments: bool) -> dict[bytes, dict[bytes, int]]:
    """topic -> docno -> grade."""
    qrels: dict[bytes, dict[bytes, int]] = {}
    for first_line, rows, (topics, _, docnos, grades) in _lines(source, 4, "qrels", comments):
        for row, topic, docno, grade in zip(rows, topics, docnos, grades):
            match = C_INTEGER.match(grade)
            if not match:
                raise InputError(source.name, first_line + int(row),
                                 f"grade {grade.decode('utf-8', 'replace')!r} is not a whole number")
            qrels.setdefault(topic, {})[docno] = int(match.group())
    return qrels


C_INTEGER = re.compile(rb"[+-]?\d+")  # the prefix C's atol reads (a grade with none is refused here)
# The prefix C's atof reads (decimal forms, inf, nan; hex floats are not expected in runs).
C_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)


def _atof(text: bytes) -> float:
    """C's atof: the longest leading number (``2.5abc`` is 2.5), 0 where there is none."""
    match = C_NUMBER.match(text)
    return float(match.group()) if match else 0.0


def read_results(source: InputFile, comments: bool) -> tuple[bytes, dict[bytes, Ranking]]:
    """The run's name (its first line's) and topic -> ranking."""
    gathered: dict[bytes, tuple[list[bytes], list[float]]] = {}
    run_name = b""
    for _, _, (topics, _, docnos, _, scores, names) in _lines(source, 6, "results", comments):
        if not run_name and names:
            run_name = names[0]
        for topic, docno, score in zip(topics, docnos, scores):
            entry = gathered.setdefault(topic, ([], []))
            entry[0].append(docno)
            entry[1].append(_atof(score))
    rankings = {}
    for topic, (docnos, scores) in gathered.items():
        order = sorted(range(len(docnos)), key=lambda i: (scores[i], docnos[i]), reverse=True)
        rankings[topic] = Ranking([docnos[i] for i in order])
    return run_name, rankings
