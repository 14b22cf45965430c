"""Constraint 3, Deepness threshold (DeepTh): deep relevant documents are worth less than one on top."""
from __future__ import annotations

import numpy as np

from .case import Case
from .constraint import FROM_SOME, RELEVANCE, Constraint, Options, generate_many
from .thresholds import build, deep_grid, premise_of


def premise(case: Case) -> str | None:
    return premise_of(case, top=case.better, late=case.worse)


def generate(rng: np.random.Generator, count: int, options: Options, n: int | None) -> list[Case]:
    return generate_many(lambda: build(rng, n, options)[0], count, premise, "DeepTh")


CONSTRAINT = Constraint(
    key="DeepTh", number=3, title="Deepness threshold", group=RELEVANCE,
    statement="Assuming binary relevance, there exists a value n large enough such that retrieving only one "
              "relevant document at the top of the ranking is better than retrieving n relevant documents "
              "after n non-relevant documents:\n"
              "    exists n in N+.  Q(d1_rel, ...) > Q(d1_nrel, ..., dn_nrel, d1_rel, ..., dn_rel)",
    conditions="single aspect, binary relevance (every relevant document at one level c = 1, 2 or 3).",
    reading="better = (a relevant document, 2n - 1 non-relevant ones), worse = (n non-relevant, n relevant), "
            "one length. At n = 1 this is Priority, so 'n large enough' is read as 'from some n on': the "
            "inequality must hold at every n of the grid 1, 2, ..., 500 from some n0 on (reported as n>=n0). "
            "Rankings are 2n long, so they pass the cutoff of a measure with one; that is the constraint's point "
            "(an area of the ranking never explored).",
    generate=generate, premise=premise, quantifier=FROM_SOME, param_name="n", grid=deep_grid,
)
