"""Reading qrels and runs as ndeval's C reads them, over io/lines's splitter (ndeval's dialect: C
``isspace``, a NUL byte refused), its quirks kept: natural numbers only, a run topic's prefix, the
score read only with ``-traditional`` as ``sscanf("%lf")`` reads it."""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Iterator

import numpy as np
import pyarrow as pa

from ...arrays import arrow_call, arrow_cast, arrow_options, dictionary_encoded, numpy_of
from ...errors import InputError, WarningSink
from ...io.lines import C_DIALECT, Fields, binary_column, split
from ...io.qrels import QrelsTable
from ...io.source import InputFile, read_input
from ...io.table import Factor
from ...memory import release_unused_memory
from .options import DIGITS, scan_double

NUMBER_LIMIT = 100_000  # ndeval refuses a number once the digits read so far exceed this
NATURAL_DIGITS = 24    # natural numbers longer than this (zeros in front) are read one by one
# Scores Arrow converts exactly as strtod does: plain decimals, exponents of at most four digits.
PLAIN_DECIMAL = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?$"


def setting(name: str):
    """One of the package's sizes (``BLOCK_BYTES``, ``GROUP_LINES``), as it is now."""
    return getattr(sys.modules[__package__], name)


@dataclass
class LeadingFields:
    """The first ``width`` fields of a block's lines, up to its first line with fewer.

    ``failure`` is that line's number and problem (the lines read are those
    before it); field j of line i is ``data[starts:ends]`` of ``field(j)``.
    """

    fields: Fields
    rows: int                              # lines read
    failure: tuple[int, str] | None = None

    @property
    def data(self) -> np.ndarray:
        return self.fields.data

    @property
    def first_line(self) -> int:
        return self.fields.first_line

    def __len__(self) -> int:
        return self.rows

    @cached_property
    def _rows(self) -> np.ndarray | None:
        return None if self.rows == self.fields.n_lines else np.arange(self.rows)

    def field(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        return self.fields.bounds(self._rows, j)

    def text(self, row: int, j: int) -> bytes:
        return self.fields.text(row, j)


def ndeval_lines(source: InputFile, width: int, what: str, layout: str) -> Iterator[LeadingFields]:
    """The lines of ``source`` as ndeval splits them, a block at a time: on runs of C ``isspace``, the
    first ``width`` fields of each (later ones ignored), a line with fewer (a blank one too) an error."""
    dialect = replace(C_DIALECT, nul=f"syntax error in {what} file: a NUL byte")  # C strings end there
    for fields in split(source, dialect, setting("BLOCK_BYTES")):
        short = np.flatnonzero(fields.per_line < width)
        rows, failure = fields.n_lines, None
        if len(short):
            rows = int(short[0])
            found = int(fields.per_line[rows])
            failure = (fields.first_line + rows, "blank line" if not found else
                       f"{found} field{'s' if found > 1 else ''}, expected {width} ({layout})")
        yield LeadingFields(fields, rows, failure)


def natural_numbers(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """ndeval's naturalNumber() of each field ``data[start:end]``: its value, or -1.

    ASCII digits only, and refused once the digits read so far exceed 100000
    (so 1000009 is the largest value, with any number of zeros in front).
    """
    length = ends - starts
    value = np.zeros(len(starts), dtype=np.int64)
    ok = length > 0
    last = len(data) - 1
    for position in range(min(int(length.max(initial=0)), NATURAL_DIGITS)):
        more = length > position
        digit = data[np.minimum(starts + position, last)].astype(np.int64) - ord("0")
        ok &= ~more | ((digit >= 0) & (digit <= 9) & (value <= NUMBER_LIMIT))
        value = np.where(more & ok, value * 10 + digit, value)
    value[~ok] = -1
    for row in np.flatnonzero(ok & (length > NATURAL_DIGITS)):
        value[row] = natural_number(data[starts[row]:ends[row]].tobytes())
    return value


def natural_number(text: bytes) -> int:
    """naturalNumber() of one field."""
    value = 0
    if not text:
        return -1
    for char in text:
        if char not in DIGITS or value > NUMBER_LIMIT:
            return -1
        value = 10 * value + char - ord("0")
    return value


def run_topics(block: LeadingFields) -> np.ndarray:
    """ndeval's parseTopic() of each line: a number, or the number after a prefix ending in '-'.

    A topic with neither a leading digit nor a '-' makes ndeval read past the
    end of the field: the number is then the next field if a single separator
    lies between them, and an error otherwise.
    """
    data = block.data
    starts, ends = block.field(0)
    lead = data[starts]
    numbers = np.full(len(block), -1, dtype=np.int64)
    plain = (lead >= ord("0")) & (lead <= ord("9"))
    numbers[plain] = natural_numbers(data, starts[plain], ends[plain])
    others = np.flatnonzero(~plain)
    if not len(others):
        return numbers
    dashes = np.flatnonzero(data == ord("-"))
    after = np.searchsorted(dashes, starts[others])
    dash = dashes[np.minimum(after, len(dashes) - 1)] if len(dashes) else np.zeros(len(others), dtype=np.int64)
    prefixed = (after < len(dashes)) & (dash < ends[others])
    rows = others[prefixed]
    numbers[rows] = natural_numbers(data, dash[prefixed] + 1, ends[rows])
    rows = others[~prefixed]
    next_starts, next_ends = block.field(1)
    rows = rows[next_starts[rows] == ends[rows] + 1]
    numbers[rows] = natural_numbers(data, next_starts[rows], next_ends[rows])
    return numbers


def scan_scores(texts: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(value, whether sscanf("%lf") could read it) of each score.

    Plain decimals are converted by Arrow (correctly rounded, as strtod); the
    rest one by one as glibc's scanner reads them.
    """
    values = np.zeros(len(texts))
    readable = np.ones(len(texts), dtype=bool)
    # (Arrow's functions by name, as divaleval/arrays.py calls them: pyarrow.compute is 35-45 ms to import)
    plain = arrow_call("match_substring_regex", texts, options=arrow_options("MatchSubstringOptions", PLAIN_DECIMAL))
    mask = numpy_of(plain)
    if mask.any():
        values[mask] = numpy_of(arrow_cast(arrow_cast(arrow_call("filter", texts, plain), pa.string()), pa.float64()))
    for row in np.flatnonzero(~mask):
        value = scan_double(texts[int(row)].as_py())
        if value is None:
            readable[row] = False
        else:
            values[row] = value
    return values, readable


def _shown(text: bytes) -> str:
    return repr(text.decode("utf-8", "backslashreplace"))


def _first_bad_line(source: InputFile, block: LeadingFields, what: str, checks: list) -> None:
    """Raise for the first line of ``block`` that fails a check (or has too few fields).

    checks: (values, field index, name, rule) with values -1 where the field fails.
    """
    bad = [(int(np.argmax(values < 0)), j, name, rule) for values, j, name, rule in checks if (values < 0).any()]
    if bad:
        row, j, name, rule = min(bad)
        raise InputError(source.name, block.first_line + row,
                         f"syntax error in {what} file: {name} {_shown(block.text(row, j))} {rule}")
    if block.failure is not None:
        line, reason = block.failure
        raise InputError(source.name, line, f"syntax error in {what} file: {reason}")


NATURAL_RULE = "is not a natural number (digits 0-9 only, at most 1000009)"
TOPIC_RULE = "is not a natural number (digits 0-9 only, at most 1000009), nor one after a prefix ending in '-'"
QRELS_LAYOUT = "topic intent docno judgment"
RUN_LAYOUT = "topic Q0 docno rank score runtag"


def read_qrels(path: str | InputFile) -> QrelsTable:
    """Qrels as ndeval reads them: natural-number topics, intents and judgments."""
    source = path if isinstance(path, InputFile) else read_input(path)  # opened once, read as a stream of blocks
    topics, intents, levels, docnos = [], [], [], []
    for lines in ndeval_lines(source, 4, "qrel", QRELS_LAYOUT):
        numbers = [natural_numbers(lines.data, *lines.field(j)) for j in (0, 1, 3)]
        _first_bad_line(source, lines, "qrel", [(values, j, name, NATURAL_RULE) for values, j, name in
                                                zip(numbers, (0, 1, 3), ("topic", "intent", "judgment"))])
        topics.append(numbers[0])
        intents.append(numbers[1])
        levels.append(np.minimum(numbers[2], 1))  # binary assessment only
        docnos.append(binary_column(lines.data, *lines.field(2)))
    if not docnos:
        raise InputError(source.name, None, "qrel file is empty")
    encoded = dictionary_encoded(pa.concat_arrays(docnos))
    level = np.concatenate(levels)
    return QrelsTable(
        name=source.name,
        topic=number_factor(np.concatenate(topics)),
        intent=number_factor(np.concatenate(intents)),
        docno=Factor(numpy_of(encoded.indices).astype(np.int32), encoded.dictionary),
        level=level,
        line=np.arange(1, len(level) + 1, dtype=np.int64),
    )


def number_factor(numbers: np.ndarray) -> Factor:
    """Numbers as ids: "007" and "7" are the same topic to ndeval."""
    uniques, codes = np.unique(numbers, return_inverse=True)
    return Factor(codes.astype(np.int32), uniques.astype(str).astype(object))


@dataclass
class NdevalRun:
    """A run as ndeval holds it, in columns: one entry per line, in file order."""

    name: str
    runid: str            # the runtag of the first line (bytes kept through surrogateescape)
    topic: np.ndarray     # int32 topic numbers
    rank: np.ndarray      # int32 rank numbers
    score: np.ndarray | None  # float64, read only with -traditional
    docno: pa.ChunkedArray

    def __len__(self) -> int:
        return len(self.topic)


def read_run(path: str, traditional: bool, warn: WarningSink) -> NdevalRun:
    """A run as ndeval reads it (the score only matters with -traditional)."""
    source = read_input(path)
    runid = None
    topics, ranks, scores, docnos = [], [], [], []
    first_unreadable, n_unreadable = None, 0  # (line, text) of the first score sscanf cannot read, and how many
    for lines in ndeval_lines(source, 6, "run", RUN_LAYOUT):
        topic = run_topics(lines)
        rank = natural_numbers(lines.data, *lines.field(3))
        _first_bad_line(source, lines, "run", [(topic, 0, "topic", TOPIC_RULE), (rank, 3, "rank", NATURAL_RULE)])
        if runid is None:
            runid = lines.text(0, 5).decode("utf-8", "surrogateescape")
        topics.append(topic.astype(np.int32))
        ranks.append(rank.astype(np.int32))
        docnos.append(binary_column(lines.data, *lines.field(2)))
        if traditional:
            score, readable = scan_scores(binary_column(lines.data, *lines.field(4)))
            scores.append(score)
            if not readable.all():
                if first_unreadable is None:
                    row = int(np.argmax(~readable))
                    first_unreadable = (lines.first_line + row, lines.text(row, 4))
                n_unreadable += int((~readable).sum())
        del lines
    if runid is None:
        raise InputError(source.name, None, "run file is empty")
    release_unused_memory()  # the blocks' temporaries
    if first_unreadable is not None:
        line, text = first_unreadable
        more = f" (and {n_unreadable - 1} more line{'s' if n_unreadable > 2 else ''})" if n_unreadable > 1 else ""
        warn(f"{source.name}:{line}: score {_shown(text)} is not a number sscanf can read{more}: "
             f"ndeval -traditional would order it by uninitialised memory; read as 0")
    columns = []
    for blocks in (topics, ranks, scores):  # one column at a time, its blocks freed as it is joined
        columns.append(np.concatenate(blocks) if blocks else None)
        blocks.clear()
    return NdevalRun(source.name, runid, *columns, pa.chunked_array(docnos, pa.binary()))
