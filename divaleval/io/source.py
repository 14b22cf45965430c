"""Opening inputs: files, standard input (``-``), gzip, and run directories.

Every input is read exactly once, as a stream, into memory (gzip, recognised by
its magic bytes, is decompressed on the way): named pipes, process substitution
and standard input work like files, and the readers parse, and if need be
re-parse to name a bad line, the same bytes. Inputs are only ever read, never
written.
"""
from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from dataclasses import dataclass
from functools import cached_property
from typing import BinaryIO

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
STDIN_NAME = "-"
STDIN_ONCE = "standard input ('-') can be read only once"


@dataclass(frozen=True)
class Shape:
    """What the bytes of a file tell about its layout (cheap: no full count unless needed)."""

    empty: bool
    starts_with_space: bool
    has_spaces: bool
    has_tabs: bool
    has_cr: bool        # a carriage return: CSV readers take a lone one for a line end


class InputFile:
    """One input: a name to report it by, and its (decompressed) bytes."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self.data = data

    def open(self) -> BinaryIO:
        return io.BytesIO(self.data)

    @cached_property
    def shape(self) -> Shape:
        data = self.data
        return Shape(empty=not data, starts_with_space=data[:1].isspace(), has_spaces=b" " in data,
                     has_tabs=b"\t" in data, has_cr=b"\r" in data)

    @cached_property
    def lines(self) -> int:
        """Lines, counting a last line without a newline."""
        return self.data.count(b"\n") + (1 if self.data and not self.data.endswith(b"\n") else 0)


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN_NAME else path


def read_input(path: str) -> InputFile:
    """Read an input whole, once (``-`` is standard input); gzip is recognised by its magic bytes."""
    name = display_name(path)
    try:
        if path == STDIN_NAME:
            data = sys.stdin.buffer.read()
        else:
            if os.path.isdir(path):
                raise InputError(name, None, "is a directory, not a file")
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        raise InputError(name, None, f"cannot open: {exc.strerror or exc}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, None, f"cannot decompress gzip data: {exc}") from None
    return InputFile(name, data)


def expand_run_paths(paths: list[str]) -> list[str]:
    """Replace each directory by the files in it, sorted by name.

    Hidden files (names starting with ``.``) and subdirectories are skipped.
    """
    expanded: list[str] = []
    for path in paths:
        if path != STDIN_NAME and os.path.isdir(path):
            names = sorted(
                entry for entry in os.listdir(path)
                if not entry.startswith(".") and os.path.isfile(os.path.join(path, entry))
            )
            if not names:
                raise InputError(path, None, "directory holds no run files")
            expanded.extend(os.path.join(path, entry) for entry in names)
        else:
            expanded.append(path)
    if sum(path == STDIN_NAME for path in expanded) > 1:
        raise InputError(display_name(STDIN_NAME), None, STDIN_ONCE)
    return expanded
