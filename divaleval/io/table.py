"""Splitting a whitespace-separated file into typed columns, with line numbers.

Fields are separated by any run of ASCII whitespace (space, tab, vertical tab,
form feed, carriage return: C's ``isspace``); lines end at a newline. A file is
never held as one Python object per line: two paths give the same columns.

* the fast path: pyarrow's CSV reader with a one-character separator (space or
  tab), ids dictionary-encoded as they are parsed and document ids kept as
  Arrow binary arrays. It is taken only when the file's shape proves it safe:
  one kind of separator (counted), as many fields on every line (pyarrow
  checks), no empty field, as many rows as lines, every number well formed;
* the careful path, for everything else, and to name the line of any problem
  the fast path meets: the bytes are normalised block by block with numpy (runs
  of whitespace become one tab, leading and trailing whitespace go, fields past
  the last wanted are cut), the fields counted per line, and the normalised
  block parsed by Arrow as binary columns, which are then checked value by
  value so that an error names its exact line.

Numbers are plain ASCII, as C writes them: integers ``[+-]digits``; reals
with an optional sign, digits, a point, an exponent, or ``inf``/``infinity``.
Underscores, other scripts' digits, hexadecimal and NaN are refused.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..arrays import arrow_of, numpy_of, text_offsets, texts_of
from ..errors import InputError
from ..memory import release_unused_memory
from .source import BOM, InputFile

# Field kinds: "str" (object array of str; small files only), "id" (a Factor: codes and labels),
# "docid" (a Factor whose labels are an Arrow binary array: the judged document ids, never one
# Python object each), "text" (an Arrow binary array: a run's document ids), "int" (int64),
# "float" (float64, NaN refused), "level" (int64 from an integer or an NTCIR level L<k>, within
# LEVEL_MIN..LEVEL_MAX), "rank" (int64 and the row of the first value beyond 64 bits, clipped: an error
# only where ranks are read), "present" (must be there; value not kept).
STR, ID, DOCID, TEXT, INT, FLOAT, LEVEL, PRESENT = "str", "id", "docid", "text", "int", "float", "level", "present"
RANK = "rank"
LEVEL_MIN, LEVEL_MAX = -32768, 32767

WHITESPACE = b" \t\v\f\r"   # C's isspace() but the newline, which ends a line
INTEGER_PATTERN = r"^[+-]?[0-9]+$"
REAL_PATTERN = r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf(?:inity)?))$"
LEVEL_TEXT = re.compile(r"L[0-9]+|[+-]?[0-9]+", re.ASCII)
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
BLOCK = 1 << 23              # bytes normalised at a time by the careful path
BIG_INPUT = 1 << 25          # an input this large is parsed by Arrow's threads, and its buffers go back after

_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[list(WHITESPACE)] = True
_IS_SPACE_NL = _IS_SPACE.copy()
_IS_SPACE_NL[ord("\n")] = True


@dataclass
class Factor:
    """Ids as integer codes into distinct labels (first-seen order)."""

    codes: np.ndarray   # int32
    labels: np.ndarray  # object array of str (or, for document ids, an Arrow binary array)

    def values(self) -> np.ndarray:
        if isinstance(self.labels, pa.Array):
            return np.array([value.decode("utf-8", "surrogateescape") for value in
                             self.labels.take(pa.array(self.codes)).to_pylist()], dtype=object)
        return self.labels[self.codes]

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
        return Factor.of(id_array(values))


def binary_array(texts) -> pa.Array:
    """Document ids as an Arrow binary array (text read with surrogateescape keeps its bytes)."""
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
    fast = _fast_read(source, kinds, extra_fields)
    if fast is not None:
        return fast
    hint = f" (expected: {layout})" if layout else ""
    raw, lines, extra = _careful_split(source, len(kinds), extra_fields == "error", blank_lines, hint)
    fields = []
    for j, kind in enumerate(kinds):
        try:
            fields.append(_convert(raw[j], kind, names[j]))
        except _BadValue as bad:
            raise InputError(source.name, int(lines[bad.row]), bad.reason) from None
    return Columns(source, fields, lines, extra)


# -- the fast path ---------------------------------------------------------------------

_ARROW_TYPES = {
    ID: pa.dictionary(pa.int32(), pa.string()),
    DOCID: pa.dictionary(pa.int32(), pa.binary()),
    TEXT: pa.binary(),
    STR: pa.string(),
    INT: pa.binary(),          # checked as text: Arrow's own parser would take 0x10 for 16
    RANK: pa.binary(),
    FLOAT: pa.float64(),
    LEVEL: pa.dictionary(pa.int32(), pa.string()),
    PRESENT: pa.binary(),
}


def _fast_read(source: InputFile, kinds: list[str], extra_fields: str) -> Columns | None:
    """pyarrow's reader with a one-character separator, or None where it is not provably right."""
    head = source.head()
    if head.startswith(BOM):
        head = head[len(BOM):]
    first = head.split(b"\n", 1)[0]
    if not first or _IS_SPACE[head[0]] or (b" " in first) == (b"\t" in first):
        return None  # empty, indented, or no single separator on the first line
    sep = b" " if b" " in first else b"\t"
    # A carriage return: Arrow would end a line there; for every reader here it is whitespace. Other
    # whitespace inside a field: ids are checked in their (small) dictionaries; a file with text columns
    # (a run's docnos) is scanned for it, cheaper than scanning those columns.
    text_columns = any(kind in (TEXT, PRESENT, STR) for kind in kinds)
    if source.contains(b"\r", *(bytes([c]) for c in WHITESPACE if text_columns and c not in sep + b"\r")):
        return None
    width = len(kinds)
    if extra_fields != "error":  # fields past the last are ignored
        width = first.count(sep) + 1  # (every line must have as many as the first)
        if width < len(kinds):
            return None
    names = [f"f{j}" for j in range(width)]
    # A large input's numbers go straight into arrays of their final size (no second copy at the end).
    numbers = any(kind in (INT, RANK, FLOAT) for kind in kinds)
    rows_expected = source.count_lines() if numbers and source.size > BIG_INPUT else None
    parts = [_Numbers(kind, rows_expected) if kind in (INT, RANK, FLOAT) else [] for kind in kinds]
    rows = 0
    try:
        for batch in _arrow_batches(source, sep.decode(), names, kinds):
            for j, kind in enumerate(kinds):
                part = _fast_part(batch.column(j), kind)
                if part is _REFUSED:
                    return None
                parts[j].append(part)
            rows += batch.num_rows
        fields = [part.result() if isinstance(part, _Numbers) else _joined(part, kind)
                  for part, kind in zip(parts, kinds)]
    except (pa.ArrowException, ValueError, OverflowError, OSError, _BadValue):
        return None
    finally:
        del parts
        if source.size > BIG_INPUT:
            release_unused_memory()  # the parser's buffers are not kept for the small reads that follow
    # Every line is a row: a blank line has too few fields, and no other whitespace is in the file.
    return Columns(source, fields, RowLines(rows), extra_fields != "error" and width > len(kinds))


def _arrow_batches(source: InputFile, sep: str, names: list[str], kinds: list[str]) -> Iterator[pa.RecordBatch]:
    """The file parsed by Arrow: whole for a run (read in a thread of its own); a large input by Arrow's
    threads, whole when every column read is kept (large qrels: twice as fast as batch by batch, and the
    parser's buffers, taken from the C heap, go back to the system after), else batch by batch (a large
    run), so that only the columns kept are ever held whole."""
    read_options = pacsv.ReadOptions(column_names=names, use_threads=source.size > BIG_INPUT)
    parse_options = pacsv.ParseOptions(delimiter=sep, quote_char=False, double_quote=False, escape_char=False,
                                       ignore_empty_lines=False)
    convert_options = pacsv.ConvertOptions(
        column_types={names[j]: _ARROW_TYPES[kind] for j, kind in enumerate(kinds)},
        include_columns=names[: len(kinds)], null_values=[], strings_can_be_null=False,
        quoted_strings_can_be_null=False)
    big = source.size > BIG_INPUT
    if not big or all(kind not in (TEXT, PRESENT) for kind in kinds):
        table = pacsv.read_csv(source.arrow_input(), read_options=read_options, parse_options=parse_options,
                               convert_options=convert_options, memory_pool=pa.system_memory_pool() if big else None)
        yield from table.to_batches()
        return
    with pacsv.open_csv(source.arrow_input(), read_options=read_options, parse_options=parse_options,
                        convert_options=convert_options) as reader:
        yield from reader


def _fast_part(column: pa.Array, kind: str):
    """One batch's column, checked (no empty field; no whitespace the single separator left inside an
    id, the file having been scanned for it if it has text columns) and converted as far as it can be
    alone."""
    if kind in (ID, DOCID, LEVEL):
        values = column.dictionary
    elif kind in (INT, RANK, FLOAT):
        values = None  # an empty field, or whitespace in one, is not a number
    else:
        values = column
    if values is not None and len(values) and (pc.min(pc.binary_length(values)).as_py() == 0
                                               or (kind in (ID, DOCID, LEVEL) and _holds_space(values))):
        return _REFUSED
    if kind == PRESENT:
        return None
    if kind in (INT, RANK):
        return _integers(pa.chunked_array([column]), "")
    if kind == FLOAT:
        return _reals(pa.chunked_array([column]), "")
    return column


def _joined(parts: list, kind: str):
    """The batches' parts of one text or id column as one field."""
    if kind == PRESENT:
        return None
    return _convert(pa.chunked_array(parts, _ARROW_TYPES[kind]), kind, "")


class _Numbers:
    """A numeric column gathered batch by batch: into an array of the final size when the number of
    rows is known (a large input), else as parts joined at the end. Ranks are kept in int32 while
    they fit (half the memory)."""

    def __init__(self, kind: str, rows: int | None) -> None:
        self.kind = kind
        self.dtype = np.float64 if kind == FLOAT else np.int32 if kind == RANK else np.int64
        self.out = None if rows is None else np.empty(rows, dtype=self.dtype)
        self.parts: list[np.ndarray] = []
        self.filled = 0

    def append(self, values: np.ndarray) -> None:
        if self.kind == RANK and self.dtype == np.int32 and len(values) and \
                (values.min() < INT32_MIN or values.max() > INT32_MAX):
            self.dtype = np.int64
            if self.out is not None:
                self.out = self.out.astype(np.int64)
        if self.out is None:
            self.parts.append(values)
            return
        if self.filled + len(values) > len(self.out):
            raise ValueError("more rows than lines")  # cannot happen; the careful path would read the file
        self.out[self.filled: self.filled + len(values)] = values
        self.filled += len(values)

    def result(self):
        if self.out is None:
            values = np.concatenate(self.parts).astype(self.dtype, copy=False) if self.parts \
                else np.zeros(0, dtype=self.dtype)
        elif self.filled != len(self.out):
            raise ValueError("fewer rows than lines")
        else:
            values = self.out
        return (values, None) if self.kind == RANK else values


def _holds_space(values: pa.Array) -> bool:
    """Whether the bytes of a binary or string array hold any whitespace (one scan of its data)."""
    data = values.buffers()[2]
    if data is None:
        return False
    offsets = text_offsets(values)
    return bool(_IS_SPACE_NL[np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]]].any())


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


_REFUSED = object()  # a column the fast path cannot vouch for: the careful path reads the file


# -- the careful path ------------------------------------------------------------------

def _careful_split(source: InputFile, width: int, refuse_extra: bool, blank_lines: str,
                   hint: str) -> tuple[list[pa.ChunkedArray], np.ndarray, bool]:
    """The first ``width`` fields of every non-blank line as binary columns, their line numbers,
    and whether some line had more fields (an error if ``refuse_extra``)."""
    chunks: list[list[pa.Array]] = [[] for _ in range(width)]
    line_parts: list[np.ndarray] = []
    extra = False
    names = [f"f{j}" for j in range(width)]
    for block, first_line in _blocks(source):
        normalised, fields_per_line = _normalise(block, width)
        blank = fields_per_line == 0
        if blank_lines == "error" and blank.any():
            line = first_line + int(np.argmax(blank))
            raise InputError(source.name, line, "blank line" + hint)
        short = ~blank & (fields_per_line < width)
        long = fields_per_line > width
        if refuse_extra:
            short |= long
        if short.any():
            row = int(np.argmax(short))
            raise InputError(source.name, first_line + row,
                             f"expected {width} fields, found {int(fields_per_line[row])}{hint}")
        extra = extra or bool(long.any())
        kept = np.flatnonzero(~blank)
        if not len(kept):
            continue
        line_parts.append(first_line + kept.astype(np.int64))
        table = pacsv.read_csv(
            pa.py_buffer(normalised),
            # One Arrow block for the whole normalised block: a line of any length fits.
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False,
                                           block_size=max(1 << 20, len(normalised) + 1)),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={name: pa.binary() for name in names},
                                                 null_values=[], strings_can_be_null=False),
        )
        if table.num_rows != len(kept):  # cannot happen: every kept line is one row of `width` fields
            raise InputError(source.name, None, "cannot split the file into lines and fields")
        for j in range(width):
            chunks[j].extend(table.column(j).chunks)
    lines = np.concatenate(line_parts) if line_parts else np.zeros(0, dtype=np.int64)
    columns = [pa.chunked_array(parts, pa.binary()) for parts in chunks]
    return columns, lines, extra


def _blocks(source: InputFile) -> Iterator[tuple[bytes, int]]:
    """The input in blocks that end at a newline, each with the number of its first line."""
    line = 1
    rest = b""
    with source.open() as handle:
        start = handle.read(len(BOM))
        if start != BOM:
            rest = start
        while True:
            data = handle.read(BLOCK)
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            block, rest = data[:cut], data[cut:]
            yield block, line
            line += block.count(b"\n")
    if rest:
        yield rest + b"\n", line


def _normalise(block: bytes, width: int) -> tuple[bytes, np.ndarray]:
    """A block of whole lines rewritten as ``f1<TAB>f2...<NL>`` (the first ``width`` fields of each
    line; blank lines stay empty), and the number of fields each line had."""
    data = np.frombuffer(block, dtype=np.uint8)
    newline = data == ord("\n")
    field = ~_IS_SPACE_NL[data]
    starts = field.copy()
    starts[1:] &= ~field[:-1]
    line_of = np.cumsum(newline, dtype=np.int32)
    line_of -= newline                       # a newline belongs to the line it ends
    n_lines = int(newline.sum())
    # Field number (1-based) of every byte of a field: starts so far, less those of earlier lines.
    started = np.cumsum(starts, dtype=np.int32)
    before_line = np.zeros(n_lines + 1, dtype=np.int32)
    before_line[1:] = started[newline]
    number = started - before_line[line_of]
    fields_per_line = np.diff(before_line)
    keep = (field & (number <= width)) | newline
    # The byte before each later field's first byte is whitespace: it becomes the one separator.
    separator = np.flatnonzero(starts & (number >= 2) & (number <= width)) - 1
    keep[separator] = True
    out = data.copy()
    out[separator] = ord("\t")
    return out[keep].tobytes(), fields_per_line


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
        encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
        encoded = encoded.unify_dictionaries()
        dictionary = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([], pa.binary())
        codes = np.concatenate([numpy_of(chunk.indices) for chunk in encoded.chunks]) \
            if encoded.num_chunks else np.zeros(0, dtype=np.int32)
        codes = codes.astype(np.int32, copy=False)
        if kind == DOCID:
            return Factor(codes, dictionary.cast(pa.binary()))
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


_DIGIT_OR_MINUS = np.zeros(256, dtype=bool)
_DIGIT_OR_MINUS[list(b"0123456789-")] = True


def _only_digits_and_minus(text: pa.ChunkedArray) -> bool:
    """Whether every byte of every value is a digit or '-' (then Arrow's cast checks the form)."""
    for chunk in text.chunks:
        if not len(chunk):
            continue
        offsets = text_offsets(chunk)
        data = chunk.buffers()[2]
        if data is None:
            continue
        used = np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]]
        if not _DIGIT_OR_MINUS[used].all():
            return False
    return True


def _integers(column: pa.ChunkedArray, name: str, clip: bool = False):
    """ASCII integers (an optional sign, digits) as int64.

    clip: a value beyond 64 bits is clipped to the nearest int64 instead of
    refused, and the result is (values, row of the first such value or None).
    """
    if _only_digits_and_minus(column):  # the usual case: no regex over every value
        try:
            values = numpy_of(pc.cast(column.cast(pa.string()), pa.int64()))
            return (values, None) if clip else values
        except pa.ArrowInvalid:
            pass
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
    if pa.types.is_floating(column.type):
        values = numpy_of(column)
        bad = np.isnan(values)
        if bad.any():
            raise _BadValue(int(np.argmax(bad)), f"{name} is not a number")
        return values
    row = _first_false(pc.match_substring_regex(column, REAL_PATTERN))
    if row is not None:
        raise _BadValue(row, f"{name} {_text_of(column, row)!r} is not a number")
    return numpy_of(pc.cast(column.cast(pa.string()), pa.float64()))


# -- small files, field by field -----------------------------------------------------

def split_columns(source: InputFile, min_fields: int, max_fields: int, *, hint: str = "") -> Columns:
    """Every non-blank line split on runs of whitespace into ``min_fields`` .. ``max_fields`` str
    fields (absent optional ones ""), for small files such as intent probabilities."""
    rows: list[list[str]] = []
    lines: list[int] = []
    data = source.data
    if data.startswith(BOM):
        data = data[len(BOM):]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        fields = raw.split()
        if not fields:
            continue
        if not min_fields <= len(fields) <= max_fields:
            expected = min_fields if len(fields) < min_fields else max_fields
            raise InputError(source.name, number, f"expected {expected} fields, found {len(fields)}{hint}")
        rows.append([decode(f) for f in fields] + [""] * (max_fields - len(fields)))
        lines.append(number)
    fields = [np.array([row[j] for row in rows], dtype=object) for j in range(max_fields)]
    return Columns(source, fields, np.array(lines, dtype=np.int64))


def parse_float_column(columns: Columns, j: int, what: str) -> np.ndarray:
    """Field j (str) as float64: plain ASCII reals only; anything else names its line."""
    try:
        return _reals(pa.chunked_array([pa.array(columns.fields[j], pa.string())]), what)
    except _BadValue as bad:
        raise columns.error(bad.row, bad.reason) from None
