"""Qrels kept between calls: a content-keyed cache of the judgments in array form, with what was derived from them.

A grading script calls divaleval once per run, as people call trec_eval; every call would otherwise read
the same qrels again, build the same arrays, hash the same judged pairs and compute the same ideal
rankings. Here each call hashes the qrels' bytes instead (a few times cheaper than reading them) and, when
an earlier call left an entry for those bytes, takes the :class:`~divaleval.model.qrels.Qrels` from it,
with its :attr:`~divaleval.model.judged.JudgedDocuments.cache` of derived quantities (ideal rankings of
the measures asked for before, the table of judged pairs).

Why it can never be stale: an entry's name is the SHA-256 of the qrels' bytes (decompressed, as the
reader reads them) together with everything the arrays and the derived quantities depend on: the
format of the entry, divaleval's version and the size and time of every one of its source files (an
edited tree is another tree), the versions of Python, numpy and pyarrow, and whether the compiled
kernels are taken. Nothing else goes into building the judgments (the reading rules of qrels have no
option; ``--iprob``, ``--rel-min`` and the measures are applied to the loaded object, and what they
derive is kept under keys that name them). Entries are never updated in place: a call that derived
something new writes the whole entry again under a temporary name and renames it over the old one, so
readers see an entry whole or not at all, whoever else writes at the same time. An entry is read only
whole: its length and CRC-32 must match its header, else it is ignored (never a wrong number), as is
one that cannot be unpickled. The arrays' bytes lie after the pickle (protocol 5's out-of-band buffers,
each aligned), so that the arrays read back are views of the memory the entry was read into, not copies
(unpickling takes a millisecond whatever their size). Only entries the current user owns are read,
since unpickling runs code (a cache shared between users is one they can all write, so it is not
trusted). A directory that cannot be written (read-only, full) is only read; nothing about the cache ever stops an evaluation or
changes a byte of its output.

Where: ``$DIVALEVAL_CACHE`` if set (``0``, ``off`` or empty: no cache), else
``$XDG_CACHE_HOME/divaleval``, else ``~/.cache/divaleval``. Each entry is about the size of the arrays
(a few times smaller than the qrels file); remove the directory to reclaim the space.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import struct
import sys
import threading
import weakref
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..io.qrels import read_qrels
from ..io.source import InputFile, read_input
from .qrels import Qrels, build_qrels

ENVIRONMENT = "DIVALEVAL_CACHE"
OFF = ("", "0", "off", "no", "false")
FORMAT = 2
MAGIC = b"DIVQRLS\x02"
# magic, length of what follows the header, CRC-32 of it, pickle's length, number of out-of-band buffers; then
# each buffer's length (8 bytes each), the pickle, and the buffers, each starting at a multiple of ALIGN.
HEADER = struct.Struct("<8sQIQI")
LENGTH = struct.Struct("<Q")
ALIGN = 64                       # (numpy wants its items aligned; 64 suits any dtype and cache lines)
HASH_BLOCK = 16 * 1024 * 1024    # the qrels are hashed in blocks of this size, by two threads


@dataclass(frozen=True)
class Entry:
    """Where a loaded qrels' entry lives, and what it held when read or written (None: no entry yet)."""

    path: Path
    held: frozenset | None


# The entry of each qrels object loaded through the cache (weakly: the object's lifetime bounds it).
_entries: "weakref.WeakKeyDictionary[Qrels, Entry]" = weakref.WeakKeyDictionary()


def cache_directory() -> Path | None:
    """The cache's directory, or None when the cache is turned off (``DIVALEVAL_CACHE=0``)."""
    chosen = os.environ.get(ENVIRONMENT)
    if chosen is not None:
        return None if chosen.strip().lower() in OFF else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "divaleval"


def load_qrels(source: str | InputFile) -> Qrels:
    """The qrels of ``source`` in array form: from the cache when an entry holds them, else read and built
    (and kept for the next call). The result is the same object either way, value for value."""
    directory = cache_directory()
    if isinstance(source, str):
        source = read_input(source)
    if directory is None:
        return build_qrels(read_qrels(source))
    path = directory / f"{_content_key(source)}-{_code_key()}.qrels"
    qrels = _read_entry(path)
    if qrels is not None:
        # The same bytes may lie under another name: messages name this one (the forms at a --rel-min too).
        for held in [qrels, *qrels.cache.values()]:
            if isinstance(held, Qrels):
                held.name = source.name
        _entries[qrels] = Entry(path, _derived(qrels))
        return qrels
    qrels = build_qrels(read_qrels(source))
    _entries[qrels] = Entry(path, None)
    store(qrels)
    return qrels


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
    """SHA-256 of the input's bytes (two halves hashed by two threads: hashlib lets go of the GIL), hex."""
    with source.mapped() as data:
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
        import pyarrow

        from .. import native

        package = Path(__file__).resolve().parents[1]
        version = getattr(sys.modules.get(package.name), "__version__", "")  # (the package is imported)
        parts = [f"format {FORMAT}", version, sys.version, numpy.__version__, pyarrow.__version__,
                 f"kernels {native.in_use()}"]
        folders = [str(package)]
        while folders:  # (a few hundred stat calls: about a millisecond)
            with os.scandir(folders.pop()) as listing:
                for item in listing:
                    if item.is_dir(follow_symlinks=False):
                        if item.name != "__pycache__":
                            folders.append(item.path)
                    elif item.name.endswith((".py", ".so", ".pyd", ".c", ".h")):
                        stat = item.stat()
                        parts.append(f"{item.path} {stat.st_size} {stat.st_mtime_ns}")
        _code = hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()[:16]
    return _code


def _read_entry(path: Path) -> Qrels | None:
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
            if not _read_whole(handle, view) or handle.read(1):
                return None  # (changed as it was read: only by someone who does not rename over it)
    except (OSError, AttributeError):  # (no os.getuid on Windows: no cache there)
        return None
    try:
        magic, length, crc, pickled, count = HEADER.unpack_from(view)
        if (magic != MAGIC or len(view) - HEADER.size != length or zlib.crc32(view[HEADER.size:]) != crc
                or LENGTH.size * count > length):
            return None  # (the header is not under the CRC: a damaged count must not set a long loop going)
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


def _read_whole(handle, view: memoryview) -> bool:
    """Fill ``view`` from ``handle``; False where the file ends first."""
    at = 0
    while at < len(view):
        count = handle.readinto(view[at:])
        if not count:
            return False
        at += count
    return True


def _write_entry(path: Path, qrels: Qrels) -> frozenset | None:
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
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    header = HEADER.pack(MAGIC, at - HEADER.size, crc, len(payload), len(buffers))
    import tempfile  # (only to write: 5 ms of imports a call otherwise)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(header)
                for part in parts:
                    out.write(part)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return None
    return held


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
