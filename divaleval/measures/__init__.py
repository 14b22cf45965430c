"""The measure catalogue.

Every module of this package that defines a measure registers it with the
:func:`~divaleval.measures.base.measure` decorator; importing the package
imports them all, so a new measure needs only its own file.
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import REGISTRY, Measure, MeasureDef, Param, measure
from .parse import parse_measure, parse_measures
from .sets import DEFAULT_SET, MEASURE_SETS

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")


def catalogue() -> list[MeasureDef]:
    """Every registered measure family, by name."""
    return sorted(REGISTRY.values(), key=lambda d: d.name.lower())


__all__ = [
    "REGISTRY", "Measure", "MeasureDef", "Param", "measure", "parse_measure", "parse_measures",
    "DEFAULT_SET", "MEASURE_SETS", "catalogue",
]
