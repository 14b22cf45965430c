"""Writes the catalogue's index (:mod:`.index`): which module registers each measure family.

The index is what the measure modules register, read from them: this module imports
every module of divaleval.measures (but core's) and notes, for each family, the module
whose import registered it (:meth:`.table.Catalogue.add`). Run
``python -m divaleval.measures.core.indexer`` after adding, renaming or moving a family
and commit the index; tests/test_catalogue.py fails while the committed one is stale.
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

from .table import PACKAGE, REGISTRY

INDEX = Path(__file__).with_name("index.py")


def measure_modules() -> list[str]:
    """Every module below divaleval.measures but core's (named below it), in the order the package is walked."""
    package = importlib.import_module(PACKAGE)
    return [info.name.removeprefix(f"{PACKAGE}.")
            for info in pkgutil.walk_packages(package.__path__, f"{PACKAGE}.")
            if not info.name.startswith(f"{PACKAGE}.core")]


def registered_modules() -> dict[str, str]:
    """Every family the measure modules register, with the module whose import registers it: the modules in
    the order walked, each one's families in the order it registers them (this imports every module)."""
    modules = measure_modules()
    for module in modules:
        importlib.import_module(f"{PACKAGE}.{module}")
    return {name: module for module in modules
            for name, registrant in REGISTRY.registered_by.items() if registrant == module}


def index_source(modules: dict[str, str]) -> str:
    """The text of index.py for ``modules`` (family -> module)."""
    lines = [
        '"""Which module (below divaleval.measures) registers each measure family: the modules in package order,',
        "each one's families in the order it registers them.",
        "",
        "Written by :mod:`.indexer` (``python -m divaleval.measures.core.indexer``): do not edit.",
        '"""',
        "MODULES: dict[str, str] = {",
        *(f"    {json.dumps(name)}: {json.dumps(module)}," for name, module in modules.items()),
        "}",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Write index.py from what the modules register now."""
    text = index_source(registered_modules())
    if INDEX.read_text(encoding="utf-8") != text:
        INDEX.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {INDEX}\n")


if __name__ == "__main__":
    main()
