"""Conventions of the reference tools that differ from divaleval's own, one tool per file.

* :mod:`.ndeval`: ``divaleval ndeval``, a drop-in command for ndeval 4.5;
* :mod:`.ntcireval`: NTCIREVAL's conventions, the ``--compat`` mode of that name;
* :mod:`.evalir`: evalIR's (nPrf, preference judgments), the ``--compat`` mode of that name.

A compatibility mode is a :class:`~divaleval.model.conventions.Conventions`
object registered in :data:`MODES`; the core consults the object, never a tool's name.
"""
from __future__ import annotations

from ..errors import UsageError
from ..model.conventions import NATIVE, Conventions
from .evalir import EVALIR
from .ntcireval import NTCIREVAL

MODES: dict[str, Conventions] = {mode.name: mode for mode in (NTCIREVAL, EVALIR)}


def conventions(mode: str | None) -> Conventions:
    """The conventions of a ``--compat`` mode (None: divaleval's own)."""
    if mode is None:
        return NATIVE
    if mode not in MODES:
        raise UsageError(f"unknown compatibility mode {mode!r} (known: {', '.join(MODES)})")
    return MODES[mode]
