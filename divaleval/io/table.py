"""Splitting a whitespace-separated file into typed columns, with line numbers.

Lines and fields are io/lines's (the one splitter every reader shares): fields
are separated by any run of ASCII whitespace (space, tab, vertical tab, form
feed, carriage return: C's ``isspace``); lines end at a newline; a UTF-8 byte
order mark at the start is skipped. A file is never held as one Python object
per line, and it is read by one path: split a block of lines at a time with
numpy, the fields each reader keeps gathered as Arrow binary columns and
converted block by block (numbers straight into arrays, ids
dictionary-encoded, document ids kept as binary arrays). A line of the wrong
width, or a value that is not of its kind, is reported by its exact line.
(Runs have one other reader, the compiled kernel of io/runs, which declines
any file it cannot read exactly as this one does.)

Numbers are plain ASCII, as C writes them: integers ``[+-]digits``; reals
with an optional sign, digits, a point, an exponent, or ``inf``/``infinity``.
Underscores, other scripts' digits, hexadecimal and NaN are refused.
"""
from __future__ import annotations

import os
import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from ..lazy import pyarrow as pa  # (imported on first use: see divaleval/lazy.py)
# pyarrow.compute is imported where it is called, on the rare paths (see the note on imports in divaleval/arrays.py).

from ..arrays import PackedTexts, arrow_cast, arrow_of, dictionary_encoded, numpy_of, text_offsets, texts_of
from ..errors import InputError
from ..memory import release_unused_memory
from ..threads import Threads
from .lines import blocks, split, split_block
from .source import InputFile

# Field kinds: "str" (object array of str; small files only), "id" (a Factor: codes and labels),
# "docid" (a Factor whose labels are an Arrow binary array: the judged document ids, never one
# Python object each), "text" (an Arrow binary array: a run's document ids), "int" (int64),
# "float" (float64, NaN refused), "level" (int64 from an integer or an NTCIR level L<k>, within
# LEVEL_MIN..LEVEL_MAX), "rank" (int64 and the row of the first value beyond 64 bits, clipped: an error
# only where ranks are read), "present" (must be there; value not kept).
STR, ID, DOCID, TEXT, INT, FLOAT, LEVEL, PRESENT = "str", "id", "docid", "text", "int", "float", "level", "present"
RANK = "rank"
LEVEL_MIN, LEVEL_MAX = -32768, 32767

INTEGER_PATTERN = r"^[+-]?[0-9]+$"
REAL_PATTERN = r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf(?:inity)?))$"
LEVEL_TEXT = re.compile(r"L[0-9]+|[+-]?[0-9]+", re.ASCII)
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
BLOCK = 1 << 23              # bytes split at a time
BIG_INPUT = 1 << 25          # an input this large: numbers go straight into arrays of their final size, and
                             # the blocks' temporaries go back to the system after


@dataclass
class Factor:
    """Ids as integer codes into distinct labels (first-seen order)."""

    codes: np.ndarray   # int32
    labels: np.ndarray  # object array of str (document ids: an Arrow binary array, or PackedTexts where the
                        # compiled reader read them)

    def values(self) -> np.ndarray:
        if isinstance(self.labels, np.ndarray):
            return self.labels[self.codes]
        labels = self.labels.arrow() if isinstance(self.labels, PackedTexts) else self.labels
        return np.array([value.decode("utf-8", "surrogateescape") for value in
                         labels.take(pa.array(self.codes)).to_pylist()], dtype=object)

    def __len__(self) -> int:
        return len(self.codes)

    def take(self, rows: np.ndarray) -> "Factor":
        return Factor(self.codes[rows], self.labels)

    @staticmethod
    def of(values: np.ndarray) -> "Factor":
        import pandas as pd  # only for ids given in memory

        codes, labels = pd.factorize(values)
        return Factor(codes.astype(np.int32), np.asarray(labels, dtype=object))

    @staticmethod
    def single(label: str, count: int) -> "Factor":
        """``count`` copies of one id."""
        return Factor(np.zeros(count, dtype=np.int32), np.array([label], dtype=object))

    @staticmethod
    def of_ids(values) -> "Factor":
        """Ids given in memory (strings, or numbers taken as their text)."""
        import pandas as pd

        # The distinct values first, then their text: one str() per id, not per entry (a run's topics).
        codes, labels = pd.factorize(values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object))
        texts = id_array(labels)
        if (codes >= 0).all() and len(set(texts)) == len(texts):  # no missing value, no two with one text
            return Factor(codes.astype(np.int32), texts)
        return Factor.of(id_array(values))


def binary_array(texts) -> pa.Array:
    """Document ids as an Arrow binary array (text read with surrogateescape keeps its bytes)."""
    try:  # ids that are all str (or bytes): converted in one pass by Arrow, not one Python call each
        given = pa.array(texts, pa.string())
        if not given.null_count:
            return given.cast(pa.binary())
    except (pa.ArrowException, UnicodeEncodeError):  # numbers, or text with surrogates: one at a time
        pass
    return pa.array([text if isinstance(text, bytes) else str(text).encode("utf-8", "surrogateescape")
                     for text in texts], pa.binary())


def id_array(values) -> np.ndarray:
    """Ids given in memory as an object array of str."""
    return np.array([str(v) for v in values], dtype=object)


def decode(raw: bytes) -> str:
    """Bytes of a file as text; bytes that are not UTF-8 survive (and print back) unchanged."""
    return raw.decode("utf-8", "surrogateescape")


class Lines:
    """A table with one entry per line of its source: ``len`` is the number of lines kept."""

    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)


def memory_lines(count: int) -> np.ndarray:
    """Line numbers of rows given in memory: their 1-based positions, so messages can name them."""
    return np.arange(1, count + 1, dtype=np.int64)


def integer_array(values, name: str, what: str) -> np.ndarray:
    """In-memory values that must be integers, as int64; the first other one is an error naming its row."""
    array = np.asarray(values)
    if array.dtype.kind in "iub":
        return array.astype(np.int64)
    out = np.empty(len(array), dtype=np.int64)
    for row, value in enumerate(array.tolist()):
        try:
            if isinstance(value, str):
                if not re.fullmatch(INTEGER_PATTERN[1:-1], value, re.ASCII):
                    raise ValueError
                number = int(value)
            else:
                number = value
            if not float(number).is_integer():
                raise ValueError
            out[row] = int(number)
        except (TypeError, ValueError, OverflowError):
            raise InputError(name, row + 1, f"{what} {value!r} is not an integer") from None
    return out


@dataclass
class Columns:
    """Typed fields of a file; ``lines[r]`` is the 1-based line of row r.

    extra_fields: whether some line had fields past the last one kept (when
    they are ignored rather than refused).
    """

    source: InputFile
    fields: list
    lines: np.ndarray
    extra_fields: bool = False

    def __len__(self) -> int:
        return len(self.lines)

    def line_text(self, line: int) -> str:
        return decode(self.source.line_bytes(line))

    def line_fields(self, line: int) -> list[str]:
        """The fields of a line, split as every reader splits them."""
        return [decode(field) for field in self.source.line_bytes(line).split()]

    def error(self, row: int, reason: str) -> InputError:
        return InputError(self.source.name, int(self.lines[row]), reason)


class _BadValue(Exception):
    """A value a converter refuses: its row and why (the careful path turns it into FILE:LINE)."""

    def __init__(self, row: int, reason: str) -> None:
        super().__init__(reason)
        self.row, self.reason = row, reason


def read_columns(
    source: InputFile,
    kinds: list[str],
    *,
    names: list[str],
    extra_fields: str = "error",
    blank_lines: str = "skip",
    layout: str = "",
) -> Columns:
    """Read a file whose lines hold ``len(kinds)`` fields of the given kinds.

    extra_fields: "error", or "ignore" to drop fields past the last (and note
        in ``Columns.extra_fields`` that some line had them).
    blank_lines: "skip" or "error".
    names: the fields' names, for messages ("rank 'x' is not an integer").
    """
    hint = f" (expected: {layout})" if layout else ""
    try:
        return _careful_split(source, kinds, names, extra_fields == "error", blank_lines, hint)
    finally:
        if source.size > BIG_INPUT:
            release_unused_memory()  # the blocks' temporaries are not kept for the small reads that follow


# -- the one path: split by io/lines, converted a block at a time ---------------------

def _careful_split(source: InputFile, kinds: list[str], names: list[str], refuse_extra: bool, blank_lines: str,
                   hint: str) -> Columns:
    """The columns of every non-blank line's first ``len(kinds)`` fields, and their line numbers.

    A line of the wrong width is an error as soon as its block is reached, in
    file order; a bad value is reported once every line has been split (the
    first of the first column that has one), so that a message names the same
    line however the file falls into blocks. Blocks are split and converted by
    two threads where the input has several (numpy and Arrow work without the
    GIL); they are taken in file order.
    """
    shape = _Shape(len(kinds), refuse_extra, blank_lines, hint)
    numbers = any(kind in (INT, RANK, FLOAT) for kind in kinds)
    rows_expected = source.count_lines() if numbers and source.size > BIG_INPUT else None
    columns = [_NumberColumn(kind, rows_expected) if kind in (INT, RANK, FLOAT) else _OtherColumn(kind)
               for kind in kinds]
    line_parts: list[tuple[int, int, np.ndarray | None]] = []  # (first line, lines, rows kept or None: all)
    every_line, extra, rows = True, False, 0   # every_line: row r is line r + 1 so far
    for block in _in_order(_block_columns, blocks(source, block_bytes=_block_bytes(source.size)), kinds, names,
                           shape, threads=source.size > BLOCK):
        if isinstance(block, tuple):  # (line, reason): a line of the wrong width
            raise InputError(source.name, *block)
        every_line = every_line and block.kept is None
        extra = extra or block.extra
        line_parts.append((block.first_line, block.n_lines, block.kept))
        for column, part in zip(columns, block.parts):
            column.add(part, rows)
        rows += block.n_rows
        del block
    lines = RowLines(rows) if every_line else np.concatenate(
        [first + (np.arange(count) if kept is None else kept).astype(np.int64) for first, count, kept in line_parts]
        or [np.zeros(0, dtype=np.int64)])
    del line_parts
    values = []
    for j, column in enumerate(columns):
        columns[j] = None  # one column at a time, its blocks freed as it is joined
        try:
            values.append(column.result(names[j]))
        except _BadValue as bad:
            raise InputError(source.name, int(lines[bad.row]), bad.reason) from None
    return Columns(source, values, lines, extra)


def _block_bytes(size: int) -> int:
    """Blocks of at most about BLOCK bytes, as even as the input allows: the two threads finish together (a
    12 MB run in two blocks of 6 MB, not 8 and 4)."""
    count = max(1, -(-size // BLOCK))
    return max(1, -(-size // count))


@dataclass
class _Shape:
    """What a line must look like: its fields, whether more are refused, whether a blank line is."""

    width: int
    refuse_extra: bool
    blank_lines: str
    hint: str


@dataclass
class _BlockColumns:
    """A block's lines kept, and each field's part of its column."""

    first_line: int
    n_lines: int
    kept: np.ndarray | None   # the rows kept (None: every line)
    extra: bool               # some line had more fields than read
    parts: list

    @property
    def n_rows(self) -> int:
        return self.n_lines if self.kept is None else len(self.kept)


def _block_columns(block: bytes, first_line: int, kinds: list[str], names: list[str],
                   shape: _Shape) -> _BlockColumns | tuple[int, str]:
    """One block split and its columns taken (and converted as far as a block can be alone), or its
    first line of the wrong width and why."""
    fields = split_block(block, first_line)
    per_line = fields.per_line
    blank = per_line == 0
    if shape.blank_lines == "error" and blank.any():
        return first_line + int(np.argmax(blank)), "blank line" + shape.hint
    short = ~blank & (per_line < shape.width)
    long = per_line > shape.width
    if shape.refuse_extra:
        short |= long
    if short.any():
        row = int(np.argmax(short))
        return first_line + row, f"expected {shape.width} fields, found {int(per_line[row])}{shape.hint}"
    kept = np.flatnonzero(~blank) if blank.any() else None
    parts = []
    for j, kind in enumerate(kinds):
        if kind == PRESENT:
            parts.append(None)
            continue
        texts = fields.column(kept, j)
        if kind in (INT, RANK, FLOAT):
            parts.append(_number_part(texts, kind, names[j]))
        elif kind in _DICTIONARY_KINDS:
            parts.append(dictionary_encoded(texts))
        else:
            parts.append(texts)
    return _BlockColumns(first_line, fields.n_lines, kept, bool(long.any()), parts)


def _in_order(work, items, *args, threads: bool):
    """``work(*item, *args)`` of every item, in order: two at a time by a pool of two threads if
    ``threads`` (and this machine has two cores), with at most three results waiting."""
    if not threads or (os.cpu_count() or 1) < 2:
        for item in items:
            yield work(*item, *args)
        return
    with Threads(2, "divaleval-block") as pool:
        pending = deque()
        for item in items:
            pending.append(pool.submit(work, *item, *args))
            if len(pending) > 2:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


_DICTIONARY_KINDS = (ID, DOCID, LEVEL)  # dictionary-encoded block by block


class _OtherColumn:
    """Ids (dictionary-encoded block by block), texts and the rest, converted once whole."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.parts: list[pa.Array] = []

    def add(self, part, _first_row: int) -> None:
        if self.kind != PRESENT:
            self.parts.append(part)

    def result(self, name: str):
        if self.parts:
            parts = pa.chunked_array(self.parts)
        else:
            empty_type = pa.dictionary(pa.int32(), pa.binary()) if self.kind in _DICTIONARY_KINDS else pa.binary()
            parts = pa.chunked_array([], empty_type)
        return _convert(parts, self.kind, name)


def _number_part(texts: pa.Array, kind: str, name: str) -> tuple:
    """(texts, values or the _BadValue of a block's numbers, and for ranks the row of the first beyond
    64 bits)."""
    column = pa.chunked_array([texts])
    try:
        if kind == FLOAT:
            return texts, _reals(column, name), None
        if kind == INT:
            return texts, _integers(column, name), None
        return (texts, *_integers(column, name, clip=True))
    except _BadValue as bad:
        return texts, bad, None


class _NumberColumn:
    """A numeric column gathered block by block: into an array of the final size when the number of
    rows is known (a large input), else as parts joined at the end. Ranks are kept in int32 while they
    fit (half the memory). From a block with a bad value on, the texts are kept, and read again at the
    end to name the first bad one."""

    def __init__(self, kind: str, rows: int | None) -> None:
        self.kind = kind
        self.dtype = np.float64 if kind == FLOAT else np.int32 if kind == RANK else np.int64
        self.out = None if rows is None else np.empty(rows, dtype=self.dtype)
        self.parts: list[np.ndarray] = []
        self.filled = 0
        self.beyond: int | None = None       # ranks: the row of the first beyond 64 bits (clipped)
        self.failed: list[pa.Array] = []     # texts from the first block with a bad value on
        self.failed_from = 0

    def add(self, part: tuple, first_row: int) -> None:
        texts, values, beyond = part
        if isinstance(values, _BadValue) and not self.failed:
            self.failed_from = first_row
        if self.failed or isinstance(values, _BadValue):
            self.failed.append(texts)
            return
        if beyond is not None and self.beyond is None:
            self.beyond = first_row + beyond
        if self.kind == RANK and self.dtype == np.int32 and len(values) and \
                (values.min() < INT32_MIN or values.max() > INT32_MAX):
            self.dtype = np.int64
            if self.out is not None:
                self.out = self.out.astype(np.int64)
        if self.out is None or self.filled + len(values) > len(self.out):
            self.parts.append(values)  # (more rows than lines cannot happen)
            return
        self.out[self.filled: self.filled + len(values)] = values
        self.filled += len(values)

    def result(self, name: str):
        if self.failed:
            _, bad, _ = _number_part(pa.concat_arrays(self.failed), self.kind, name)
            raise _BadValue(self.failed_from + bad.row, bad.reason)
        if self.out is None:
            values = np.concatenate(self.parts).astype(self.dtype, copy=False) if self.parts \
                else np.zeros(0, dtype=self.dtype)
        else:
            values = self.out[: self.filled]  # fewer rows than lines where some lines are blank
        return (values, self.beyond) if self.kind == RANK else values



class RowLines:
    """The line numbers of a file read row for row (row r is line r + 1), without an array of them."""

    def __init__(self, count: int) -> None:
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, rows):
        if isinstance(rows, slice):
            return np.arange(self.count, dtype=np.int64)[rows] + 1
        return np.asarray(rows) + 1

    def __array__(self, dtype=None, copy=None):
        return np.arange(1, self.count + 1, dtype=dtype or np.int64)



# -- typed values ----------------------------------------------------------------------

def _convert(column: pa.ChunkedArray, kind: str, name: str):
    """A binary (or already typed, on the fast path) column in divaleval's form; _BadValue names a row."""
    if kind == PRESENT:
        return None
    if kind == TEXT:
        return column
    if kind == STR:
        return np.array([text for chunk in column.chunks for text in texts_of(chunk)], dtype=object)
    if kind in (ID, DOCID, LEVEL):
        encoded = column if pa.types.is_dictionary(column.type) else dictionary_encoded(column)
        encoded = encoded.unify_dictionaries()
        dictionary = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([], pa.binary())
        codes = np.concatenate([numpy_of(chunk.indices) for chunk in encoded.chunks]) \
            if encoded.num_chunks else np.zeros(0, dtype=np.int32)
        codes = codes.astype(np.int32, copy=False)
        if kind == DOCID:
            return Factor(codes, arrow_cast(dictionary, pa.binary()))
        labels = texts_of(dictionary)
        if kind == ID:
            return Factor(codes, np.array(labels, dtype=object))
        levels = np.empty(len(labels), dtype=np.int64)
        for j, text in enumerate(labels):
            levels[j] = _level(text, lambda reason: _BadValue(int(np.argmax(codes == j)), reason), name)
        return levels[codes]
    if kind == INT:
        return _integers(column, name)
    if kind == RANK:
        values, beyond = _integers(column, name, clip=True)
        return int32_if_fits(values), beyond
    if kind == FLOAT:
        return _reals(column, name)
    raise ValueError(f"unknown field kind {kind!r}")


def int32_if_fits(values: np.ndarray) -> np.ndarray:
    """Integers (ranks) as int32 where every one fits (half the memory), as every reader keeps them."""
    if len(values) and INT32_MIN <= values.min() and values.max() <= INT32_MAX:
        return values.astype(np.int32)
    return values


def _level(text: str, bad, name: str) -> int:
    if not LEVEL_TEXT.fullmatch(text):
        shown = text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"
        raise bad(f"{name} {shown!r} is neither an integer nor an NTCIR level L<k>")
    value = int(text[1:] if text[:1] == "L" else text)
    if not LEVEL_MIN <= value <= LEVEL_MAX:
        raise bad(f"{name} {text} is out of range [{LEVEL_MIN}, {LEVEL_MAX}]")
    return value


def _first_false(mask: pa.ChunkedArray | pa.Array) -> int | None:
    values = numpy_of(mask)
    bad = ~values
    return int(np.argmax(bad)) if bad.any() else None


SHOWN = 60  # characters of a bad value a message shows


def _text_of(column, row: int) -> str:
    """The value at ``row``, as a message shows it: a long one cut short."""
    value = column[row].as_py()
    text = decode(value) if isinstance(value, bytes) else str(value)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"


def _integer_bytes(used: np.ndarray) -> bool:
    return bool(((used - np.uint8(48) <= 9) | (used == ord("-"))).all())  # digits, '-'


def _real_bytes(used: np.ndarray) -> bool:
    if len(used) and used.min() >= ord("-") and used.max() <= ord("9"):  # the usual case: signs, digits, points
        return not (used == ord("/")).any()
    if ((used < ord("+")) | (used == ord(",")) | (used == ord("/"))).any():  # digits, '+', '-', '.', 'e', 'E'
        return False
    letters = used[used > ord("9")]
    return bool(((letters | 0x20) == ord("e")).all())


def _only_bytes(text: pa.ChunkedArray, allowed) -> bool:
    """Whether ``allowed`` holds for the bytes of every value (then Arrow's cast checks the form)."""
    for chunk in text.chunks:
        if not len(chunk):
            continue
        offsets = text_offsets(chunk)
        data = chunk.buffers()[2]
        if data is None:
            continue
        if not allowed(np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]]):
            return False
    return True


def _integers(column: pa.ChunkedArray, name: str, clip: bool = False):
    """ASCII integers (an optional sign, digits) as int64.

    clip: a value beyond 64 bits is clipped to the nearest int64 instead of
    refused, and the result is (values, row of the first such value or None).
    """
    if _only_bytes(column, _integer_bytes):  # the usual case: no regex over every value
        try:
            values = numpy_of(arrow_cast(arrow_cast(column, pa.string()), pa.int64()))
            return (values, None) if clip else values
        except pa.ArrowInvalid:
            pass
    import pyarrow.compute as pc  # (a malformed or long value: see the note on imports)
    row = _first_false(pc.match_substring_regex(column, INTEGER_PATTERN))
    if row is not None:
        raise _BadValue(row, f"{name} {_text_of(column, row)!r} is not an integer")
    text = column.cast(pa.string())  # every value ASCII now
    if pc.any(pc.starts_with(text, "+")).as_py():
        text = pc.replace_substring_regex(text, r"^\+", "")
    try:
        values = numpy_of(pc.cast(text, pa.int64()))
        return (values, None) if clip else values
    except pa.ArrowInvalid:  # beyond 64 bits
        pass
    lengths = numpy_of(pc.binary_length(text))
    long = np.flatnonzero(lengths >= 19)
    big = {int(row): int(text[int(row)].as_py()) for row in long}
    beyond = [row for row, value in big.items() if not INT64_MIN <= value <= INT64_MAX]
    if not beyond:
        raise _BadValue(int(long[0]) if len(long) else 0, f"{name} cannot be read as an integer")
    if not clip:
        raise _BadValue(beyond[0], f"{name} {_text_of(text, beyond[0])} is out of range (it must fit in 64 bits)")
    mask = pc.not_equal(arrow_of(np.isin(np.arange(len(text)), beyond).astype(np.int32)), 0)
    values = numpy_of(pc.cast(pc.if_else(mask, "0", text.combine_chunks()), pa.int64())).copy()
    for row in beyond:
        values[row] = INT64_MAX if big[row] > 0 else INT64_MIN
    return values, beyond[0]


def _reals(column: pa.ChunkedArray, name: str) -> np.ndarray:
    """ASCII reals (sign, digits, point, exponent, inf) as float64; NaN refused."""
    if _only_bytes(column, _real_bytes):  # the usual case: Arrow's cast refuses every malformed one of these
        try:
            return numpy_of(arrow_cast(arrow_cast(column, pa.string()), pa.float64()))
        except pa.ArrowInvalid:
            pass
    import pyarrow.compute as pc  # (a malformed value: see the note on imports)
    row = _first_false(pc.match_substring_regex(column, REAL_PATTERN))
    if row is not None:
        raise _BadValue(row, f"{name} {_text_of(column, row)!r} is not a number")
    return numpy_of(pc.cast(column.cast(pa.string()), pa.float64()))


# -- small files, field by field -----------------------------------------------------

def split_columns(source: InputFile, min_fields: int, max_fields: int, *, hint: str = "") -> Columns:
    """Every non-blank line's fields, ``min_fields`` .. ``max_fields`` of them, as str (absent optional
    ones ""), for small files such as intent probabilities."""
    parts: list[list[np.ndarray]] = [[] for _ in range(max_fields)]
    lines: list[np.ndarray] = []
    for fields in split(source):
        per_line = fields.per_line
        wrong = (per_line > 0) & ((per_line < min_fields) | (per_line > max_fields))
        if wrong.any():
            row = int(np.argmax(wrong))
            found = int(per_line[row])
            expected = min_fields if found < min_fields else max_fields
            raise InputError(source.name, fields.first_line + row, f"expected {expected} fields, found {found}{hint}")
        kept = np.flatnonzero(per_line)
        lines.append(fields.first_line + kept.astype(np.int64))
        for j in range(max_fields):
            texts = np.full(len(kept), "", dtype=object)
            present = per_line[kept] > j
            texts[present] = texts_of(fields.column(kept[present], j))
            parts[j].append(texts)
    values = [np.concatenate(part) if part else np.zeros(0, dtype=object) for part in parts]
    return Columns(source, values, np.concatenate(lines) if lines else np.zeros(0, dtype=np.int64))


def parse_float_column(columns: Columns, j: int, what: str) -> np.ndarray:
    """Field j (str) as float64: plain ASCII reals only; anything else names its line."""
    try:
        return _reals(pa.chunked_array([pa.array(columns.fields[j], pa.string())]), what)
    except _BadValue as bad:
        raise columns.error(bad.row, bad.reason) from None
