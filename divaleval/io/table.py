"""Splitting a whitespace-separated file into typed columns, with line numbers.

Two paths give the same result:

* the fast path: pyarrow's multithreaded CSV reader with a one-character
  separator (space or tab), typed columns, ids dictionary-encoded as they are
  parsed and document ids kept as Arrow binary arrays: no Python object per
  line. It is taken only when the file's shape proves it safe: one kind of
  separator (counted), as many fields on every line (pyarrow checks), no empty
  field, as many rows as lines, no NaN;
* the careful path, for everything else, and to name the line of any problem
  the fast path meets: any run of whitespace separates fields, blank lines are
  handled, and every field is checked so that an error names its exact line.
"""
from __future__ import annotations

import csv
import io
import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import InputError
from ..memory import release_unused_memory
from .source import InputFile

# Field kinds: "str" (object array), "id" (a Factor: codes and labels),
# "docid" (a Factor whose labels are an Arrow binary array: the judged document
# ids, never one Python object each), "text" (an Arrow binary array: a run's
# document ids), "int" (int64), "float" (float64, NaN refused), "level" (int64
# from an integer or an NTCIR level L<k>), "present" (must be there; value not kept).
STR, ID, DOCID, TEXT, INT, FLOAT, LEVEL, PRESENT = "str", "id", "docid", "text", "int", "float", "level", "present"


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
        import pandas as pd  # only for ids read on the careful path or given in memory

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
            number = int(value) if isinstance(value, str) else value
            if not float(number).is_integer():
                raise ValueError
            out[row] = int(number)
        except (TypeError, ValueError, OverflowError):
            raise InputError(name, row + 1, f"{what} {value!r} is not an integer") from None
    return out


@dataclass
class Columns:
    """Typed fields of a file; ``lines[r]`` is the 1-based line of row r."""

    source: InputFile
    fields: list
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.lines)

    def line_text(self, line: int) -> str:
        with self.source.open() as handle:
            for number, raw in enumerate(handle, start=1):
                if number == line:
                    return raw.rstrip(b"\r\n").decode("utf-8", "replace")
        return ""

    def error(self, row: int, reason: str) -> InputError:
        return InputError(self.source.name, int(self.lines[row]), reason)


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

    extra_fields: "error", or "ignore" to drop fields past the last (ndeval).
    blank_lines: "skip" or "error".
    names: the fields' names, for messages ("rank 'x' is not an integer").
    """
    fast = _fast_read(source, kinds, extra_fields)
    if fast is not None:
        return fast
    hint = f" (expected: {layout})" if layout else ""
    columns = split_columns(source, len(kinds), len(kinds) if extra_fields == "error" else None,
                            blank_lines=blank_lines, hint=hint)
    converted = []
    for j, kind in enumerate(kinds):
        text = columns.fields[j]
        if kind == INT:
            converted.append(parse_int_column(columns, j, names[j]))
        elif kind == LEVEL:
            converted.append(parse_level_column(columns, j, names[j]))
        elif kind == FLOAT:
            converted.append(parse_float_column(columns, j, names[j]))
        elif kind in (ID, DOCID):
            factor = Factor.of(text)
            converted.append(factor if kind == ID else Factor(factor.codes, binary_array(factor.labels)))
        elif kind == PRESENT:
            converted.append(None)
        elif kind == TEXT:
            converted.append(binary_array(text))
        else:
            converted.append(text)
    return Columns(source, converted, columns.lines)


_ARROW_TYPES = {
    ID: pa.dictionary(pa.int32(), pa.string()),
    DOCID: pa.dictionary(pa.int32(), pa.binary()),
    TEXT: pa.binary(),
    STR: pa.string(),
    INT: pa.int64(),
    FLOAT: pa.float64(),
    LEVEL: pa.dictionary(pa.int32(), pa.string()),
    PRESENT: pa.binary(),
}


def _fast_read(source: InputFile, kinds: list[str], extra_fields: str) -> Columns | None:
    """pyarrow's reader with a one-character separator, or None where it is not provably right."""
    head = source.head()
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    if not first or head[:1].isspace() or (b" " in first) == (b"\t" in first):
        return None  # empty, indented, or no single separator on the first line
    sep, other = (b" ", "\t") if b" " in first else (b"\t", " ")
    width = len(kinds)
    if extra_fields != "error":  # ndeval's reading: fields past the last are ignored
        width = first.count(sep) + 1  # (every line must have as many as the first)
        if width < len(kinds):
            return None
    names = [f"f{j}" for j in range(width)]
    try:
        table = pacsv.read_csv(
            source.arrow_input(),
            # Arrow's threads only for a large input (the qrels): runs are read in threads of their own.
            read_options=pacsv.ReadOptions(column_names=names, use_threads=source.size > BIG_INPUT),
            parse_options=pacsv.ParseOptions(delimiter=sep.decode(), quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={names[j]: _ARROW_TYPES[kind] for j, kind in enumerate(kinds)},
                include_columns=names[: len(kinds)], null_values=[], strings_can_be_null=False,
                quoted_strings_can_be_null=False),
        )
        rows = table.num_rows
        fields = [_arrow_field(table.column(j), kind, other) for j, kind in enumerate(kinds)]
        big = table.nbytes > BIG_INPUT
        del table
        if big:
            release_unused_memory()  # the parser's buffers are not kept for the small reads that follow
    except (pa.ArrowException, ValueError, OverflowError, OSError):
        return None
    if any(field is _REFUSED for field in fields):
        return None
    # Every line is a row: a blank line has too few fields, and a carriage return
    # ends a line for this reader as for the careful one.
    return Columns(source, fields, np.arange(1, rows + 1, dtype=np.int64))


_REFUSED = object()  # a column the fast path cannot vouch for: the careful path reads the file
BIG_INPUT = 1 << 25  # an input this large is parsed by Arrow's threads, and its buffers go back after


def _holds_byte(column: pa.Array, char: str) -> bool:
    """Whether the bytes of a binary or string array hold ``char`` (one scan of its data buffer)."""
    data = column.buffers()[2]
    return data is not None and bool((np.frombuffer(data, dtype=np.uint8) == ord(char)).any())


def _arrow_field(column: pa.ChunkedArray, kind: str, other: str):
    """One parsed column in divaleval's form, or _REFUSED (an empty field, the other separator in a
    field, a NaN, an odd level)."""
    if kind in (ID, DOCID, LEVEL):
        column = column.unify_dictionaries()
        dictionary = column.chunk(0).dictionary if column.num_chunks else pa.array([], column.type.value_type)
        if len(dictionary) and (pc.min(pc.binary_length(dictionary)).as_py() == 0
                                or pc.any(pc.match_substring(dictionary, other)).as_py()):
            return _REFUSED
        codes = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in column.chunks]) \
            if column.num_chunks else np.zeros(0, dtype=np.int32)
        if kind == DOCID:
            return Factor(codes.astype(np.int32, copy=False), dictionary)
        labels = dictionary.to_numpy(zero_copy_only=False).astype(object)
        if kind == ID:
            return Factor(codes.astype(np.int32, copy=False), labels)
        try:  # a level: each distinct text once
            return np.array([_level(text) for text in labels], dtype=np.int64)[codes]
        except (ValueError, OverflowError):
            return _REFUSED
    if kind in (TEXT, STR, PRESENT):
        if len(column) and (pc.min(pc.binary_length(column)).as_py() == 0
                            or any(_holds_byte(chunk, other) for chunk in column.chunks)):
            return _REFUSED
        return column if kind == TEXT else None if kind == PRESENT else column.to_numpy()
    values = column.to_numpy()
    if kind == FLOAT and np.isnan(values).any():
        return _REFUSED
    return values


def split_columns(
    source: InputFile,
    min_fields: int,
    max_fields: int | None,
    *,
    blank_lines: str = "skip",
    hint: str = "",
) -> Columns:
    """Split every line on runs of whitespace into str fields (the careful path).

    min_fields: fewer fields on a line is an error.
    max_fields: more fields is an error; None keeps the first ``min_fields``
        and ignores the rest (ndeval's reading).
    """
    width = (max_fields + 1) if max_fields is not None else min_fields
    fields = _tokenize(source, width, min_fields, max_fields, blank_lines, hint)
    lines = np.arange(1, len(fields[0]) + 1, dtype=np.int64)
    columns = Columns(source, fields, lines)
    if not len(lines):
        return columns

    blank = fields[0] == ""
    if blank.any():
        if blank_lines == "error":
            raise columns.error(int(np.argmax(blank)), "blank line" + hint)
        keep = ~blank
        columns = Columns(source, [f[keep] for f in fields], lines[keep])
        fields = columns.fields
        if not len(columns):
            return columns

    short = fields[min_fields - 1] == ""
    if short.any():
        row = int(np.argmax(short))
        found = len(columns.line_text(int(columns.lines[row])).split())
        raise columns.error(row, f"expected {min_fields} fields, found {found}{hint}")
    if max_fields is not None:
        long = fields[max_fields] != ""
        if long.any():
            row = int(np.argmax(long))
            found = len(columns.line_text(int(columns.lines[row])).split())
            raise columns.error(row, f"expected {max_fields} fields, found {found}{hint}")
        columns.fields = fields[:max_fields]
    return columns


def _tokenize(source: InputFile, width: int, min_fields: int, max_fields: int | None,
              blank_lines: str, hint: str) -> list[np.ndarray]:
    if not source.data.strip():
        # Only whitespace: pandas would refuse it; keep the blank lines countable.
        count = source.data.count(b"\n") + (0 if source.data.endswith(b"\n") or not source.data else 1)
        return [np.full(count, "", dtype=object) for _ in range(width)]
    # With max_fields, `width` has one sentinel column past it that catches
    # longer lines; without, usecols drops the extra fields (ndeval's reading).
    layout = {"index_col": False} if max_fields is not None else {"usecols": list(range(width))}
    import pandas as pd  # the careful path only: the fast one never needs pandas

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            frame = pd.read_csv(
                io.BytesIO(source.data),
                sep=r"\s+",
                header=None,
                names=list(range(width)),
                dtype=str,
                keep_default_na=False,
                na_values=[],
                skip_blank_lines=False,
                quoting=csv.QUOTE_NONE,
                engine="c",
                encoding="utf-8",
                encoding_errors="surrogateescape",
                **layout,
            )
        except (ValueError, pd.errors.ParserError) as exc:
            _diagnose(source, min_fields, max_fields, blank_lines, hint)
            raise InputError(source.name, None, f"cannot parse: {exc}") from None
    return [frame[j].to_numpy(dtype=object) for j in range(width)]


def _diagnose(source: InputFile, min_fields: int, max_fields: int | None, blank_lines: str, hint: str) -> None:
    """Find, line by line, the first line with a wrong number of fields, and raise."""
    for number, raw in enumerate(source.data.split(b"\n"), start=1):
        found = len(raw.split())
        if found == 0:
            if blank_lines == "error" and number <= source.data.count(b"\n"):
                raise InputError(source.name, number, "blank line" + hint)
            continue
        if found < min_fields or (max_fields is not None and found > max_fields):
            expected = min_fields if found < min_fields else max_fields
            raise InputError(source.name, number, f"expected {expected} fields, found {found}{hint}")


def parse_int_column(columns: Columns, j: int, what: str) -> np.ndarray:
    """Field j as int64; a non-integer names its line."""
    return _integer_column(columns, j, int, f"{what} {{!r}} is not an integer")


def parse_level_column(columns: Columns, j: int, what: str) -> np.ndarray:
    """Field j as relevance levels: integers, or NTCIR's ``L<k>``."""
    return _integer_column(columns, j, _level, f"{what} {{!r}} is neither an integer nor an NTCIR level L<k>")


def _level(text: str) -> int:
    return int(text[1:] if text[:1] == "L" else text)


def _integer_column(columns: Columns, j: int, convert, problem: str) -> np.ndarray:
    """Field j as int64: in bulk, or value by value to name the first bad line."""
    text = columns.fields[j]
    try:
        return text.astype(np.int64)
    except (ValueError, OverflowError):
        pass
    values = np.empty(len(text), dtype=np.int64)
    for row, value in enumerate(text):
        try:
            values[row] = convert(value)
        except (ValueError, OverflowError):
            raise columns.error(row, problem.format(value)) from None
    return values


def parse_float_column(columns: Columns, j: int, what: str) -> np.ndarray:
    """Field j as float64 (correctly rounded); NaN or junk names its line."""
    values = columns.fields[j]
    try:
        parsed = values.astype(np.float64)
    except (ValueError, OverflowError):
        parsed = None
    if parsed is not None:
        bad = np.isnan(parsed)
        if not bad.any():
            return parsed
        row = int(np.argmax(bad))
        raise columns.error(row, f"{what} {values[row]!r} is not a number")
    for row, text in enumerate(values):
        try:
            float(text)
        except ValueError:
            raise columns.error(row, f"{what} {text!r} is not a number") from None
    raise AssertionError("unreachable")  # pragma: no cover
