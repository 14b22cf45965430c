"""Opening inputs: files, standard input (``-``), gzip, and run directories.

A regular file is read where it lies: the fast reader hands its path to Arrow,
and its bytes are loaded only if the careful reader needs them (an odd line to
name). Everything else is read exactly once, as a stream, into memory: standard
input, named pipes, process substitution, and gzip (recognised by its magic
bytes, decompressed on the way). Inputs are only ever read, never written.
"""
from __future__ import annotations

import gzip
import io
import os
import stat
import sys
import zlib
from typing import BinaryIO

import pyarrow as pa

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
STDIN_NAME = "-"
STDIN_ONCE = "standard input ('-') can be read only once"
HEAD = 1 << 16  # bytes enough to see a file's first line


class InputFile:
    """One input: a name to report it by, and its (decompressed) bytes or the regular file holding them."""

    def __init__(self, name: str, data: bytes | None = None, path: str | None = None) -> None:
        if (data is None) == (path is None):
            raise ValueError("an input has its bytes or a path, not both")
        self.name = name
        self._data = data
        self._path = path

    @property
    def data(self) -> bytes:
        """The whole content (read from the file on first use)."""
        if self._data is None:
            try:
                with open(self._path, "rb") as handle:
                    self._data = handle.read()
            except OSError as exc:
                raise InputError(self.name, None, f"cannot read: {exc.strerror or exc}") from None
        return self._data

    def open(self) -> BinaryIO:
        return io.BytesIO(self._data) if self._data is not None else open(self._path, "rb")

    def arrow_input(self):
        """What Arrow's CSV reader reads: the file's path, or the bytes in memory."""
        return self._path if self._data is None else pa.py_buffer(self._data)

    @property
    def size(self) -> int:
        """Bytes (of the file, if not yet read)."""
        return len(self._data) if self._data is not None else os.path.getsize(self._path)

    def head(self) -> bytes:
        """The first bytes, enough for the first line."""
        if self._data is not None:
            return self._data[:HEAD]
        with open(self._path, "rb") as handle:
            return handle.read(HEAD)


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN_NAME else path


def read_input(path: str) -> InputFile:
    """Open an input: a regular file by its path; anything else (``-``, a pipe, gzip) read whole, once."""
    name = display_name(path)
    try:
        if path == STDIN_NAME:
            data = sys.stdin.buffer.read()
        elif os.path.isdir(path):
            raise InputError(name, None, "is a directory, not a file")
        else:
            with open(path, "rb") as handle:
                if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    if handle.read(2) != GZIP_MAGIC:
                        return InputFile(name, path=path)
                    handle.seek(0)
                data = handle.read()  # gzip, or a pipe: read once, whole
    except OSError as exc:
        raise InputError(name, None, f"cannot open: {exc.strerror or exc}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, None, f"cannot decompress gzip data: {exc}") from None
    return InputFile(name, data=data)


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
