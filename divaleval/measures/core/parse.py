"""Parsing measure names: ``NAME``, ``NAME@k``, ``NAME(key=value,...)@k``, trec_eval's ``name.k1,k2``, sets.

An alias with a ``parameter`` takes that parameter's value where its tool writes
it, after the dot (``iprec_at_recall.0.10,0.20``) or the ``@`` (``IPrec@0.1``).

Every problem is a :class:`UsageError` that quotes the text given: this module is
the one place that adds that context.
"""
from __future__ import annotations

import re

from ...errors import UsageError
from .definition import Measure
from .registry import REGISTRY, resolve
from .sets import expand_set

_NAME = re.compile(r"^\s*(?P<name>[^()@\s]+)\s*(\((?P<params>[^()]*)\))?\s*(@\s*(?P<cutoff>\S+))?\s*$")
_NUMBER = r"\d+(?:\.\d+)?"
_DOTTED = re.compile(rf"^\s*(?P<name>[A-Za-z_]+)\.(?P<cutoffs>{_NUMBER}(?:\s*,\s*{_NUMBER})*)\s*$")  # P.5,10


def parse_measure(text: str) -> Measure:
    """Parse one measure; raise :class:`UsageError` with a helpful message."""
    measures = _parse(text)
    if len(measures) != 1:
        raise UsageError(f"measure {text!r} stands for {len(measures)} measures "
                         f"({', '.join(m.name for m in measures[:3])}, ...): give one cutoff")
    return measures[0]


def _parse(text: str) -> list[Measure]:
    """The measures ``text`` names (several for trec_eval's ``P.5,10`` or ``P``)."""
    try:
        return _measures_of(text)
    except UsageError as exc:
        raise UsageError(f"measure {text!r}: {exc}") from None


def _measures_of(text: str) -> list[Measure]:
    if "@" in text and text.strip() in REGISTRY:  # a name holding "@" itself, such as S-RR@100%
        return [REGISTRY[text.strip()].bind()]
    dotted = _DOTTED.match(text)
    if dotted:
        definition, alias = resolve(dotted["name"])
        values = [value.strip() for value in dotted["cutoffs"].split(",")]
        if alias is not None and alias.parameter is not None:
            return [definition.bind({alias.parameter: value}) for value in values]
        if alias is not None and alias.cutoffs:
            if not all(value.isdigit() for value in values):
                raise UsageError(f"cutoffs {dotted['cutoffs']!r} are not positive integers")
            return [definition.bind({}, int(k)) for k in values]
    match = _NAME.match(text)
    if not match:
        raise UsageError("cannot parse (expected NAME, NAME@k or NAME(key=value,...)@k)")
    definition, alias = resolve(match["name"])
    if alias is not None and alias.with_cutoff is not None and match["cutoff"] is not None:
        definition = REGISTRY[alias.with_cutoff]
    params: dict[str, str] = {}
    if match["params"] and match["params"].strip():
        for item in match["params"].split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise UsageError(f"parameter {item.strip()!r} is not key=value")
            if key.strip() in params:
                raise UsageError(f"parameter {key.strip()!r} given twice")
            params[key.strip()] = value.strip()
    for key, required in alias.accepted if alias else ():
        given = params.pop(key, required)
        if given != required:
            options = {"rel": f"--rel-min {given} (for every binary measure)",   # what stands for it
                       "judged_only": "-J (condensed lists, for every measure)"}
            hint = f"; give {options[key]}" if key in options else ""
            raise UsageError(f"{key}={given} of {alias.tool} has no equivalent in divaleval (only {key}={required})"
                             + hint)
    if alias is not None and alias.parameter is not None:  # the tool's cutoff is this parameter
        if match["cutoff"] is not None:
            if alias.parameter in params:
                raise UsageError(f"parameter {alias.parameter!r} given twice")
            return [definition.bind({**params, alias.parameter: match["cutoff"]})]
        if alias.cutoffs and alias.parameter not in params:
            return [definition.bind({**params, alias.parameter: value}) for value in alias.cutoffs]
        return [definition.bind(params)]
    if match["cutoff"] is None:
        if alias is not None and alias.cutoffs:
            return [definition.bind(params, k) for k in alias.cutoffs]
        return [definition.bind(params)]
    if not (match["cutoff"].isascii() and match["cutoff"].isdigit()):
        raise UsageError(f"cutoff {match['cutoff']!r} is not a positive integer")
    return [definition.bind(params, int(match["cutoff"]))]


def split_measure_list(text: str) -> list[str]:
    """Split ``a@5,b(x=1,y=2)@10`` on the commas outside parentheses; ``P.5,10`` stays one item."""
    items, depth, current = [], 0, []
    for char in text:
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        depth += (char == "(") - (char == ")")
        current.append(char)
    items.append("".join(current))
    merged: list[str] = []
    for item in (item.strip() for item in items if item.strip()):
        if merged and re.fullmatch(_NUMBER, item) and _DOTTED.match(merged[-1]):
            merged[-1] += "," + item
        else:
            merged.append(item)
    return merged


def parse_measures(texts: list[str] | tuple[str, ...]) -> list[Measure]:
    """Parse ``-m`` values: measures, comma-separated lists of them, or set names.

    Repeats are dropped, keeping the first; the order given is kept.
    """
    measures: dict[Measure, None] = {}  # (a dict: ordered, and a repeat found by hash, not by a scan)
    for text in (item for value in texts for item in split_measure_list(value)):
        expanded = expand_set(text.strip().lower())
        for item in (expanded if expanded is not None else [text]):
            for found in _parse(item):
                measures.setdefault(found)
    return list(measures)
