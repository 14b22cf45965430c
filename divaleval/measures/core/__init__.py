"""The machinery every measure uses.

* :mod:`.definition`: parameters, measure families and bound measures;
* :mod:`.registry`: the families by name, and how typed names find them (the table itself is
  a leaf, :mod:`.table`, which :mod:`.definition` reads without importing the registry; it imports
  a measure module when a family of it is first asked for, from :mod:`.index`, which
  :mod:`.indexer` writes);
  :mod:`.aliases`: other tools' names; :mod:`.parse`: ``-m`` syntax; :mod:`.sets`: named sets;
* :mod:`.kernels`: helpers kernels share; :mod:`.cache`: the one cache of derived quantities.
"""
from .aliases import ALIASES, Alias
from .cache import memoised
from .definition import (
    ASPECTS,
    EFFORT,
    INTENTS,
    NONE,
    OPTIONAL,
    PREFERENCES,
    REQUIRED,
    Measure,
    MeasureDef,
    Param,
    in_open_unit_interval,
    in_unit_interval,
    non_negative,
    positive,
)
from .parse import parse_measure, parse_measures, split_measure_list
from .registry import REGISTRY, catalogue, closest_names, measure, resolve
from .sets import ALL_CUTOFFS, DEFAULT_SET, MEASURE_SETS, NDEVAL_SET, describe_sets, expand_set

__all__ = [
    "ALIASES", "Alias", "memoised", "ASPECTS", "EFFORT", "INTENTS", "NONE", "OPTIONAL", "PREFERENCES", "REQUIRED",
    "Measure", "MeasureDef", "Param", "in_open_unit_interval", "in_unit_interval", "non_negative", "positive",
    "parse_measure", "parse_measures", "split_measure_list", "REGISTRY", "catalogue", "closest_names", "measure",
    "resolve", "ALL_CUTOFFS", "DEFAULT_SET", "MEASURE_SETS", "NDEVAL_SET", "describe_sets", "expand_set",
]
