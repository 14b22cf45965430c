"""Giving memory back to the system after a large input, so that peak memory stays near what is held; and how the
C library's heaps are kept and backed.

Arrow's allocator and the C library's both keep freed memory for reuse: after
the qrels are parsed, a few hundred MB of parser buffers and temporaries would
otherwise stay resident beside the few MB the evaluation keeps.
"""
from __future__ import annotations

import ctypes
import importlib
import sys

_libc = None
try:
    try:
        _libc = ctypes.CDLL("libc.so.6")  # glibc, by its usual name (find_library runs ldconfig: milliseconds)
    except OSError:
        import ctypes.util  # (14 ms to import: subprocess, tempfile... only where libc.so.6 is not found)

        _libc = ctypes.CDLL(ctypes.util.find_library("c"))
    _trim = _libc.malloc_trim  # glibc only
except (OSError, AttributeError, TypeError):
    _trim = None


def release_unused_memory() -> None:
    """Return the freed memory Arrow's pool and (with glibc) the C heap keep."""
    if "pyarrow" in sys.modules:  # (a call that never imported Arrow has nothing in its pool)
        # Imported again rather than taken from sys.modules: another thread may be importing it (a reader thread
        # meeting the first text Arrow handles), and the import waits for that to end where sys.modules would
        # hand over the module half made.
        importlib.import_module("pyarrow").default_memory_pool().release_unused()
    if _trim is not None:
        _trim(0)


M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3   # glibc's mallopt parameters
HEAP_BLOCKS_UP_TO = 32 * 1024 * 1024           # the largest threshold glibc's own dynamic rule reaches (64-bit)


def keep_large_blocks_in_heap() -> None:
    """Keep blocks up to 32 MB in the heap, and the heap's free top up to 64 MB, as glibc's dynamic rule
    does by default once a program frees large blocks; and keep 64 MB spare at the top of every heap.

    Dask's nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_`` set, which
    turns that rule off: every array over 128 KB is then mapped and unmapped
    afresh, and the heap is given back and taken again, so that scoring a run
    takes about 45% more CPU time. The spare top matters for the threads that
    score runs: each has a heap (an arena) of its own, which glibc otherwise
    gives back as soon as a run's arrays are freed and maps afresh for the next
    run (with many measures, a quarter of a million page faults for 50 runs,
    and 7% of the time).
    """
    if _libc is not None and hasattr(_libc, "mallopt"):
        _libc.mallopt(M_MMAP_THRESHOLD, HEAP_BLOCKS_UP_TO)
        _libc.mallopt(M_TRIM_THRESHOLD, 2 * HEAP_BLOCKS_UP_TO)
        _libc.mallopt(M_TOP_PAD, 2 * HEAP_BLOCKS_UP_TO)


MADV_HUGEPAGE = 14                     # Linux's madvise advice
THREAD_HEAP_BYTES = 64 * 1024 * 1024   # glibc's reserve for a thread's heap (64-bit), placed at a multiple of it
_HEAPS_ADVISABLE = sys.platform.startswith("linux") and _trim is not None and sys.maxsize > 2**32  # (glibc, 64-bit)
if _HEAPS_ADVISABLE:
    _libc.malloc.restype = ctypes.c_void_p
    _libc.free.argtypes = [ctypes.c_void_p]
    _libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def advise_huge_pages_for_this_thread() -> None:
    """Ask Linux for transparent huge pages on this thread's heap, in a thread started to read and score runs.

    glibc gives each such thread a heap (an arena) of its own: 64 MB reserved at a multiple of 64 MB, made usable
    as it grows. A run's arrays are first touched there, and each new 4 KB page is a page fault: more than half of
    a call's faults on the benchmark, a tenth of its time. Advised, the heap is given 2 MB pages where the kernel
    allows (``/sys/kernel/mm/transparent_hugepage/enabled``: ``madvise`` or ``always``): a call of one run went
    from 17,000 faults to 7,800. The advice only ever changes which pages back the memory, never what it holds:
    where the block malloc gives lies elsewhere (the main heap), at worst another range is advised, or none. Only
    with glibc on 64-bit Linux; elsewhere nothing is done.
    """
    if not _HEAPS_ADVISABLE:
        return
    block = _libc.malloc(64)
    if not block:
        return
    heap = block - block % THREAD_HEAP_BYTES
    _libc.free(block)
    _libc.madvise(heap, THREAD_HEAP_BYTES, MADV_HUGEPAGE)
