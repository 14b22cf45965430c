"""Splitting a whitespace-separated file into columns, with line numbers.

The fast path is pandas' C tokenizer; anything it cannot vouch for is checked
again line by line so that the error names the exact line.
"""
from __future__ import annotations

import csv
import io
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from .source import InputFile


@dataclass
class Columns:
    """The fields of a file: ``fields[j][r]`` is field j of kept row r."""

    source: InputFile
    fields: list[np.ndarray]   # object arrays of str, "" where a line has no such field
    lines: np.ndarray          # 1-based line number of each kept row

    def __len__(self) -> int:
        return len(self.lines)

    def line_text(self, line: int) -> str:
        raw = self.source.data.split(b"\n")[line - 1]
        return raw.rstrip(b"\r").decode("utf-8", "replace")

    def error(self, row: int, reason: str) -> InputError:
        return InputError(self.source.name, int(self.lines[row]), reason)


def split_columns(
    source: InputFile,
    min_fields: int,
    max_fields: int | None,
    *,
    blank_lines: str = "skip",
    layout: str = "",
) -> Columns:
    """Split every line on runs of whitespace.

    min_fields: fewer fields on a line is an error.
    max_fields: more fields is an error; None keeps the first ``min_fields``
        and ignores the rest (ndeval's reading).
    blank_lines: "skip" drops empty lines, "error" reports them.
    layout: the expected line layout, quoted in error messages.
    """
    width = (max_fields + 1) if max_fields is not None else min_fields
    hint = f" (expected: {layout})" if layout else ""
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
    values = columns.fields[j]
    try:
        return values.astype(np.int64)
    except (ValueError, OverflowError):
        pass
    for row, text in enumerate(values):
        try:
            int(text)
        except (ValueError, OverflowError):
            raise columns.error(row, f"{what} {text!r} is not an integer") from None
    raise AssertionError("unreachable")  # pragma: no cover


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
