"""Output formats: ndeval CSV, trec_eval lines, tables, JSON lines.

The names are imported when first asked for: the writers' module imports the measure catalogue, which
a drop-in command that prints its own text (``divaleval gdeval``) imports a submodule of this package
without needing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .formatting import c_fixed
    from .writers import FORMATS, make_writer

__all__ = ["FORMATS", "c_fixed", "make_writer"]


def __getattr__(name: str):
    if name == "c_fixed":
        from .formatting import c_fixed
        return c_fixed
    if name in ("FORMATS", "make_writer"):
        from . import writers
        return getattr(writers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
