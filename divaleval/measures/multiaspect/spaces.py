"""TOMA's geometry (Maistro et al. 2021): label spaces, distances, and the weights of classes.

TOMA orders the feasible tuples of labels (one label per aspect, see
:class:`~divaleval.model.aspects.Aspect`) by the distance of their embedding to
the best tuple l*; tuples at equal distance (within a tolerance) form a class;
classes get weights 0, 1, 2, ... from the farthest to l*. Any single-aspect
measure is then computed on the weights.
"""
from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:  # (annotations only: scoring other judgments leaves this model unloaded)
    from ...model.aspects import Aspect

DISTANCES = ("euclidean", "manhattan", "chebyshev")
SPACES = ("product", "paper")
BINARISATIONS = ("positive", "tophalf")
TOLERANCE = 1e-9


Space = Union[str, tuple[tuple[int, ...], ...]]  # a rule of SPACES, or the feasible tuples themselves


def label_space(aspects: list[Aspect], rule: Space = "product") -> list[tuple[int, ...]]:
    """The feasible tuples of labels.

    product: every combination; paper: as in the paper's example, a tuple whose
    first aspect (relevance) has its lowest label has the lowest label on every
    other aspect too; or the tuples themselves (:func:`parse_space`).
    """
    if not isinstance(rule, str):
        for t in rule:
            if len(t) != len(aspects):
                raise ValueError(f"label space: every tuple needs one label per aspect ({len(aspects)})")
            for aspect, label in zip(aspects, t):
                if label not in aspect.labels:
                    raise ValueError(f"label space: {label} is not a label of aspect {aspect.name}")
        return list(rule)
    every = list(itertools.product(*(a.labels for a in aspects)))
    if rule == "product":
        return every
    if rule == "paper":
        lowest = tuple(a.labels[0] for a in aspects)
        return [t for t in every if t[0] != lowest[0] or t == lowest]
    raise ValueError(f"label space must be one of {', '.join(SPACES)}, not {rule!r}")


def parse_space(text: str) -> Space:
    """``product``, ``paper``, or tuples of labels: ``0.0;1.0;1.2`` -> ((0, 0), (1, 0), (1, 2))."""
    if text in SPACES:
        return text
    try:
        tuples = tuple(tuple(int(v) for v in item.split(".")) for item in text.split(";") if item)
    except ValueError:
        tuples = ()
    if not tuples or len({len(t) for t in tuples}) != 1:
        raise ValueError(f"expected {', '.join(SPACES)} or tuples of labels like 0.0;1.0;1.2, all of one length")
    return tuple(dict.fromkeys(tuples))  # each tuple once, in the order given


def show_space(space: Space) -> str:
    return space if isinstance(space, str) else ";".join(".".join(map(str, t)) for t in space)


def distance(a: tuple[float, ...], b: tuple[float, ...], kind: str) -> float:
    differences = [abs(x - y) for x, y in zip(a, b)]
    if kind == "euclidean":
        return math.sqrt(sum(d * d for d in differences))
    if kind == "manhattan":
        return sum(differences)
    if kind == "chebyshev":
        return max(differences)
    raise ValueError(f"distance must be one of {', '.join(DISTANCES)}, not {kind!r}")


def toma_weights(aspects: list[Aspect], space: list[tuple[int, ...]], kind: str,
                 tolerance: float = TOLERANCE) -> tuple[dict[tuple[int, ...], int], int]:
    """(weight of each feasible tuple, number of classes).

    The best tuple l* takes every aspect's best label; distances are measured in
    the embedding; equal distances (within ``tolerance``) share a class.
    """
    best = tuple(a.embed(a.labels[-1]) for a in aspects)
    far = {t: distance(tuple(a.embed(label) for a, label in zip(aspects, t)), best, kind) for t in space}
    classes: list[float] = []
    for d in sorted(far.values(), reverse=True):
        if not classes or classes[-1] - d > tolerance:
            classes.append(d)
    weight = {t: next(j for j, c in enumerate(classes) if abs(c - d) <= tolerance) for t, d in far.items()}
    return weight, len(classes)


def binarise(weight: int, n_classes: int, rule: str) -> int:
    """1 if a weight counts as relevant for a binary measure: any weight above 0
    (the paper's experiments), or the top half of the classes, weight >= floor(n/2)
    (its Table 3)."""
    if rule == "positive":
        return int(weight > 0)
    if rule == "tophalf":
        return int(weight >= n_classes // 2)
    raise ValueError(f"binarisation must be one of {', '.join(BINARISATIONS)}, not {rule!r}")
