"""Names imported when first asked for: a package's names from their modules (PEP 562's module ``__getattr__``),
and pyarrow itself.

divaleval.io and divaleval.model name their readers and classes in the package, as users import them
(``from divaleval.io import read_run``), yet a call that needs one module must not load them all.

pyarrow takes 40-50 ms to import, and a call that reads its qrels from the cache and its run with the
compiled reader never calls it: the modules on that path name it ``pa`` through :data:`pyarrow` below,
which imports it on the first attribute asked for.
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


class LazyModule:
    """A module imported on the first attribute asked of it; each attribute is then kept on this object, so
    that the next lookup is an instance attribute's (the import lock makes a first use from two threads safe)."""

    def __init__(self, name: str) -> None:
        self._module_name = name

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(importlib.import_module(self._module_name), attribute)
        setattr(self, attribute, value)
        return value

    def __repr__(self) -> str:
        return f"<module {self._module_name!r}, imported on first use>"


pyarrow = LazyModule("pyarrow")
