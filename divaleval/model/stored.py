"""Qrels kept between calls: a content-keyed cache of the judgments in array form, with what was derived from them.

A grading script calls divaleval once per run, as people call trec_eval; every call would otherwise read
the same qrels again, build the same arrays, hash the same judged pairs and compute the same ideal
rankings. Here each call hashes the qrels' bytes instead (a few times cheaper than reading them; a file that
has not changed since an earlier call hashed it, not even that) and, when an earlier call left an entry for
those bytes, takes the :class:`~divaleval.model.qrels.Qrels` from it,
with its :attr:`~divaleval.model.judged.JudgedDocuments.cache` of derived quantities (ideal rankings of
the measures asked for before, the table of judged pairs).

Why it can never be stale: an entry's name is the SHA-256 of the qrels' bytes (decompressed, as the
reader reads them) together with everything the arrays and the derived quantities depend on: the
format of the entry, divaleval's version and the size and time of every one of its source files (an
edited tree is another tree), the versions of Python and numpy, the size and time of each of pyarrow's compiled
files (read where they lie: a call that takes its qrels from here need not import pyarrow), and whether the
compiled kernels are taken. Nothing else goes into building the judgments (the reading rules of qrels have no
option; ``--iprob``, ``--rel-min`` and the measures are applied to the loaded object, and what they
derive is kept under keys that name them). A reader with rules of its own (``divaleval ndeval``'s, which reads
as ndeval does) keeps its entries under names of their own (``variant``). Entries are never updated in place: a call that derived
something new writes the whole entry again under a temporary name and renames it over the old one, so
readers see an entry whole or not at all, whoever else writes at the same time. An entry is read only
whole: its length and its check sums (:func:`_word_sums`) must match its header, else it is ignored (never a
wrong number), as is one that cannot be unpickled. The arrays' bytes lie after the pickle (protocol 5's
out-of-band buffers, each aligned), so that the arrays read back are views of the memory the entry was read
into, not copies (unpickling takes a millisecond whatever their size). Only entries the current user owns are read,
since unpickling runs code (a cache shared between users is one they can all write, so it is not
trusted). A directory that cannot be written (read-only, full) is only read; nothing about the cache ever stops an evaluation or
changes a byte of its output.

The bytes' hash is taken from a memo instead (hashing 70 MB is 40-50 ms) for a regular file read where it
lies (standard input's and compressed files' copies are hashed every call): ``files/DEV-INODE`` holds the
file's device, inode, size, and modification and change times to the nanosecond (``fstat`` of the file
once opened), with the key its bytes hashed to, and a call that finds the five the same takes that key
without reading the file. That rests on POSIX: every write to a file's data sets both its times to the
current time; no user can set the change time (``touch -d``, ``utime``, ``cp -p`` and ``rsync -t`` set
the modification time, and that sets the change time to now); a file renamed into place is another
inode (and one given a deleted file's inode number was made, so changed, after that file's memo). One
gap is left, the tick of the filesystem's clock (a second on some): a write in the tick the times were
read in may leave them as they were (git's "racily clean" files). So a memo is recorded only when both
times lie at least ``MARGIN_NS`` (3 s: two-second timestamps, and a file server's clock a second
behind ours) before the call began, and the five were the same after the hash as before; any later
write then moves the change time. A memo only leads to an entry: where its key names none that can be
read, the file is hashed again and the memo rewritten; one not whole (length, magic, CRC-32) or not
the current user's is no memo. For the same reason an entry is written only if the file shows the same
five after it was parsed (by path, after it was hashed) as before, and, written within the margin,
hashes the same again: judgments read from a file rewritten during the call are not kept under its old
bytes' key. ``DIVALEVAL_CACHE_STAT=0`` (or ``off``, or empty) hashes every call's bytes and trusts no
file's times, for filesystems that do not keep them as POSIX says (FAT's family, whose change time is
its modification time; some FUSE and object-store mounts) and for a file rewritten through a shared
memory map, whose times may lag the writes.

Where: ``$DIVALEVAL_CACHE`` if set to a directory (``0``, ``off`` or empty: no cache; ``1``, ``on``:
the usual place), else ``$XDG_CACHE_HOME/divaleval``, else ``~/.cache/divaleval``. Each entry is about the size of the arrays
(a few times smaller than the qrels file), each memo 72 bytes; remove the directory to reclaim the space.
``$DIVALEVAL_CACHE_STAT`` (``0``, ``off`` or empty) turns only the memos off.
"""
from __future__ import annotations

import mmap
import os
import pickle
import struct
import sys
import threading
import time
import weakref
import zlib
from dataclasses import dataclass
from queue import SimpleQueue
from stat import S_ISREG
from typing import BinaryIO, Callable

from ..io.qrels import read_qrels
from ..io.source import InputFile, read_input
from .qrels import Qrels, build_qrels

ENVIRONMENT = "DIVALEVAL_CACHE"
OFF = ("", "0", "off", "no", "false")
ON = ("1", "on", "yes", "true")  # (the usual place: not a directory named "1" wherever the call runs)
FORMAT = 3
MAGIC = b"DIVQRLS\x03"
# magic, length of what follows the header, its two check sums (_word_sums), pickle's length, number of out-of-band
# buffers; then each buffer's length (8 bytes each), the pickle, and the buffers, each starting at a multiple of
# ALIGN. (48 bytes: what follows starts on a word.)
HEADER = struct.Struct("<8sQQQQQ")
LENGTH = struct.Struct("<Q")
ALIGN = 64                       # (numpy wants its items aligned; 64 suits any dtype and cache lines)
HASH_BLOCK = 16 * 1024 * 1024    # the qrels are hashed in blocks of this size, by two threads
READ_BLOCK = 4 * 1024 * 1024     # a large entry is read in blocks of this size, each checked as the next is read
SUM_WORDS = 64 * 1024            # words summed at a time (the weights of one such stretch are kept)
WORD_MASK = (1 << 64) - 1
STAT_ENVIRONMENT = "DIVALEVAL_CACHE_STAT"  # (OFF: hash every call's bytes; not in _code_key: entries are the same)
# A memo (files/DEVICE-INODE): magic, the file's device, inode, size, modification and change times (ns), the
# key its bytes hashed to (20 bytes); then the CRC-32 of all that.
MEMO = struct.Struct("<8sQQQqq20s")
MEMO_MAGIC = b"DIVSTAT\x01"
CRC = struct.Struct("<I")
# How long before a call a file's times must lie for its memo to be recorded: timestamps as coarse as 1 s (ext3,
# HFS+, some network filesystems) or 2 s (FAT), plus a file server's clock a second behind ours.
MARGIN_NS = 3_000_000_000
_clock = time.time_ns  # (a module global, so that tests can let time pass)


@dataclass(frozen=True)
class Entry:
    """Where a loaded qrels' entry lives, and what it held when read or written (None: no entry yet)."""

    path: str
    held: frozenset | None


@dataclass(frozen=True)
class DiskFile:
    """A regular file read where it lies, as opened before it was hashed (what the stat memo needs)."""

    path: str
    handle: BinaryIO
    signature: tuple[int, int, int, int, int]  # device, inode, size, modification and change times (ns)
    settled: bool  # both times at least MARGIN_NS before the call: see _open_file


# The entry of each qrels object loaded through the cache (weakly: the object's lifetime bounds it).
_entries: "weakref.WeakKeyDictionary[Qrels, Entry]" = weakref.WeakKeyDictionary()


def cache_directory() -> str | None:
    """The cache's directory, or None when the cache is turned off (``DIVALEVAL_CACHE=0``). (Paths here are
    plain strings: pathlib's imports are 4 ms of every call.)"""
    chosen = os.environ.get(ENVIRONMENT)
    if chosen is not None and chosen.strip().lower() not in ON:
        return None if chosen.strip().lower() in OFF else os.path.expanduser(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "divaleval")


def read_and_build(source: InputFile) -> Qrels:
    """Intentwise qrels by divaleval's own reading rules."""
    return build_qrels(read_qrels(source))


def load_qrels(source: str | InputFile, build: Callable[[InputFile], Qrels] = read_and_build,
               variant: str = "") -> Qrels:
    """The qrels of ``source`` in array form: from the cache when an entry holds them, else read and built
    (and kept for the next call). The result is the same object either way, value for value.

    build: how the file becomes qrels; one with rules of its own names them in ``variant`` (letters), which
    keeps its entries apart from those of every other reading of the same bytes.
    """
    directory = cache_directory()
    if isinstance(source, str):
        source = read_input(source)
    if directory is None:
        return build(source)
    code = _code_key() + (f"-{variant}" if variant else "")
    file = _open_file(source)
    try:
        if file is None:
            key = _content_key(source)
        else:
            remembered = _recall(directory, file.signature)
            if remembered is not None:
                path = _entry_path(directory, remembered, code)
                qrels = _read_entry(path)
                if qrels is not None:
                    return _taken(qrels, path, source)
            # No memo, or its key names no entry (the file is about to be read anyway): hashed and the memo made again,
            # so that a memo is only ever a way to an entry that exists, which bounds what a wrong one could do.
            key = _file_key(file.handle)
            if (key != remembered and file.settled
                    and _signature(os.fstat(file.handle.fileno())) == file.signature):  # (unchanged while hashed)
                _remember(directory, file.signature, key)
        path = _entry_path(directory, key, code)
        qrels = _read_entry(path)
        if qrels is not None:
            return _taken(qrels, path, source)
        qrels = build(source)
        if file is None or _parsed_as_hashed(file, key):
            _entries[qrels] = Entry(path, None)
            store(qrels)
        return qrels
    finally:
        if file is not None:
            file.handle.close()


def _taken(qrels: Qrels, path: str, source: InputFile) -> Qrels:
    """Qrels read from their entry, named as this call's input."""
    # The same bytes may lie under another name: messages name this one (the forms at a --rel-min too).
    for held in [qrels, *qrels.cache.values()]:
        if isinstance(held, Qrels):
            held.name = source.name
    _entries[qrels] = Entry(path, _derived(qrels))
    return qrels


def _entry_path(directory: str, key: str, code: str) -> str:
    return os.path.join(directory, f"{key}-{code}.qrels")


def _open_file(source: InputFile) -> DiskFile | None:
    """The input's file opened, where the stat memo may stand in for hashing its bytes: a regular file read where
    it lies (a stream's or a decompressed file's copy is hashed, as the decompression costs far more anyway),
    unless ``DIVALEVAL_CACHE_STAT`` turns the memo off. None otherwise, or where it cannot be opened (its reading
    says why)."""
    path = source.on_disk
    if path is None or os.environ.get(STAT_ENVIRONMENT, "1").strip().lower() in OFF:
        return None
    now = _clock()  # (before the file's times are taken: a write after this reads as later than the margin)
    try:
        # Opened, then fstat: the times are those of the file whose bytes are hashed (and NFS checks them at open).
        handle = open(path, "rb", buffering=0)
    except OSError:
        return None
    try:
        status = os.fstat(handle.fileno())
    except OSError:
        status = None
    if status is None or not S_ISREG(status.st_mode):
        handle.close()
        return None
    # A timestamp is only as fine as its filesystem's clock: a write in the same tick as the times seen here would
    # leave them as they are. A file whose times are MARGIN_NS old at least ("settled") has no write in that tick
    # still to come, so any later write moves its change time; one written just now ("racily clean", in git's
    # words) may still be rewritten unseen, and its memo is not recorded.
    settled = max(status.st_mtime_ns, status.st_ctime_ns) < now - MARGIN_NS
    return DiskFile(path, handle, _signature(status), settled)


def _signature(status: os.stat_result) -> tuple[int, int, int, int, int]:
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns


def _memo_path(directory: str, signature: tuple[int, ...]) -> str:
    return os.path.join(directory, "files", f"{signature[0]}-{signature[1]}")


def _recall(directory: str, signature: tuple[int, int, int, int, int]) -> str | None:
    """The key of the file's memo, if the memo is ours, whole and of this very signature; else None."""
    try:
        with open(_memo_path(directory, signature), "rb", buffering=0) as handle:
            if os.fstat(handle.fileno()).st_uid != os.getuid():
                return None  # (someone else's memo could point us at an entry of other bytes)
            data = handle.read(MEMO.size + CRC.size + 1)
    except (OSError, AttributeError):  # (no os.getuid on Windows)
        return None
    if len(data) != MEMO.size + CRC.size or CRC.unpack_from(data, MEMO.size)[0] != zlib.crc32(data[:MEMO.size]):
        return None
    magic, *fields, digest = MEMO.unpack_from(data)
    return digest.hex() if magic == MEMO_MAGIC and tuple(fields) == signature else None


def _remember(directory: str, signature: tuple[int, int, int, int, int], key: str) -> None:
    """Record the file's memo (nothing where the directory cannot be written)."""
    try:
        memo = MEMO.pack(MEMO_MAGIC, *signature, bytes.fromhex(key))
    except (struct.error, ValueError):
        return
    _write_file(_memo_path(directory, signature), [memo, CRC.pack(zlib.crc32(memo))])


def _parsed_as_hashed(file: DiskFile, key: str) -> bool:
    """Whether the bytes just parsed (read again, by path) are those hashed, so that an entry may be written: the
    path still names the file opened, with the same signature (no write since it was opened, bar one in the same
    timestamp tick), and a file not settled hashes the same again (that tick's write). A file rewritten during
    the call gets no entry: its new judgments must not be kept under its old bytes' key."""
    try:
        if _signature(os.stat(file.path)) != file.signature:
            return False
    except OSError:
        return False
    return file.settled or _file_key(file.handle) == key


def store(qrels: Qrels) -> None:
    """Write the entry of qrels loaded through the cache again if they now hold derived quantities their
    entry lacks (after an evaluator computed its ideal rankings); nothing for other judgments."""
    entry = _entries.get(qrels) if isinstance(qrels, Qrels) else None
    if entry is None or (entry.held is not None and entry.held >= _derived(qrels)):
        return
    held = _write_entry(entry.path, qrels)
    if held is not None:
        _entries[qrels] = Entry(entry.path, held)


def _content_key(source: InputFile) -> str:
    """The key of the input's bytes: see :func:`_digest`."""
    with source.mapped() as data:
        return _digest(data)


def _file_key(handle: BinaryIO) -> str:
    """The key of an open regular file's bytes (mapped, not copied): the same as :func:`_content_key`'s."""
    if os.fstat(handle.fileno()).st_size == 0:
        return _digest(b"")  # (an empty file cannot be mapped)
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        return _digest(mapped)


def _digest(data: bytes | mmap.mmap) -> str:
    """SHA-256 of the bytes (two halves hashed by two threads: hashlib lets go of the GIL), hex."""
    import hashlib  # (where hashing is done: OpenSSL's load is 4 ms of a call with the cache off)

    size = len(data)
    view = memoryview(data)
    try:
        blocks = [view[start:start + HASH_BLOCK] for start in range(0, len(view), HASH_BLOCK)] or [view]
        half = (len(blocks) + 1) // 2
        digests = [b"", b""]

        def hash_part(part: int, chosen: list) -> None:
            digest = hashlib.sha256()
            for block in chosen:
                digest.update(block)
            digests[part] = digest.digest()

        helper = threading.Thread(target=hash_part, args=(1, blocks[half:]))
        helper.start()
        hash_part(0, blocks[:half])
        helper.join()
        del blocks
    finally:
        view.release()
    return hashlib.sha256(b"%d:" % size + digests[0] + digests[1]).hexdigest()[:40]


_code: str | None = None


def _code_key() -> str:
    """What the code that builds and derives the judgments is: see the module's docstring."""
    global _code
    if _code is None:
        import numpy

        from .. import native

        package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        version = getattr(sys.modules.get(os.path.basename(package)), "__version__", "")  # (the package is imported)
        parts = [f"format {FORMAT}", version, sys.version, numpy.__version__, f"kernels {native.in_use()}"]
        parts += [f"{path} {size} {modified}" for path, size, modified in source_files()]
        parts += [f"pyarrow {name} {size} {modified}" for name, size, modified in arrow_build_files()]
        _code = _small_sha256("\n".join(sorted(parts)).encode())[:16]
    return _code


def arrow_build_files() -> list[tuple[str, int, int]]:
    """pyarrow's compiled files (its extension modules, and the Arrow libraries its wheels carry beside them), each
    with its size and modification time: which build of Arrow would read the qrels, without importing it (40-50 ms).
    A server (divaleval/server.py) stops when they change, as when divaleval's own do: the Arrow it has loaded
    would no longer be the one the code key names."""
    import importlib.util

    spec = importlib.util.find_spec("pyarrow")
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    found = []
    for folder in folders:
        with os.scandir(folder) as listing:
            for item in listing:
                if any(ending in item.name for ending in (".so", ".pyd", ".dylib")) and item.is_file():
                    status = item.stat()
                    found.append((item.name, status.st_size, status.st_mtime_ns))
    return sorted(found)


def source_files() -> list[tuple[str, int | None, int | None]]:
    """divaleval's source and compiled files, sorted by path, each with its size and modification time (None for
    both where it went while listed: an upgrade under way). A few hundred stat calls, about a millisecond; the
    cache's code key is made of them, and a server (divaleval/server.py) stops when they change."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    found = []
    folders = [package]
    while folders:
        with os.scandir(folders.pop()) as listing:
            for item in listing:
                if item.is_dir(follow_symlinks=False):
                    if item.name != "__pycache__":
                        folders.append(item.path)
                elif item.name.endswith((".py", ".so", ".pyd", ".c", ".h")):
                    try:
                        status = item.stat()
                    except OSError:
                        found.append((item.path, None, None))
                    else:
                        found.append((item.path, status.st_size, status.st_mtime_ns))
    return sorted(found)


def _small_sha256(data: bytes) -> str:
    """SHA-256 of a few kilobytes, hex, by CPython's own module where there is one: it loads in a fraction of a
    millisecond, where hashlib's OpenSSL, faster on the qrels' megabytes (:func:`_digest`), takes 4-5 ms of a
    call whose qrels' key came from a memo."""
    try:
        from _sha2 import sha256  # (CPython 3.12 and later)
    except ImportError:
        try:
            from _sha256 import sha256  # (CPython 3.11)
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def _read_entry(path: str) -> Qrels | None:
    """The qrels an entry holds, or None: no entry, not ours, or not whole (never a half-read object)."""
    try:
        with open(path, "rb", buffering=0) as handle:
            status = os.fstat(handle.fileno())
            if status.st_uid != os.getuid():
                return None
            # One read into memory that the arrays will be views of (never copied again), ALIGN-aligned as
            # the file lays them out (the compiled kernels read their words in place).
            import numpy

            memory = numpy.empty(status.st_size + ALIGN, dtype=numpy.uint8)
            skip = -memory.ctypes.data % ALIGN
            view = memoryview(memory)[skip:skip + status.st_size]
            found = _read_checked(handle, view) if len(view) >= HEADER.size else None
            if found is None or handle.read(1):
                return None  # (changed as it was read: only by someone who does not rename over it)
    except (OSError, AttributeError):  # (no os.getuid on Windows: no cache there)
        return None
    try:
        magic, length, first_sum, second_sum, pickled, count = HEADER.unpack_from(view)
        if (magic != MAGIC or len(view) - HEADER.size != length or found != (first_sum, second_sum)
                or LENGTH.size * count > length):
            return None  # (the header is not under the sums: a damaged count must not set a long loop going)
        at = HEADER.size + LENGTH.size * count
        lengths = [LENGTH.unpack_from(view, HEADER.size + LENGTH.size * k)[0] for k in range(count)]
        payload, at = view[at:at + pickled], at + pickled
        buffers = []
        for size in lengths:
            at = _aligned(at)
            buffers.append(view[at:at + size])
            at += size
        if at != len(view) or len(payload) != pickled:
            return None
        qrels = pickle.loads(payload, buffers=buffers)
    except Exception:  # a damaged entry is a missing one
        return None
    return qrels if isinstance(qrels, Qrels) else None


def _read_checked(handle, view: memoryview) -> tuple[int, int] | None:
    """Fill ``view`` (at least a header long) from ``handle``; the check sums of what follows the header
    (:func:`_word_sums`), or None where the file ends first.

    A large entry is read in blocks by a helper thread while this one sums the blocks already read (reading
    and numpy's sums both let go of the GIL): the two take about as long as the longer of them, not as long
    as both.
    """
    if len(view) < 2 * READ_BLOCK:
        return _word_sums(view[HEADER.size:]) if _read_whole(handle, view) else None
    blocks: SimpleQueue = SimpleQueue()  # the end of each block read, in order; then None

    def read_blocks() -> None:
        try:
            for start in range(0, len(view), READ_BLOCK):
                end = min(start + READ_BLOCK, len(view))
                if not _read_whole(handle, view[start:end]):
                    return
                blocks.put(end)
        except OSError:
            return  # (what was read falls short: no entry)
        finally:
            blocks.put(None)

    reader = threading.Thread(target=read_blocks, name="divaleval-cache-read", daemon=True)
    reader.start()
    sums, checked, read = (0, 0), HEADER.size, HEADER.size
    while (end := blocks.get()) is not None:
        read = end
        whole = end - (end - HEADER.size) % 8  # (whole words: a word cut by the block's end waits for the next)
        sums = _word_sums(view[checked:whole], (checked - HEADER.size) // 8, sums)
        checked = whole
    reader.join()
    if read != len(view):
        return None
    return _word_sums(view[checked:], (checked - HEADER.size) // 8, sums)


def _word_sums(data, first: int = 0, sums: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """The check sums of an entry's bytes after its header, carried on from ``sums`` (those of the ``first``
    words before ``data``): the bytes read as 64-bit little-endian words, the last one padded with zero bytes;
    the first sum adds the words, the second each word times its place (1, 2, 3, ...), both modulo 2**64.

    Any change to one word changes the first sum; changes to two words that cancel there change the second
    unless their difference times their distance is a multiple of 2**64. (The entry's CRC-32 took about 20 ms
    a call on the benchmark's 20 MB entry; numpy takes these sums at memory speed, a few ms.)
    """
    import numpy

    whole = len(data) - len(data) % 8
    words = numpy.frombuffer(data[:whole], dtype="<u8")
    weights = numpy.arange(1, min(SUM_WORDS, len(words)) + 1, dtype=numpy.uint64)
    first_sum, second_sum = sums
    for start in range(0, len(words), SUM_WORDS):
        stretch = words[start:start + SUM_WORDS]
        total = int(stretch.sum())  # (numpy's sums of uint64 arrays wrap around modulo 2**64, silently)
        first_sum += total
        second_sum += int(numpy.dot(stretch, weights[:len(stretch)])) + (first + start) * total
    if whole < len(data):
        last = int.from_bytes(bytes(data[whole:]), "little")
        first_sum += last
        second_sum += (first + len(words) + 1) * last
    return first_sum & WORD_MASK, second_sum & WORD_MASK


def _read_whole(handle, view: memoryview) -> bool:
    """Fill ``view`` from ``handle``; False where the file ends first."""
    at = 0
    while at < len(view):
        count = handle.readinto(view[at:])
        if not count:
            return False
        at += count
    return True


def _write_entry(path: str, qrels: Qrels) -> frozenset | None:
    """Write the entry whole (a temporary file renamed over the old one); the derived quantities written,
    or None where it could not be written (a read-only or full directory: the cache is only read)."""
    try:
        snapshot = _snapshot(qrels)
        held = _derived(snapshot)
        out_of_band: list[pickle.PickleBuffer] = []
        payload = pickle.dumps(snapshot, protocol=5, buffer_callback=out_of_band.append)
        buffers = [buffer.raw() for buffer in out_of_band]  # (contiguous: numpy and Arrow give only such)
    except Exception:  # something derived that does not pickle: not kept
        return None
    parts = [b"".join(LENGTH.pack(buffer.nbytes) for buffer in buffers), payload]
    at = HEADER.size + len(parts[0]) + len(payload)
    for buffer in buffers:
        parts.append(bytes(_aligned(at) - at))
        parts.append(buffer)
        at = _aligned(at) + buffer.nbytes
    body = b"".join(parts)
    header = HEADER.pack(MAGIC, len(body), *_word_sums(body), len(payload), len(buffers))
    return held if _write_file(path, [header, body]) else None


def _write_file(path: str, parts: list) -> bool:
    """Write a file whole: a temporary file renamed over ``path``, so that readers see it whole or not at all.
    False where it could not be written (a read-only or full directory)."""
    import tempfile  # (only to write: 5 ms of imports a call otherwise)

    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                for part in parts:
                    out.write(part)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return False
    return True


def _aligned(offset: int) -> int:
    """The first multiple of ALIGN from ``offset`` on: where an out-of-band buffer starts."""
    return -(-offset // ALIGN) * ALIGN


def _derived(qrels: Qrels) -> frozenset:
    """What the qrels hold: their attributes (with the cached properties computed, such as the table of judged
    pairs) and the keys of their cache."""
    return frozenset(qrels.__dict__) | frozenset(qrels.cache)


def _snapshot(qrels: Qrels) -> Qrels:
    """A shallow copy to pickle: its attributes and cache copied at once (each dict copy is atomic), so that
    a reader thread deriving something at the same time changes neither while it is written."""
    snapshot = object.__new__(type(qrels))
    snapshot.__dict__.update(dict(qrels.__dict__))
    snapshot.cache = dict(qrels.cache)
    return snapshot
