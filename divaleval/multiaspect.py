"""Multi-aspect evaluation: aspects, their label spaces, and TOMA's weights (Maistro et al. 2021).

An aspect (relevance, correctness, trustworthiness ...) has ordered labels,
worst first, an embedding of each label into a number (default: the label
itself), and a gain per label for the per-aspect measures of CAM and MM
(default: the embedding). TOMA orders the feasible tuples of labels by their
distance to the best tuple l*; tuples at equal distance (within a tolerance)
form a class; classes get weights 0, 1, 2, ... from the farthest to l*. Any
single-aspect measure is then computed on the weights.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

DISTANCES = ("euclidean", "manhattan", "chebyshev")
SPACES = ("product", "paper")
BINARISATIONS = ("positive", "tophalf")
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Aspect:
    """One judged aspect: its name and ordered labels (worst first)."""

    name: str
    labels: tuple[int, ...]
    embedding: tuple[float, ...] = ()   # one number per label; default the label values
    gains: tuple[float, ...] = ()       # one gain per label for CAM and MM; default the embedding
    weight: float | None = None         # p_a in CAM and MM; default 1/|A|

    def __post_init__(self) -> None:
        if not self.labels or len(set(self.labels)) != len(self.labels):
            raise ValueError(f"aspect {self.name}: labels must be distinct and not empty")
        for what, values in (("embedding", self.embedding), ("gains", self.gains)):
            if values and len(values) != len(self.labels):
                raise ValueError(f"aspect {self.name}: {what} needs {len(self.labels)} values, one per label")
        if self.embedding and any(b < a for a, b in zip(self.embedding, self.embedding[1:])):
            raise ValueError(f"aspect {self.name}: the embedding must not decrease along the labels")

    def embed(self, label: int) -> float:
        return float(self.embedding[self.labels.index(label)] if self.embedding else label)

    def gain(self, label: int) -> float:
        return float(self.gains[self.labels.index(label)]) if self.gains else self.embed(label)


def label_space(aspects: list[Aspect], rule: str = "product") -> list[tuple[int, ...]]:
    """The feasible tuples of labels.

    product: every combination; paper: as in the paper's example, a tuple whose
    first aspect (relevance) has its lowest label has the lowest label on every
    other aspect too; or an explicit list, labels joined by "." and tuples by
    ";" (``0.0;1.0;1.2``).
    """
    if rule not in SPACES:
        tuples = parse_tuples(rule, len(aspects))
        for t in tuples:
            for aspect, label in zip(aspects, t):
                if label not in aspect.labels:
                    raise ValueError(f"label space: {label} is not a label of aspect {aspect.name}")
        return tuples
    every = list(itertools.product(*(a.labels for a in aspects)))
    if rule == "product":
        return every
    if rule == "paper":
        lowest = tuple(a.labels[0] for a in aspects)
        return [t for t in every if t[0] != lowest[0] or t == lowest]
    raise ValueError(f"label space must be one of {', '.join(SPACES)}, not {rule!r}")


def parse_tuples(text: str, width: int | None = None) -> list[tuple[int, ...]]:
    """``0.0;1.0;1.2`` -> [(0, 0), (1, 0), (1, 2)]."""
    try:
        tuples = [tuple(int(v) for v in item.split(".")) for item in text.split(";") if item]
    except ValueError:
        raise ValueError(f"label space {text!r}: expected product, paper or tuples like 0.0;1.0;1.2") from None
    if not tuples or (width is not None and any(len(t) != width for t in tuples)):
        raise ValueError(f"label space {text!r}: every tuple needs one label per aspect")
    return tuples


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


def parse_aspect(text: str) -> tuple[Aspect, str, tuple[float, ...], int]:
    """``NAME=FILE[,labels=0:1:2][,embed=0:1.5:3][,gains=0:5:10][,bins=25:50:75]``.

    Further options: ``weight=0.6`` (p_a in CAM and MM), ``column=2`` (the
    label column of a wide file ``topic 0 docno label1 label2 ...``, 1-based).
    Returns the aspect, its qrels file, its bins (thresholds that map a fine
    scale into grades 0, 1, ...: a label gets the number of thresholds <= it)
    and its column (0 for an ordinary qrels file). Labels default to those
    found in the file (after binning).
    """
    name, sep, rest = text.partition("=")
    if not sep or not name.strip() or not rest.strip():
        raise ValueError(f"aspect {text!r}: expected NAME=FILE[,labels=..][,embed=..][,gains=..][,bins=..]")
    path, *options = rest.split(",")
    values: dict[str, tuple[float, ...]] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if key not in ("labels", "embed", "gains", "bins", "weight", "column") or not sep:
            raise ValueError(f"aspect {name}: unknown option {option!r} (labels, embed, gains, bins, weight, column)")
        try:
            values[key] = tuple(float(v) for v in value.split(":"))
        except ValueError:
            raise ValueError(f"aspect {name}: {key}={value!r} is not a list of numbers n1:n2:...") from None
    labels = tuple(int(v) for v in values.get("labels", ()))
    weight = values["weight"][0] if "weight" in values else None
    column = int(values["column"][0]) if "column" in values else 0
    if weight is not None and not weight >= 0:
        raise ValueError(f"aspect {name}: weight must be >= 0")
    if "column" in values and column < 1:
        raise ValueError(f"aspect {name}: column must be >= 1")
    return (Aspect(name.strip(), labels or (0,), values.get("embed", ()), values.get("gains", ()), weight),
            path, values.get("bins", ()), column)
