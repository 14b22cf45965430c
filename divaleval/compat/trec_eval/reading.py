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

Speed: results are read as Arrow columns and ranked by one Arrow sort
(topic, score descending, docno descending: byte order, as Python compares
bytes), with no Python work a line. Scores of the plain decimal form
(:data:`PLAIN_DECIMAL`, what runs hold) are converted by Arrow's cast, which
rounds correctly, as ``float`` (and glibc's ``strtod``) does; any other score
(``2.5abc``, ``inf``, ``nan``, hex) goes through :func:`_atof`. A run with a
NaN score is ranked by the Python sort instead: NaN compares false with
everything, so where it lands depends on the sorting algorithm itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...arrays import numpy_of  # (not pyarrow's to_numpy, which imports pandas: 0.15 s a call)
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
        yield fields.first_line, rows, [fields.column(rows, j) for j in range(width)]


def read_qrels(source: InputFile, comments: bool) -> dict[bytes, dict[bytes, int]]:
    """topic -> docno -> grade."""
    qrels: dict[bytes, dict[bytes, int]] = {}
    for first_line, rows, columns in _lines(source, 4, "qrels", comments):
        topics, _, docnos, grades = (column.to_pylist() for column in columns)
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


# Scores Arrow's cast converts exactly as float() does (digits, one optional point, an exponent).
PLAIN_DECIMAL = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"


def scores_of(column: pa.Array) -> np.ndarray:
    """C's atof of each value of a binary column, as :func:`_atof` reads it: Arrow's cast where every
    value is a plain decimal, else :func:`_atof` a value."""
    if pc.all(pc.match_substring_regex(column, PLAIN_DECIMAL)).as_py():
        try:
            values = pc.cast(column.cast(pa.string()), pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # a form the cast refuses: _atof's
            pass
        else:
            return numpy_of(values)
    return np.array([_atof(text) for text in column.to_pylist()], dtype=np.float64)


def read_results(source: InputFile, comments: bool) -> tuple[bytes, dict[bytes, Ranking]]:
    """The run's name (its first line's) and topic -> ranking."""
    topics, docnos, scores = [], [], []
    run_name = b""
    for _, _, (topic, _, docno, _, score, names) in _lines(source, 6, "results", comments):
        if not run_name and len(names):
            run_name = names[0].as_py()
        topics.append(topic)
        docnos.append(docno)
        scores.append(scores_of(score))
    if not topics or not sum(map(len, topics)):
        return run_name, {}
    score = np.concatenate(scores)
    table = pa.table({"topic": pa.concat_arrays(topics), "docno": pa.concat_arrays(docnos),
                      "score": pa.Array.from_buffers(pa.float64(), len(score), [None, pa.py_buffer(score)])})
    if np.isnan(score).any():
        return run_name, _python_ranked(table)
    # Stable, like Python's sort: equal (score, docno) pairs are one docno, so their order is moot.
    order = pc.sort_indices(table, sort_keys=[("topic", "ascending"), ("score", "descending"),
                                              ("docno", "descending")])
    ranked = table.take(order)
    encoded = ranked["topic"].combine_chunks().dictionary_encode()
    codes = numpy_of(encoded.indices)
    names = encoded.dictionary.to_pylist()
    ranked_docnos = ranked["docno"].to_pylist()
    cuts = [0, *(np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist(), len(codes)]
    return run_name, {names[codes[a]]: Ranking(ranked_docnos[a:b]) for a, b in zip(cuts, cuts[1:])}


def _python_ranked(table: pa.Table) -> dict[bytes, Ranking]:
    """Python's sort of (score, docno), descending: where a NaN score lands is that sort's own."""
    gathered: dict[bytes, tuple[list[bytes], list[float]]] = {}
    for topic, docno, score in zip(table["topic"].to_pylist(), table["docno"].to_pylist(),
                                   table["score"].to_pylist()):
        entry = gathered.setdefault(topic, ([], []))
        entry[0].append(docno)
        entry[1].append(score)
    rankings = {}
    for topic, (docnos, scores) in gathered.items():
        order = sorted(range(len(docnos)), key=lambda i: (scores[i], docnos[i]), reverse=True)
        rankings[topic] = Ranking([docnos[i] for i in order])
    return rankings
