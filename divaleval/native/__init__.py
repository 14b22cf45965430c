"""Compiled kernels (optional): splitting run files, matching docnos, printing numbers, the NCU sums.

``_kernels`` is built from ``_kernels.c`` when divaleval is installed where a C
compiler is found; where it is not built, or ``DIVALEVAL_NATIVE=0`` is set,
every caller takes its numpy and Arrow path instead. A kernel either gives
what that path gives, value for value, or declines (None) and leaves the input
to it: only the plain case is taken, and anything unusual, a bad line above
all, goes to the path that names its line. The tests hold both paths to the
same results.
"""
from __future__ import annotations

import os
from types import ModuleType

try:
    from . import _kernels as _built
except ImportError:  # installed without a C compiler
    _built = None

ENVIRONMENT = "DIVALEVAL_NATIVE"


def kernels() -> ModuleType | None:
    """The compiled kernels, or None when they are not built or are turned off (``DIVALEVAL_NATIVE=0``)."""
    return _built if os.environ.get(ENVIRONMENT, "1") != "0" else None


def built() -> bool:
    """Whether the compiled kernels were built (whatever ``DIVALEVAL_NATIVE`` says)."""
    return _built is not None
