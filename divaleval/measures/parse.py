"""Parsing measure names: ``NAME``, ``NAME@k``, ``NAME(key=value,...)@k``, or a set name."""
from __future__ import annotations

import re

from ..errors import UsageError
from .base import REGISTRY, Measure, find_definition
from .sets import ALL_CUTOFFS, MEASURE_SETS

_NAME = re.compile(r"^\s*(?P<name>[^()@\s]+)\s*(\((?P<params>[^()]*)\))?\s*(@\s*(?P<cutoff>\S+))?\s*$")


def parse_measure(text: str) -> Measure:
    """Parse one measure; raise :class:`UsageError` with a helpful message."""
    if "@" in text and text.strip() in REGISTRY:  # a name holding "@" itself, such as S-RR@100%
        return REGISTRY[text.strip()].bind()
    match = _NAME.match(text)
    if not match:
        raise UsageError(f"cannot parse measure {text!r} (expected NAME, NAME@k or NAME(key=value,...)@k)")
    try:
        definition = find_definition(match["name"])
    except ValueError as exc:
        raise UsageError(f"measure {text!r}: {exc}") from None
    if definition is None:
        raise UsageError(f"unknown measure {match['name']!r} (see --list-measures)")
    params: dict[str, str] = {}
    if match["params"] and match["params"].strip():
        for item in match["params"].split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise UsageError(f"measure {text!r}: parameter {item.strip()!r} is not key=value")
            if key.strip() in params:
                raise UsageError(f"measure {text!r}: parameter {key.strip()!r} given twice")
            params[key.strip()] = value.strip()
    cutoff = None
    if match["cutoff"] is not None:
        if not match["cutoff"].isdigit():
            raise UsageError(f"measure {text!r}: cutoff {match['cutoff']!r} is not a positive integer")
        cutoff = int(match["cutoff"])
    try:
        return definition.bind(params, cutoff)
    except ValueError as exc:
        raise UsageError(f"measure {text!r}: {exc}") from None


def split_measure_list(text: str) -> list[str]:
    """Split ``a@5,b(x=1,y=2)@10`` on the commas outside parentheses."""
    items, depth, current = [], 0, []
    for char in text:
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        depth += (char == "(") - (char == ")")
        current.append(char)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def expand_set(name: str) -> list[str] | None:
    """The measures of a set name, or None. ``all`` is every measure of intentwise qrels at
    cutoffs 5, 10, 20; ``aspects`` every multi-aspect measure (TOMA, CAM, MM) with its defaults."""
    if name in ("all", "aspects"):
        judgments = "intents" if name == "all" else "aspects"
        names = []
        for definition in sorted(REGISTRY.values(), key=lambda d: d.name.lower()):
            if definition.judgments != judgments:
                continue
            if definition.cutoff != "required":
                names.append(definition.name)
            if definition.cutoff != "none":
                names += [f"{definition.name}@{k}" for k in ALL_CUTOFFS]
        return names
    return MEASURE_SETS.get(name)


def parse_measures(texts: list[str] | tuple[str, ...]) -> list[Measure]:
    """Parse ``-m`` values: measures, comma-separated lists of them, or set names.

    Repeats are dropped, keeping the first; the order given is kept.
    """
    measures: list[Measure] = []
    for text in (item for value in texts for item in split_measure_list(value)):
        expanded = expand_set(text.strip().lower())
        for item in (expanded if expanded is not None else [text]):
            found = parse_measure(item)
            if found not in measures:
                measures.append(found)
    return measures
