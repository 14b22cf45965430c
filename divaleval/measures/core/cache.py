"""The one cache of derived quantities: ``@memoised`` functions of an owner and hashable arguments.

An owner is anything with a ``cache`` dict: the :class:`~divaleval.model.qrels.Qrels`
(what depends only on the judgments, such as ideal rankings: computed once for
every run), a :class:`~divaleval.context.RunContext` (what the measures of one
run share), or a gain list of the NCU family. The key is the memoised function
itself and its arguments, so two quantities can never collide on a name, and
the owner's lifetime bounds the cache's.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

Result = TypeVar("Result")


def memoised(compute: Callable[..., Result]) -> Callable[..., Result]:
    """``compute(owner, *args)`` computed once per owner and arguments, kept in ``owner.cache``."""

    @functools.wraps(compute)
    def cached(owner: Any, *args: Any) -> Result:
        key = (cached, *args)  # the wrapper, not ``compute``: it is what pickles by name
        try:
            return owner.cache[key]
        except KeyError:
            value = owner.cache[key] = compute(owner, *args)
            return value

    return cached
