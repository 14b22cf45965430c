"""Opening inputs: files, standard input (``-``), pipes, compressed files, and run directories.

Every input is read exactly once as a stream. A regular file is then read where
it lies: the fast reader hands its path to Arrow, the compiled splitter maps it.
Anything that cannot be read twice or where it lies (standard input, a named
pipe, process substitution, ``/dev/stdin``, and compressed data, recognised by
its magic bytes whatever the file's name and decompressed on the way: gzip,
bzip2, xz, zstd, lz4) is copied once into a temporary file, so that a reader
may look at it again (to name a bad line) without holding it in memory: memory
stays near the size of the parsed columns whatever the size of the input, and
no reader ever sees compressed bytes. Inputs are only ever read, never written;
the temporary copy is removed when the input is dropped, and at exit.

gzip, bzip2 and xz are read by the standard library; zstd and lz4 by the first
of Python 3.14's ``compression.zstd``, the ``zstandard`` module and Arrow's
codecs that is there. Archives (zip, 7z), and a compression no module here
reads, are refused with a message saying what the file is and how to unpack it.
"""
from __future__ import annotations

import contextlib
import io
import mmap
import os
import stat
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterator

from ..errors import InputError

if TYPE_CHECKING:
    import tempfile

# The decompressors, tempfile and shlex are imported where an input needs them (about 5 ms of start-up
# a regular, uncompressed file does without).

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
    def on_disk(self) -> str | None:
        """The path of the regular file whose bytes these are, read where they lie; None for bytes in memory
        and for a private copy (of a stream, or of decompressed data: the file's bytes are not these)."""
        return self._path if self._data is None and self._spool is None else None

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
    """Open an input: a plain regular file by its path; anything else copied once into a temporary file.

    ``name`` is what messages call it (default: the path as given).
    """
    name = name or display_name(path)
    try:
        if path == STDIN_NAME:
            return _spooled(name, sys.stdin.buffer)
        if os.path.isdir(path):
            raise InputError(name, None, "is a directory, not a file")
        with open(path, "rb") as handle:
            if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                if compression_of(handle.read(MAGIC_BYTES)) is None:
                    return InputFile(name, path=path)
                handle.seek(0)
            return _spooled(name, handle)
    except OSError as exc:
        raise InputError(name, None, f"cannot open: {exc.strerror or exc}") from None


def input_from_bytes(name: str, data: bytes) -> InputFile:
    """An input whose bytes were read elsewhere (another machine's file), read as a stream would be."""
    return _spooled(name, io.BytesIO(data))


def peek_input(path: str) -> InputFile | None:
    """The first lines of a regular file (decompressed if compressed), whole, as an input of the same
    name, for a cheap check before anything is printed; None for what cannot be read twice (standard
    input, pipes) or cannot be opened or decompressed (the full read reports it)."""
    if path == STDIN_NAME:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # never opened: opening a pipe would take its data
            return None
        with open(path, "rb") as handle:
            compression = compression_of(handle.read(MAGIC_BYTES))
            handle.seek(0)
            if compression is None:
                return _first_lines(display_name(path), handle)
            decompressor = compression.decompressor()
            if decompressor is None:
                return None
            open_stream, errors = decompressor
            try:
                return _first_lines(display_name(path), open_stream(handle))
            except errors:
                return None
    except (OSError, EOFError):
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
    """A stream copied once into a temporary file (compressed data, told by its first bytes, decompressed)."""
    start = stream.read(MAGIC_BYTES)
    compression = compression_of(start)
    if compression is None:
        head, read, errors, what = start, stream.read, (), ""
    else:
        decompressor = compression.decompressor()
        if decompressor is None:
            raise InputError(name, None, compression.refusal.format(file=_command_file(name)))
        open_stream, errors = decompressor
        head, read, what = b"", open_stream(_Prefixed(start, stream)).read, compression.name
    import tempfile

    spool = tempfile.NamedTemporaryFile(prefix="divaleval-", suffix=".input")
    try:
        spool.write(head)
        while block := _read_block(name, read, errors, what):
            spool.write(block)
        spool.flush()
    except BaseException as exc:  # the copy is removed whatever stopped it (Ctrl-C too)
        spool.close()
        if isinstance(exc, OSError):
            raise InputError(name, None, f"cannot read: {exc.strerror or exc}") from None
        raise
    return InputFile(name, path=spool.name, spool=spool)


def _read_block(name: str, read: Callable[[int], bytes], errors: tuple[type[BaseException], ...],
                what: str) -> bytes:
    """The next block of a stream being copied; a read error or bad compressed data said as such."""
    try:
        return read(COPY_CHUNK)
    except _SourceError as exc:
        raise exc.error from None
    except errors as exc:
        raise InputError(name, None, f"cannot decompress {what} data: {exc}") from None


def _command_file(name: str) -> str:
    """The input's name as a shell command would take it (``FILE`` for standard input)."""
    import shlex

    return "FILE" if name == display_name(STDIN_NAME) else shlex.quote(name)


class _SourceError(Exception):
    """A read of the compressed bytes failed: not bad data, whatever the decompressor would call it."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


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
        try:
            data = self._stream.read(len(buffer))
        except OSError as exc:
            raise _SourceError(exc) from None
        buffer[: len(data)] = data
        return len(data)


class _Blocks(io.RawIOBase):
    """A stream of the blocks an iterator yields."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self._blocks, self._rest = blocks, memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._rest:
            block = next(self._blocks, None)
            if block is None:
                return 0
            self._rest = memoryview(block)
        count = min(len(buffer), len(self._rest))
        buffer[:count] = self._rest[:count]
        self._rest = self._rest[count:]
        return count


# -- compressed formats ------------------------------------------------------

# How to read one format: a function that wraps the compressed stream in a decompressing one,
# and the exceptions that say its data is bad (a failed read of the compressed bytes is a
# _SourceError, never one of them).
Decompressor = tuple[Callable[[BinaryIO], BinaryIO], tuple[type[BaseException], ...]]

MAGIC_BYTES = 10  # enough of an input's first bytes to tell every format below


@dataclass(frozen=True)
class Compression:
    """A compressed format (or archive), told by its first bytes."""

    name: str
    matches: Callable[[bytes], bool]
    decompressor: Callable[[], Decompressor | None]  # None: nothing here reads it
    refusal: str = ""  # the message where nothing reads it ({file}: the input, as a command takes it)


def _starts(*magics: bytes) -> Callable[[bytes], bool]:
    return lambda start: start.startswith(magics)


def _is_bzip2(start: bytes) -> bool:
    """``BZh``, the block size 1-9, then a block's magic (pi) or the end of an empty stream (sqrt(pi))."""
    return (len(start) >= 4 and start[:3] == b"BZh" and start[3:4] in b"123456789"
            and start[4:10] in (b"1AY&SY", b"\x17rE8P\x90"))


def _gzip() -> Decompressor:
    import gzip
    import zlib

    return lambda stream: gzip.GzipFile(fileobj=stream, mode="rb"), (EOFError, zlib.error, OSError)


def _bzip2() -> Decompressor:
    import bz2

    return bz2.BZ2File, (EOFError, OSError)


def _xz() -> Decompressor:
    import lzma

    return lzma.LZMAFile, (EOFError, lzma.LZMAError)


def _zstd() -> Decompressor | None:
    try:
        from compression import zstd  # Python 3.14
    except ImportError:
        pass
    else:
        return zstd.ZstdFile, (zstd.ZstdError, EOFError)
    arrow = _arrow_codec("zstd")
    if arrow is not None:
        return arrow
    try:
        import zstandard
    except ImportError:
        return None
    return (lambda stream: io.BufferedReader(_Blocks(_zstandard_blocks(zstandard, stream)), COPY_CHUNK),
            (zstandard.ZstdError, EOFError))


def _zstandard_blocks(zstandard, stream: BinaryIO) -> Iterator[bytes]:
    """The decompressed blocks of zstd frames one after another; EOFError if the last one is cut short
    (zstandard's own stream reader would end quietly there)."""
    data = stream.read(COPY_CHUNK)
    while data:
        frame = zstandard.ZstdDecompressor().decompressobj()
        while not frame.eof:
            if not data:
                raise EOFError("compressed data ended before the end of a frame")
            yield frame.decompress(data)
            data = b"" if frame.eof else stream.read(COPY_CHUNK)
        data = frame.unused_data or stream.read(COPY_CHUNK)


def _arrow_codec(codec: str) -> Decompressor | None:
    """Arrow's streaming codec (its wheels carry zstd and lz4), where this build has it."""
    import pyarrow as pa

    if not pa.Codec.is_available(codec):
        return None
    return (lambda stream: io.BufferedReader(pa.CompressedInputStream(stream, codec), COPY_CHUNK),
            (pa.ArrowException, OSError))


def _archive(name: str, extract: str, *magics: bytes) -> Compression:
    """An archive of files: never read (which file would it be?), only named."""
    return Compression(name, _starts(*magics), lambda: None,
                       f"a {name} archive, not a text file: extract it first ({extract} {{file}})")


COMPRESSIONS = (
    Compression("gzip", _starts(b"\x1f\x8b"), _gzip),
    Compression("bzip2", _is_bzip2, _bzip2),
    Compression("xz", _starts(b"\xfd7zXZ\x00"), _xz),
    Compression("zstd", _starts(b"\x28\xb5\x2f\xfd"), _zstd,
                "zstd-compressed; decompress it first (zstd -d {file}) or install zstandard"),
    Compression("lz4", _starts(b"\x04\x22\x4d\x18"), lambda: _arrow_codec("lz4"),
                "lz4-compressed; decompress it first (lz4 -d {file})"),
    _archive("zip", "unzip", b"PK\x03\x04", b"PK\x05\x06"),
    _archive("7z", "7z x", b"7z\xbc\xaf\x27\x1c"),
)


def compression_of(start: bytes) -> Compression | None:
    """The compressed format whose data starts with these bytes (at least :data:`MAGIC_BYTES` of
    them, or the whole input), or None for anything else (text)."""
    return next((compression for compression in COMPRESSIONS if compression.matches(start)), None)


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
