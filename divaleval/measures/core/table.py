"""The table of registered measure families, by canonical name: a leaf that imports nothing of measures/.

:mod:`.registry` fills it (``@measure``) and resolves typed names against it;
:mod:`.definition` reads it back when a definition is unpickled (a definition
travels to a worker process by name). Keeping the table here, below both, is
what lets each import it without importing the other.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .definition import MeasureDef

REGISTRY: dict[str, MeasureDef] = {}  # by canonical name


def registered(name: str) -> MeasureDef:
    """The family registered as ``name`` (exactly)."""
    return REGISTRY[name]
