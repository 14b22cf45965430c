"""The one cache of derived quantities: ``@memoised`` functions of an owner and hashable arguments.

An owner is anything with a ``cache`` dict: the judgments, of any kind
(:class:`~divaleval.model.judged.JudgedDocuments`: what depends only on them, such
as ideal rankings, computed once for every run), a :class:`~divaleval.context.RunContext` (what the measures of one
run share), or a gain list of the NCU family. The key is the memoised function
itself and its arguments, so two quantities can never collide on a name, and
the owner's lifetime bounds the cache's.
"""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

Result = TypeVar("Result")

# The quantities being computed, each with the event its computing thread sets when done: a second thread
# asking for one waits for it instead of computing it again (the evaluator warms up in two threads).
# Quantities depend on smaller ones only, so two threads never wait for each other.
_computing: dict = {}
_computing_lock = threading.Lock()


def memoised(compute: Callable[..., Result]) -> Callable[..., Result]:
    """``compute(owner, *args)`` computed once per owner and arguments, kept in ``owner.cache``."""

    @functools.wraps(compute)
    def cached(owner: Any, *args: Any) -> Result:
        key = (cached, *args)  # the wrapper, not ``compute``: it is what pickles by name
        try:
            return owner.cache[key]
        except KeyError:
            pass
        marker = (id(owner), key)
        with _computing_lock:
            if key in owner.cache:
                return owner.cache[key]
            running = _computing.get(marker)
            if running is None:
                done = _computing[marker] = threading.Event()
        if running is not None:
            running.wait()
            if key in owner.cache:
                return owner.cache[key]
            return compute(owner, *args)  # the other thread failed: its error is its own
        try:
            value = owner.cache[key] = compute(owner, *args)
            return value
        finally:
            with _computing_lock:
                del _computing[marker]
            done.set()

    return cached
