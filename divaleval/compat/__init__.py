"""Conventions of the reference tools that differ from divaleval's own, one tool per file.

* :mod:`.ndeval`: ``divaleval ndeval``, a drop-in command for ndeval 4.5;
* :mod:`.ntcireval`: NTCIREVAL's conventions, the ``--compat`` mode of that name;
* :mod:`.evalir`: evalIR's (nPrf, preference judgments), the ``--compat`` mode of that name.

A compatibility mode is a :class:`~divaleval.model.conventions.Conventions`
object registered in :data:`MODES`; the core consults the object, never a tool's name.

The modes are imported when first asked for (:data:`MODES` is built on first
access): the drop-in commands (``divaleval trec_eval``, ``gdeval``) live in
this package and need none of the model, whose import pulls in pandas
(a quarter of a second a call).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..model.conventions import Conventions

MODES: dict[str, Conventions]


def _modes() -> dict[str, Conventions]:
    from .evalir import EVALIR
    from .ntcireval import NTCIREVAL
    return {mode.name: mode for mode in (NTCIREVAL, EVALIR)}


def __getattr__(name: str):
    if name == "MODES":
        globals()["MODES"] = modes = _modes()
        return modes
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def conventions(mode: str | None) -> Conventions:
    """The conventions of a ``--compat`` mode (None: divaleval's own)."""
    if mode is None:
        from ..model.conventions import NATIVE
        return NATIVE
    modes = globals().get("MODES") or __getattr__("MODES")
    if mode not in modes:
        raise UsageError(f"unknown compatibility mode {mode!r} (known: {', '.join(modes)})")
    return modes[mode]
