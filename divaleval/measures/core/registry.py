"""The registry of measure families, and how a name a user types finds one.

A name resolves, in this order: exactly to a family; exactly to an alias (the
names ir_measures and trec_eval give the same measure, :mod:`.aliases`); then
case-insensitively, ``_`` and ``-`` alike, to one family or one alias' family
(``nrbp`` is ambiguous: ndeval's NRBP or NTCIREVAL's nRBP).

The table itself lives in :mod:`.table`, a leaf, so that :mod:`.definition`
(whose definitions travel to workers by name) reads it without importing this module.
Resolving a name reads the table's names (its index) and imports the one module that
registers the family found; :func:`catalogue` imports them all.
"""
from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from ...errors import UsageError
from .aliases import ALIASES, Alias
from .definition import INTENTS, MEAN, NONE, BindingCheck, MeasureDef, Param, QrelsCheck
from .table import PACKAGE, REGISTRY, registered

__all__ = ["REGISTRY", "registered", "measure", "catalogue", "lookup_key", "resolve", "closest_names"]


def measure(
    *,
    name: str,
    summary: str,
    citation: str,
    params: tuple[Param, ...] | list[Param] = (),
    cutoff: str = NONE,
    judgments: str = INTENTS,
    check_binding: BindingCheck | None = None,
    check_qrels: QrelsCheck | None = None,
    formula: str | None = None,
    binary: bool = False,
    aggregation: str = MEAN,
    separable: bool = False,
) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    """Register ``kernel`` as the measure family ``name``.

    formula: the definition, for the documentation; default the kernel's
    docstring (give it where one kernel serves two names).
    binary: the measure sees only whether a document is relevant (``--rel-min`` moves the threshold).
    aggregation: how its values over topics are summarised (:data:`~.definition.MEAN`,
    :data:`~.definition.GEOMETRIC_MEAN` or :data:`~.definition.SUM`; :mod:`divaleval.aggregate` computes them).
    separable: each topic's value, to the bit, whatever topics are scored with it (:class:`~.definition.MeasureDef`).
    """

    def register(kernel: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        REGISTRY.add(MeasureDef(
            name=name, summary=summary, params=tuple(params), cutoff=cutoff, citation=citation, kernel=kernel,
            doc=formula or (kernel.__doc__ or "").strip(), judgments=judgments, check_binding=check_binding,
            check_qrels=check_qrels, binary=binary, aggregation=aggregation,
            separable=separable,
        ), _importing_module())
        return kernel

    return register


def _importing_module() -> str:
    """The module whose top-level code is running, below divaleval.measures: a family belongs to the module
    whose import registers it, wherever the call is written (the D-, D#- and IA- forms are registered in loops,
    the DIN- forms by intent_types.py calling a function of diversity.py)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    module = frame.f_globals.get("__name__", "") if frame is not None else ""
    return module.removeprefix(f"{PACKAGE}.")


def catalogue() -> list[MeasureDef]:
    """Every measure family, by name (this imports every measure module)."""
    return sorted(REGISTRY.values(), key=lambda d: d.name.lower())


def lookup_key(name: str) -> str:
    return name.lower().replace("_", "-")


def resolve(name: str) -> tuple[MeasureDef, Alias | None]:
    """The family ``name`` stands for, and the alias it was spelt as (None for divaleval's own name).

    An unknown or ambiguous name is a :class:`UsageError` (the caller says which text it was).
    """
    alias = next((a for a in ALIASES if a.name == name), None)
    if name in REGISTRY:
        return REGISTRY[name], alias if alias is not None and alias.target == name else None
    if alias is not None:
        return REGISTRY[alias.target], alias
    key = lookup_key(name)
    families = {family for family in REGISTRY if lookup_key(family) == key}  # (names: nothing imported)
    if len(families) > 1:
        raise UsageError(f"ambiguous name: {' or '.join(sorted(families))} (case matters)")
    if families:
        family = REGISTRY[families.pop()]
        return family, next((a for a in ALIASES if lookup_key(a.name) == key and a.target == family.name), None)
    aliases = [a for a in ALIASES if lookup_key(a.name) == key]
    if len({a.target for a in aliases}) == 1:
        return REGISTRY[aliases[0].target], aliases[0]
    close = closest_names(name)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise UsageError(f"unknown measure ({hint}see --list-measures)")


def closest_names(name: str, count: int = 3) -> list[str]:
    """Names of families and aliases that look most like ``name``."""
    import difflib  # (here: only a misspelt name needs it)

    names = [*REGISTRY, *(a.name for a in ALIASES)]
    by_key = {}
    for known in names:
        by_key.setdefault(lookup_key(known), known)
    return [by_key[k] for k in difflib.get_close_matches(lookup_key(name), list(by_key), n=count, cutoff=0.6)]
