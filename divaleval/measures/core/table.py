"""The table of measure families, by canonical name: a leaf that imports nothing of measures/ but its index.

:mod:`.registry` fills it (``@measure``) and resolves typed names against it;
:mod:`.definition` reads it back when a definition is unpickled (a definition
travels to a worker process by name). Keeping the table here, below both, is
what lets each import it without importing the other.

The table is lazy: the names are those of the index (:mod:`.index`, written by
:mod:`.indexer` from what the modules register), so that a name is known, and its
family found, without importing every measure module. Asking for a family imports
the one module that registers it; an evaluation of the ndeval set imports the
novelty measures, MAP-IA, P-IA and strec, and none of the NCU family's, the
multi-aspect or the preference measures (or their helpers).
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from .index import MODULES

if TYPE_CHECKING:
    from .definition import MeasureDef

PACKAGE = "divaleval.measures"  # the index names modules below it


class Catalogue(Mapping[str, "MeasureDef"]):
    """Every measure family, by canonical name.

    ``name in catalogue``, iterating over the names and ``len`` read the index alone;
    ``catalogue[name]`` imports the module that registers ``name`` if it is not yet
    imported; ``values()`` and ``items()`` so import every measure module.
    """

    def __init__(self, index: dict[str, str]) -> None:
        # family -> the module (below divaleval.measures) whose import registers it: the index's families, then
        # any registered outside it (by a module of the user's own, say), which is found once registered
        self.modules = dict(index)
        self.registered: dict[str, MeasureDef] = {}  # the families of the modules imported so far
        self.registered_by: dict[str, str] = {}  # family -> the module whose import registered it (for the indexer)

    def add(self, definition: MeasureDef, module: str) -> None:
        """Register ``definition``, as ``module``'s import does."""
        if definition.name in self.registered:
            raise RuntimeError(f"measure {definition.name} registered twice")
        self.registered[definition.name] = definition
        self.registered_by[definition.name] = module
        self.modules.setdefault(definition.name, module)

    def __getitem__(self, name: str) -> MeasureDef:
        found = self.registered.get(name)
        if found is None:
            importlib.import_module(f"{PACKAGE}.{self.modules[name]}")  # an unknown name: KeyError, as a dict's
            found = self.registered[name]
        return found

    def __contains__(self, name: object) -> bool:
        return name in self.modules

    def __iter__(self) -> Iterator[str]:
        return iter(self.modules)

    def __len__(self) -> int:
        return len(self.modules)


REGISTRY = Catalogue(MODULES)


def registered(name: str) -> MeasureDef:
    """The family registered as ``name`` (exactly)."""
    return REGISTRY[name]
