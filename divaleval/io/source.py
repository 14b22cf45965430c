"""Opening inputs: files, standard input (``-``), gzip, and run directories.

A file is not read into memory up front: the fast reader streams it (after one
streaming pass that counts its lines and separators), so that a large qrels
file never sits in memory beside its parsed columns. Standard input is read
once and kept. Inputs are only ever read, never written.
"""
from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
STDIN_NAME = "-"
STDIN_ONCE = "standard input ('-') can be read only once"
BLOCK = 1 << 22


@dataclass(frozen=True)
class Shape:
    """What one pass over a file tells about its layout."""

    empty: bool
    starts_with_space: bool
    lines: int          # counting a last line without a newline
    spaces: int
    tabs: int


class InputFile:
    """One input: a name to report it by, and its bytes (read lazily)."""

    def __init__(self, name: str, data: bytes | None = None, path: str | None = None,
                 compressed: bool = False) -> None:
        self.name = name
        self._data = data
        self._path = path
        self._compressed = compressed
        self._shape: Shape | None = None

    @property
    def data(self) -> bytes:
        """The whole (decompressed) content; read on first use."""
        if self._data is None:
            with self.open() as handle:
                self._data = self._guard(handle.read)
        return self._data

    def open(self) -> BinaryIO:
        if self._data is not None:
            return io.BytesIO(self._data)
        raw = open(self._path, "rb")
        return gzip.GzipFile(fileobj=raw, mode="rb") if self._compressed else raw

    def shape(self) -> Shape:
        """Counts of lines, spaces and tabs, by one streaming pass."""
        if self._shape is None:
            lines = spaces = tabs = 0
            first = b""
            last = b"\n"
            with self.open() as handle:
                while block := self._guard(handle.read, BLOCK):
                    first = first or block[:1]
                    lines += block.count(b"\n")
                    spaces += block.count(b" ")
                    tabs += block.count(b"\t")
                    last = block[-1:]
            self._shape = Shape(
                empty=not first,
                starts_with_space=first.isspace(),
                lines=lines + (0 if last == b"\n" else 1),
                spaces=spaces,
                tabs=tabs,
            )
        return self._shape

    def _guard(self, read, *args) -> bytes:
        try:
            return read(*args)
        except (OSError, EOFError, zlib.error) as exc:
            reason = "cannot decompress gzip data" if self._compressed else "cannot read"
            raise InputError(self.name, None, f"{reason}: {exc}") from None


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN_NAME else path


def read_input(path: str) -> InputFile:
    """Open an input (checking now that it can be read); gzip is recognised by its magic bytes."""
    name = display_name(path)
    try:
        if path == STDIN_NAME:
            data = sys.stdin.buffer.read()
            if data[:2] == GZIP_MAGIC:
                try:
                    data = gzip.decompress(data)
                except (OSError, EOFError, zlib.error) as exc:
                    raise InputError(name, None, f"cannot decompress gzip data: {exc}") from None
            return InputFile(name, data=data)
        if os.path.isdir(path):
            raise InputError(name, None, "is a directory, not a file")
        with open(path, "rb") as handle:
            magic = handle.read(2)
    except OSError as exc:
        raise InputError(name, None, f"cannot open: {exc.strerror or exc}") from None
    return InputFile(name, path=path, compressed=magic == GZIP_MAGIC)


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
