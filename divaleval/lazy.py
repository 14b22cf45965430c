"""A package's names imported from their modules when first asked for (PEP 562's module ``__getattr__``).

divaleval.io and divaleval.model name their readers and classes in the package, as users import them
(``from divaleval.io import read_run``), yet a call that needs one module must not load them all.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


def lazy_names(package: str, sources: dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``name`` from its module ``sources[name]`` (relative to the package),
    kept in the package once imported."""
    def __getattr__(name: str) -> Any:
        if name not in sources:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{sources[name]}", package), name)
        setattr(sys.modules[package], name, value)  # asked for once
        return value

    return __getattr__
