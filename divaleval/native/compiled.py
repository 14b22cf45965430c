"""The compiled extension (``_kernels``, built from the C files beside this module) and its switch.

Only the modules of divaleval/native call it. A kernel is looked up by name on
every call, so that ``DIVALEVAL_NATIVE=0`` turns every kernel off at once (the
tests turn them on and off around a call) and a build without one of them
(its C function and its line of module.c dropped) only loses that kernel's
speed. A kernel whose bits depend on how this numpy computes (a sum's order,
a rounding) is given a probe: it is taken only once the probe has found it
giving its numpy twin's bits (asked once a process).
"""
from __future__ import annotations

import os
from types import ModuleType
from typing import Callable

try:
    from . import _kernels as _built
except ImportError:  # installed without a C compiler
    _built = None

ENVIRONMENT = "DIVALEVAL_NATIVE"

Probe = Callable[[Callable], bool]
_probes: dict[str, Probe] = {}
_agrees: dict[str, bool] = {}


def kernels() -> ModuleType | None:
    """The compiled kernels, or None when they are not built or are turned off (``DIVALEVAL_NATIVE=0``)."""
    return _built if os.environ.get(ENVIRONMENT, "1") != "0" else None


def in_use() -> bool:
    """Whether the compiled kernels are taken in this process (built, and not turned off)."""
    return kernels() is not None


def built() -> bool:
    """Whether the compiled kernels were built (whatever ``DIVALEVAL_NATIVE`` says)."""
    return _built is not None


def probed(name: str) -> Callable[[Probe], Probe]:
    """Registers the decorated function as kernel ``name``'s probe: given the kernel, whether it gives its twin's
    bits."""
    def register(probe: Probe) -> Probe:
        _probes[name] = probe
        return probe
    return register


def kernel(name: str) -> Callable | None:
    """The compiled kernel ``name``, or None: not built, turned off, not in this build, or failing its probe."""
    compiled = kernels()
    function = getattr(compiled, name, None) if compiled is not None else None
    if function is None or name not in _probes:
        return function
    if name not in _agrees:
        _agrees[name] = bool(_probes[name](function))
    return function if _agrees[name] else None


def probe_all() -> None:
    """Ask every registered probe now (a server does, once, before it forks the calls that would each ask)."""
    for name in sorted(_probes):
        kernel(name)
