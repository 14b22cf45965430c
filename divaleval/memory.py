"""Giving memory back to the system after a large input, so that peak memory stays near what is held.

Arrow's allocator and the C library's both keep freed memory for reuse: after
the qrels are parsed, a few hundred MB of parser buffers and temporaries would
otherwise stay resident beside the few MB the evaluation keeps.
"""
from __future__ import annotations

import ctypes
import ctypes.util

import pyarrow as pa

_libc = None
try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _trim = _libc.malloc_trim  # glibc only
except (OSError, AttributeError):
    _trim = None


def release_unused_memory() -> None:
    """Return the freed memory Arrow's pool and (with glibc) the C heap keep."""
    pa.default_memory_pool().release_unused()
    if _trim is not None:
        _trim(0)
