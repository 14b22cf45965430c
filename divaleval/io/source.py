"""Opening inputs: files, standard input (``-``), pipes, gzip, and run directories.

Every input is read exactly once as a stream. A regular file is then read where
it lies: the fast reader hands its path to Arrow. Anything that cannot be read
twice or where it lies (standard input, a named pipe, process substitution,
``/dev/stdin``, gzip, recognised by its magic bytes and decompressed on the
way) is copied once into a temporary file, so that a reader may look at it
again (to name a bad line) without holding it in memory: memory stays near
the size of the parsed columns whatever the size of the input. Inputs are only
ever read, never written; the temporary copy is removed when the input is
dropped, and at exit.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import mmap
import os
import shutil
import stat
import sys
import tempfile
import zlib
from typing import BinaryIO, Iterator

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark: skipped at the start of a file
STDIN_NAME = "-"
STDIN_ONCE = "standard input ('-') can be read only once"
HEAD = 1 << 16  # bytes enough to see a file's first line
PEEK_LINES = 100      # lines of a run read, matched and ranked before anything is printed
PEEK_BYTES = 1 << 26  # ... and at most this many bytes of them
COPY_CHUNK = 1 << 20


class InputFile:
    """One input: a name to report it by, and its (decompressed) bytes or the regular file holding them."""

    def __init__(self, name: str, data: bytes | None = None, path: str | None = None,
                 spool: "tempfile._TemporaryFileWrapper | None" = None) -> None:
        if (data is None) == (path is None):
            raise ValueError("an input has its bytes or a path, not both")
        self.name = name
        self._data = data
        self._path = path
        self._spool = spool  # the temporary copy of a stream (removed with this object)
        self.whole = True     # False for the first lines of a longer file (peek_input)

    @property
    def data(self) -> bytes:
        """The whole content (read from the file on first use: for small inputs only)."""
        if self._data is None:
            try:
                with open(self._path, "rb") as handle:
                    self._data = handle.read()
            except OSError as exc:
                raise InputError(self.name, None, f"cannot read: {exc.strerror or exc}") from None
        return self._data

    def open(self) -> BinaryIO:
        if self._data is not None:
            return io.BytesIO(self._data)
        try:
            return open(self._path, "rb")
        except OSError as exc:
            raise InputError(self.name, None, f"cannot read: {exc.strerror or exc}") from None

    def arrow_input(self):
        """What Arrow's CSV reader reads: the file's path, or the bytes in memory."""
        if self._data is None:
            return self._path
        import pyarrow as pa

        return pa.py_buffer(self._data)

    @property
    def size(self) -> int:
        """Bytes (of the file, if not yet read)."""
        return len(self._data) if self._data is not None else os.path.getsize(self._path)

    @contextlib.contextmanager
    def mapped(self) -> Iterator[bytes | mmap.mmap]:
        """The whole content as a buffer: the bytes in memory, or the file mapped (read-only, not copied)."""
        if self._data is not None or self.size == 0:
            yield self.data
            return
        with self.open() as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            yield mapped

    def head(self) -> bytes:
        """The first bytes, enough for the first line."""
        with self.open() as handle:
            return handle.read(HEAD)

    def contains(self, *patterns: bytes) -> bool:
        """Whether the input holds any of ``patterns`` anywhere (scans of the file mapped once, not a copy)."""
        if self._data is not None:
            return any(pattern in self._data for pattern in patterns)
        if self.size == 0:
            return False
        with self.open() as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return any(mapped.find(pattern) >= 0 for pattern in patterns)

    def count_lines(self) -> int:
        """Lines in the input (a last line without its newline counts)."""
        count, last = 0, b"\n"
        with self.open() as handle:
            while True:
                block = handle.read(COPY_CHUNK * 16)
                if not block:
                    break
                count += block.count(b"\n")
                last = block[-1:]
        return count + (last != b"\n")

    def line_bytes(self, line: int) -> bytes:
        """Line ``line`` (1-based) without its line end (empty past the end), a leading BOM left out."""
        with self.open() as handle:
            for number, raw in enumerate(handle, start=1):
                if number == line:
                    return raw.rstrip(b"\n").removeprefix(BOM if number == 1 else b"")
        return b""


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN_NAME else path


def read_input(path: str, name: str | None = None) -> InputFile:
    """Open an input: a regular file by its path; anything else copied once into a temporary file.

    ``name`` is what messages call it (default: the path as given).
    """
    name = name or display_name(path)
    try:
        if path == STDIN_NAME:
            return _spooled(name, sys.stdin.buffer)
        if os.path.isdir(path):
            raise InputError(name, None, "is a directory, not a file")
        with open(path, "rb") as handle:
            if stat.S_ISREG(os.fstat(handle.fileno()).st_mode) and handle.read(2) != GZIP_MAGIC:
                return InputFile(name, path=path)
            if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                handle.seek(0)
            return _spooled(name, handle)
    except OSError as exc:
        raise InputError(name, None, f"cannot open: {exc.strerror or exc}") from None


def input_from_bytes(name: str, data: bytes) -> InputFile:
    """An input whose bytes were read elsewhere (another machine's file), read as a stream would be."""
    return _spooled(name, io.BytesIO(data))


def peek_input(path: str) -> InputFile | None:
    """The first lines of a regular file (decompressed if gzip), whole, as an input of the same name,
    for a cheap check before anything is printed; None for what cannot be read twice (standard input,
    pipes) or cannot be opened (the full read reports it)."""
    if path == STDIN_NAME:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # never opened: opening a pipe would take its data
            return None
        with open(path, "rb") as handle:
            if handle.read(2) == GZIP_MAGIC:
                handle.seek(0)
                with gzip.GzipFile(fileobj=handle, mode="rb") as unzipped:
                    return _first_lines(display_name(path), unzipped)
            handle.seek(0)
            return _first_lines(display_name(path), handle)
    except (OSError, EOFError, zlib.error):
        return None


def _first_lines(name: str, stream: BinaryIO) -> InputFile | None:
    """The first :data:`PEEK_LINES` lines, however long (up to :data:`PEEK_BYTES` in all)."""
    lines = []
    size = 0
    for _ in range(PEEK_LINES):
        line = stream.readline(PEEK_BYTES - size + 1)
        if not line:
            break
        size += len(line)
        if size > PEEK_BYTES:
            break  # a line longer than anything a run holds: the full read names it
        lines.append(line)
    if not lines and size:
        return None
    head = InputFile(name, data=b"".join(lines))
    head.whole = not stream.read(1)  # the first lines are the whole file
    return head


def _spooled(name: str, stream: BinaryIO) -> InputFile:
    """A stream copied once into a temporary file (gzip, recognised by its first bytes, decompressed)."""
    start = stream.read(2)
    spool = tempfile.NamedTemporaryFile(prefix="divaleval-", suffix=".input")
    try:
        if start == GZIP_MAGIC:
            with gzip.GzipFile(fileobj=_Prefixed(start, stream), mode="rb") as unzipped:
                shutil.copyfileobj(unzipped, spool, COPY_CHUNK)
        else:
            spool.write(start)
            shutil.copyfileobj(stream, spool, COPY_CHUNK)
        spool.flush()
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        spool.close()
        raise InputError(name, None, f"cannot decompress gzip data: {exc}") from None
    except OSError as exc:
        spool.close()
        raise InputError(name, None, f"cannot read: {exc.strerror or exc}") from None
    return InputFile(name, path=spool.name, spool=spool)


class _Prefixed(io.RawIOBase):
    """A stream whose first bytes were already read: ``prefix``, then the rest of ``stream``."""

    def __init__(self, prefix: bytes, stream: BinaryIO) -> None:
        self._prefix, self._stream = prefix, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._prefix:
            count = min(len(buffer), len(self._prefix))
            buffer[:count] = self._prefix[:count]
            self._prefix = self._prefix[count:]
            return count
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


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
