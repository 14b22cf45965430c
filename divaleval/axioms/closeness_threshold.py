"""Constraint 4, Closeness threshold (CloseTh): in the top area, how many relevant documents beats where."""
from __future__ import annotations

import numpy as np

from .case import Case
from .constraint import RELEVANCE, SOME, Constraint, Options, generate_many
from .thresholds import build, close_grid, premise_of


def premise(case: Case) -> str | None:
    return premise_of(case, top=case.worse, late=case.better)


def generate(rng: np.random.Generator, count: int, options: Options, m: int | None) -> list[Case]:
    return generate_many(lambda: build(rng, m, options)[1], count, premise, "CloseTh")


CONSTRAINT = Constraint(
    key="CloseTh", number=4, title="Closeness threshold", group=RELEVANCE,
    statement="Assuming binary relevance, there exists a value m small enough such that retrieving one "
              "relevant document in the first position is worse than m relevant documents after m non-relevant "
              "documents:\n    exists m in N+.  Q(d1_rel, ...) < Q(d1_nrel, ..., dm_nrel, d1_rel, ..., dm_rel)",
    conditions="single aspect, binary relevance (every relevant document at one level c = 1, 2 or 3).",
    reading="worse = (a relevant document, 2m - 1 non-relevant ones), better = (m non-relevant, m relevant); "
            "some m of 1 .. max-length/2 (the top area, inside the cutoffs) must work for every case (reported "
            "as the smallest such m).",
    generate=generate, premise=premise, quantifier=SOME, param_name="m", grid=close_grid,
)
