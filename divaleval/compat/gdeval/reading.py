"""Reading qrels and runs as gdeval.pl reads them, and ordering a run as it sorts one.

Lines end at ``\\n``; every ``\\r`` is deleted wherever it is (not taken as a
separator: ``d1\\r2`` is the docno ``d12``); fields are split on runs of ASCII
white space (io/lines's splitter), a leading run ignored, and a byte order mark
is part of the first field. A topic field loses everything up to its last
``-`` and must then be ASCII digits; topics are strings (``051`` and ``51`` are
different topics: documents are judged under ``topic:docno``) that are
compared as numbers. Fields are checked and converted a column at a time:
short ones (topics, ranks, the usual scores) a byte position at a time for
every line at once, others by Arrow's regular expressions; only the rare
field Perl reads unlike Arrow (a score such as ``1e5x`` or ``inf``, a 19-digit
number) is read one by one. A run is sorted only as far as it needs: not at
all where it is written in gdeval.pl's order, docnos compared only where
topic and score tie.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
from numpy.lib.stride_tricks import sliding_window_view

# Arrow's functions are called by name (divaleval/arrays.py's arrow_call): pyarrow.compute is 35-45 ms to import.
from ...arrays import arrow_call, arrow_cast, arrow_of, arrow_options, arrow_take, dictionary_encoded, numpy_of
from ...errors import InputError
from ...io.lines import Dialect, Fields, binary_column, split_block
from ...io.source import read_input
from .options import MAX_GRADE, perl_number

DIALECT = Dialect(skip_bom=False)  # C's white space (Perl's, the \r being gone), a BOM kept
# What Arrow converts to the double Perl makes of it: plain decimals, exponents of at most four digits,
# integers Perl holds exactly in a double.
PLAIN_DECIMAL = r"^[+-]?(?:[0-9]{1,15}|[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?:\.[0-9]*)?[eE][+-]?[0-9]{1,4})$"
SMALL_INTEGER = r"^-?[0-9]{1,18}$"
_INTEGER = re.compile(rb"-?[0-9]+")
# Arrow and numpy meet through their buffers here (arrays.numpy_of, arrow_of, and the two helpers below):
# pyarrow's pa.array, pa.scalar and to_numpy import pandas on first use, 0.2 s of every call of a drop-in
# that has no use for it.


def _texts(text: bytes, n: int) -> pa.Array:
    """A binary array holding ``text`` n times."""
    offsets = np.arange(n + 1, dtype=np.int32) * len(text)
    return pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(text * n)])


def _matching(texts: pa.Array, pattern: str) -> pa.Array:
    """Whether each text matches the regular expression ``pattern`` (Arrow's match_substring_regex)."""
    return arrow_call("match_substring_regex", texts, options=arrow_options("MatchSubstringOptions", pattern))


def _joined(topics: pa.Array, docnos: pa.Array) -> pa.Array:
    """The "topic:docno" key of each line."""
    return arrow_call("binary_join_element_wise", topics, docnos, _texts(b":", len(topics)))


@dataclass
class Lines:
    """A file's lines split as gdeval.pl splits them, those with fewer than ``width`` fields noted."""

    name: str
    fields: Fields | None  # None: an empty file
    rows: np.ndarray       # lines (0-based) with ``width`` fields or more
    bad: np.ndarray        # per line: whether gdeval.pl refuses it (so far)
    first: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # each row's first field

    def bounds(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Where field j of each row lies in ``fields.data``."""
        return self.fields.starts[self.first + j], self.fields.ends[self.first + j]

    def column(self, j: int) -> pa.Array:
        return binary_column(self.fields.data, *self.bounds(j))

    def refuse(self, failing: np.ndarray) -> None:
        """Note the lines of ``rows`` that fail a check (a boolean per row)."""
        self.bad[self.rows[failing]] = True

    def check(self, message: str) -> None:
        if self.bad.any():
            raise InputError(self.name, int(np.argmax(self.bad)) + 1, message)

    def equal(self, j: int, text: bytes) -> np.ndarray:
        """Whether field j of each row is exactly ``text``."""
        starts, ends = self.bounds(j)
        same = ends - starts == len(text)
        for at, byte in enumerate(text):  # (a field is followed by a separator at least: in the data)
            same &= self.fields.data[np.minimum(starts + at, len(self.fields.data) - 1)] == byte
        return same


def _split(path: str, width: int) -> Lines:
    source = read_input(path)
    raw = source.data
    if not raw:
        return Lines(source.name, None, np.zeros(0, np.int64), np.zeros(0, bool))
    data = raw.replace(b"\r", b"") if b"\r" in raw else raw
    if not raw.endswith(b"\n"):  # a last line without its newline (if only "\r", a blank line to Perl)
        data += b"\n"
    fields = split_block(data, 1, DIALECT)
    rows = np.flatnonzero(fields.per_line >= width)
    return Lines(source.name, fields, rows, fields.per_line < width, fields.first_field[rows])


# Short fields (topics, ranks, scores: a few bytes) are checked a byte position at a time, every line at
# once; a column holding a longer field goes to Arrow's regular expressions.
SHORT = 24


def _short(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The fields' bytes, a row for each position (``SHORT`` at most), a column for each field, and whether
    the position lies inside the field; None where a field is longer (or there is none)."""
    lengths = ends - starts
    width = int(lengths.max()) if len(lengths) else 0
    if not 0 < width <= SHORT:
        return None
    windows = sliding_window_view(data, width)  # row i: the width bytes from i (a view)
    last = len(windows) - 1
    rows = windows[np.minimum(starts, last)]
    late = np.flatnonzero(starts > last)  # fields too near the end for a whole window: from a padded tail
    if len(late):
        tail = np.concatenate([data[last:], np.zeros(width, dtype=np.uint8)])
        rows[late] = sliding_window_view(tail, width)[starts[late] - last]
    return np.ascontiguousarray(rows.T), np.arange(width)[:, None] < lengths


def _digits(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Whether each field is one or more ASCII digits."""
    short = _short(data, starts, ends)
    if short is None:
        return numpy_of(_matching(binary_column(data, starts, ends), "^[0-9]+$"))
    matrix, inside = short
    return ((matrix - np.uint8(ord("0")) <= np.uint8(9)) | ~inside).all(axis=0)


def _topics(lines: Lines) -> pa.Array:
    """The topic field of each line in ``lines.rows`` after its last '-' (lines whose rest is not digits
    refused)."""
    data = lines.fields.data
    starts, ends = lines.bounds(0)
    short = _short(data, starts, ends)
    if short is not None:
        matrix, inside = short
        cut = np.zeros(len(starts), dtype=starts.dtype)  # bytes up to the last '-'
        for position, dash in enumerate((matrix == ord("-")) & inside):
            cut[dash] = position + 1
        starts = starts + cut
    else:  # a long field: the last '-' of the data before each field's end
        dashes = np.flatnonzero(data == ord("-"))
        if len(dashes):
            last = np.searchsorted(dashes, ends) - 1
            after = dashes[np.maximum(last, 0)] + 1
            starts = np.where((last >= 0) & (after > starts), after, starts)
    lines.refuse(~_digits(data, starts, ends) | (starts == ends))
    return binary_column(data, starts, ends)


def _numeric_order(topics: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Each topic's place among the numbers the topics are (equal numbers, equal places), and the topics
    as strings (all digits: lines checked)."""
    encoded = dictionary_encoded(topics)
    spelt = np.array([text.decode("ascii") for text in encoded.dictionary.to_pylist()], dtype=object)
    numbers = [int(text) for text in spelt]
    places = {number: place for place, number in enumerate(sorted(set(numbers)))}
    place = np.array([places[number] for number in numbers], dtype=np.int64)
    return place[numpy_of(encoded.indices)], spelt[numpy_of(encoded.indices)]


@dataclass
class Judgments:
    """The relevant documents of a qrels file, as gdeval.pl holds them.

    Only lines graded above 0 are kept, so a topic without a relevant document
    is not a topic at all (neither evaluated nor counted by ``-c``).
    """

    name: str
    topics: set[str] = field(default_factory=set)                    # topics with a relevant document
    keys: pa.Array = field(default_factory=lambda: pa.nulls(0, pa.binary()))  # distinct "topic:docno"
    grades: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # ... and their grades
    ideal_gains: dict[str, np.ndarray] = field(default_factory=dict)  # topic -> grades, best first

    def grades_of(self, keys: pa.Array) -> np.ndarray:
        """The grade of each "topic:docno" (0 where it has none)."""
        index = numpy_of(arrow_call("index_in", keys, options=arrow_options("SetLookupOptions", value_set=self.keys)),
                         null=-1)
        found = index >= 0
        grades = np.zeros(len(keys), dtype=np.int64)
        grades[found] = self.grades[index[found]]
        return grades


def read_qrels(path: str) -> Judgments:
    """``topic 0 docno grade`` lines: the second field a number equal to 0 (``Q0`` is 0 to Perl), the grade
    an integer of at most 4.

    A repeated (topic, docno) counts in the ideal list as often as it is
    repeated, and judges the run's document with its lowest grade (gdeval.pl
    stores the grades best first, the last one stored winning). Topics that
    are the same number written differently (``051``, ``51``) share one ideal
    list, kept under the spelling that sorts first.
    """
    lines = _split(path, 4)
    judgments = Judgments(lines.name)
    if lines.fields is None:
        return judgments
    topics = _topics(lines)
    zero = lines.column(1)
    odd = np.flatnonzero(~lines.equal(1, b"0"))
    lines.refuse(odd[[perl_number(zero[int(row)].as_py()) != 0 for row in odd]] if len(odd) else odd)
    texts = lines.column(3)
    small = numpy_of(_matching(texts, SMALL_INTEGER))
    grades = np.zeros(len(texts), dtype=np.int64)
    grades[small] = numpy_of(arrow_cast(arrow_cast(arrow_take(texts, arrow_of(np.flatnonzero(small))), pa.string()),
                                        pa.int64()))
    for row in np.flatnonzero(~small):  # other than -?[0-9]+ (refused), or long (zeros in front?)
        text = texts[int(row)].as_py()
        grades[row] = max(min(int(text), MAX_GRADE + 1), -1) if _INTEGER.fullmatch(text) else MAX_GRADE + 1
    lines.refuse(grades > MAX_GRADE)
    lines.check(f"format error in qrels file (expected: topic 0 docno grade, the grade an integer of at "
                f"most {MAX_GRADE})")
    relevant = np.flatnonzero(grades > 0)
    if not len(relevant):
        return judgments
    place, spelt = _numeric_order(arrow_take(topics, arrow_of(relevant)))
    grades = grades[relevant]
    keys = _joined(arrow_take(topics, arrow_of(relevant)), arrow_take(lines.column(2), arrow_of(relevant)))
    encoded = dictionary_encoded(keys)  # (not a table's group_by: it imports pyarrow.dataset, and pandas)
    judgments.keys, judgments.grades = encoded.dictionary, np.full(len(encoded.dictionary), MAX_GRADE, np.int64)
    np.minimum.at(judgments.grades, numpy_of(encoded.indices), grades)
    judgments.topics = set(spelt.tolist())
    order = np.lexsort((-grades, place))  # by topic, best grade first; stable
    place, grades, spelt = place[order], grades[order], spelt[order]
    starts = np.flatnonzero(np.r_[True, place[1:] != place[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], len(place)]):
        judgments.ideal_gains[spelt[lo]] = grades[lo:hi]
    return judgments


@dataclass
class Run:
    """A run as gdeval.pl holds it: its runid (that of its LAST line) and its topics in its order."""

    name: str
    runid: str
    topics: list[str]       # in order (ascending numbers), each the spelling of its first line in that order
    bounds: np.ndarray      # topic i is rows bounds[i]:bounds[i + 1] of ``keys``
    topic_texts: pa.Array   # each line's topic and docno, in file order ...
    docnos: pa.Array
    order: np.ndarray       # ... and the lines in gdeval.pl's order

    @property
    def keys(self) -> pa.Array:
        """"topic:docno" of each line, best first within its topic."""
        return self.keys_at(np.arange(len(self.order)))

    def keys_at(self, rows: np.ndarray) -> pa.Array:
        """"topic:docno" of the lines at ``rows`` of gdeval.pl's order (only those: a topic's first k)."""
        lines = arrow_of(self.order[rows])
        return _joined(arrow_take(self.topic_texts, lines), arrow_take(self.docnos, lines))


def read_run(path: str) -> Run:
    """``topic Q0 docno rank score runid`` lines, ordered as gdeval.pl sorts them.

    The rank must be digits but is otherwise ignored; ``Q0`` is literal; a
    runid of ``0`` is refused (false to Perl); fields after the sixth are
    ignored. Each topic is ordered by score, descending, ties by docno
    DESCENDING (byte order), then file order; repeated documents all count.
    Scores are read as Perl reads numbers (``1e3``, ``inf``; ``abc`` is 0).
    """
    lines = _split(path, 6)
    if lines.fields is None:
        nothing = pa.nulls(0, pa.binary())
        return Run(lines.name, "?????", [], np.zeros(1, np.int64), nothing, nothing, np.zeros(0, np.int64))
    topics = _topics(lines)
    lines.refuse(~lines.equal(1, b"Q0"))
    lines.refuse(~_digits(lines.fields.data, *lines.bounds(3)))
    lines.refuse(lines.equal(5, b"0"))
    lines.check("format error in run file (expected: topic Q0 docno rank score runid, the rank digits, "
                "the runid not 0)")
    scores = _scores(lines)
    docnos = lines.column(2)
    place, spelt = _numeric_order(topics)
    order = _order(place, scores, docnos)
    place = place[order]
    starts = np.flatnonzero(np.r_[True, place[1:] != place[:-1]])
    last = lines.first[-1] + 5
    runid = lines.fields.data[lines.fields.starts[last]:lines.fields.ends[last]].tobytes()
    runid = runid.decode("utf-8", "surrogateescape")
    return Run(lines.name, runid, spelt[order][starts].tolist(), np.r_[starts, len(order)], topics, docnos, order)


def _order(place: np.ndarray, scores: np.ndarray, docnos: pa.Array) -> np.ndarray:
    """The lines in gdeval.pl's order: by topic, score descending, docno descending (bytes), file order.

    Docnos are compared only where topic and score tie: usually few lines,
    and a run is often written in that order already (then nothing is sorted).
    """
    written = (place[1:] > place[:-1]) | ((place[1:] == place[:-1]) & (scores[1:] <= scores[:-1]))
    order = np.arange(len(place)) if written.all() else np.lexsort((-scores, place))  # stable: file order
    ordered_place, ordered_score = place[order], scores[order]
    tie = (ordered_place[1:] == ordered_place[:-1]) & (ordered_score[1:] == ordered_score[:-1])
    if not tie.any():
        return order
    tied = np.flatnonzero(np.r_[tie, False] | np.r_[False, tie])  # places in ``order`` of lines in a tie
    group = np.cumsum(np.r_[True, ~tie])[tied]
    rows = order[tied]
    descending = numpy_of(arrow_call("array_sort_indices", arrow_take(docnos, arrow_of(rows)),  # (stable)
                                     options=arrow_options("ArraySortOptions", order="descending")))
    rank = np.empty(len(rows), dtype=np.int64)
    rank[descending] = np.arange(len(rows))
    order[tied] = rows[np.lexsort((rank, group))]
    return order


def _decimals(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Whether each field is, at least, a decimal of :data:`PLAIN_DECIMAL` without an exponent (a sign,
    digits with at most one point; at most 15 digits without it): the usual score, checked a byte
    position at a time. False leaves it to the regular expression."""
    short = _short(data, starts, ends)
    if short is None:
        return np.zeros(len(starts), dtype=bool)
    matrix, inside = short
    digit = (matrix - np.uint8(ord("0")) <= np.uint8(9)) & inside
    point = (matrix == ord(".")) & inside
    signed = (matrix[0] == ord("-")) | (matrix[0] == ord("+"))
    allowed = (digit | point | ~inside).all(axis=0) | (signed & (digit[1:] | point[1:] | ~inside[1:]).all(axis=0))
    digits, points = digit.sum(axis=0), point.sum(axis=0)
    return allowed & (digits > 0) & ((points == 1) | ((points == 0) & (digits <= 15)))


def _scores(lines: Lines) -> np.ndarray:
    """The scores as Perl's numbers, as doubles, or as their places in order where some integer is beyond
    a double's precision (Perl compares such integers exactly)."""
    texts = lines.column(4)
    plain = _decimals(lines.fields.data, *lines.bounds(4))
    if not plain.all():
        rest = np.flatnonzero(~plain)
        plain[rest] = numpy_of(_matching(arrow_take(texts, arrow_of(rest)), PLAIN_DECIMAL))
    scores = np.zeros(len(texts))
    scores[plain] = numpy_of(arrow_cast(texts if plain.all() else arrow_take(texts, arrow_of(np.flatnonzero(plain))),
                                        pa.float64()))
    others = {int(row): perl_number(texts[int(row)].as_py()) for row in np.flatnonzero(~plain)}
    for row, value in others.items():
        if isinstance(value, float) and math.isnan(value):
            raise InputError(lines.name, int(lines.rows[row]) + 1,
                             f"score {texts[row].as_py().decode('utf-8', 'replace')!r} is NaN to Perl: gdeval.pl's "
                             "order then depends on its sort's internals (refused)")
        scores[row] = value
    if any(isinstance(value, int) and abs(value) > 2**53 for value in others.values()):
        exact = [others.get(row, scores[row]) for row in range(len(texts))]
        distinct = sorted(set(exact))
        places = {value: place for place, value in enumerate(distinct)}
        return np.array([places[value] for value in exact], dtype=np.float64)
    return scores + 0.0  # -0.0 is 0
