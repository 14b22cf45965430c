"""The axiom checker: which measure satisfies which of the RBU paper's ten constraints, mechanically.

Amigó, Spina, Carrillo-de-Albornoz, "An axiomatic analysis of diversity
evaluation metrics: introducing the rank-biased utility metric", SIGIR 2018,
sections 3-5. One module per constraint (its statement, a generator of the
ranking pairs it describes within its conditions, and its premise as a test
of one case); :mod:`.checker` scores the pairs with each measure and
:mod:`.shrink` reduces each counterexample; :mod:`.paper` holds the paper's
Table 1 as rebuilt from the prose of its section 4.
"""
from __future__ import annotations

from ..errors import UsageError
from . import (
    aspect_diversity, aspect_relevance, closeness_threshold, confidence, deepness, deepness_threshold,
    monotonic_redundancy, priority, redundancy, saturation,
)
from .case import Case
from .checker import DEFAULT_CASES, DEFAULT_SEED, NO, UNDEFINED, YES, AxiomReport, Verdict, check
from .constraint import Constraint, Options
from .paper import PAPER_MEASURES, PAPER_ROWS

CONSTRAINTS: list[Constraint] = [
    module.CONSTRAINT for module in (
        priority, deepness, deepness_threshold, closeness_threshold, confidence,
        aspect_diversity, redundancy, monotonic_redundancy, saturation, aspect_relevance,
    )
]
BY_KEY = {c.key.lower(): c for c in CONSTRAINTS}


def constraint_named(name: str) -> Constraint:
    """A constraint by its key (Pri, Deep, ...; any case), number (1..10) or title."""
    text = name.strip().lower()
    for c in CONSTRAINTS:
        if text in (c.key.lower(), str(c.number), c.title.lower()):
            return c
    raise UsageError(f"unknown constraint {name!r}; the constraints are "
                     + ", ".join(c.key for c in CONSTRAINTS))


__all__ = [
    "CONSTRAINTS", "Case", "Constraint", "Options", "AxiomReport", "Verdict", "check", "constraint_named",
    "DEFAULT_CASES", "DEFAULT_SEED", "YES", "NO", "UNDEFINED", "PAPER_MEASURES", "PAPER_ROWS",
]
