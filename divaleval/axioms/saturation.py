"""Constraint 9, Aspect relevance saturation (Sat): after a fully relevant document, more of it is no gain."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    DIVERSITY, SOME, Constraint, Options, first_problem, generate_many, missed_relevant, no_overlap,
    only_relevant_to, random_weights, rankings_distinct, single_aspect_doc,
)

# Highest levels L tried as r_max: r = (2^L - 1)/2^L reaches 0.999 at L = 10.
LEVEL_GRID = list(range(1, 11))


def level_grid(_options: Options) -> list[int]:
    return LEVEL_GRID


def premise(case: Case) -> str | None:
    problem = rankings_distinct(case) or no_overlap(case)
    if problem:
        return problem
    if not (len(case.worse) == len(case.better) + 1 and case.worse[:-1] == case.better):
        return "worse is not (better, x)"
    last, x = case.better[-1], case.worse[-1]
    t = only_relevant_to(case, last)
    if t is None:
        return "d_n is not relevant to an aspect"
    return first_problem(
        (only_relevant_to(case, x) == t, "d_{n+1} is not relevant to d_n's aspect"),
        (case.levels[last, t] == case.top[t] == case.param, "d_n is not at r_max, the aspect's highest level L"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, top: int | None) -> list[Case]:
    def make() -> Case:
        n_intents = int(rng.integers(1, 5))
        t = int(rng.integers(0, n_intents))
        n = int(rng.integers(1, max(1, options.max_length - 1) + 1))
        builder = Builder(n_intents)
        d = [single_aspect_doc(builder, rng, list(range(n_intents)), top) for _ in range(n - 1)]
        d.append(builder.only(t, top))
        x = builder.only(t, int(rng.integers(1, top + 1)))
        missed_relevant(builder, rng, range(n_intents), top, most=1)
        weights = random_weights(rng, n_intents) if rng.random() < 0.5 else None
        return builder.case([*d, x], d, weights, param=top)

    return generate_many(make, count, premise, "Sat")


CONSTRAINT = Constraint(
    key="Sat", number=9, title="Aspect relevance saturation", group=DIVERSITY,
    statement="Assuming no aspect overlap, there exists a finite relevance value r_max large enough such that:\n"
              "    (r(d_n, t) = r_max) and (r(d_{n+1}, t) > 0)  =>  Q(d) >= Q(d, d_{n+1})",
    conditions="no aspect overlap; any weights.",
    reading="better = d (1 to max-length - 1 documents over 1 to 4 aspects, each relevant to one aspect or "
            "none) whose last document d_n is at the highest level L of its aspect t; worse = (d, x), x relevant "
            "to t only. r_max is a level: some L of 1 .. 10 must work for every case (reported as the smallest). "
            "No level makes r = 1 in divaleval ((2^L - 1)/2^L < 1), so a measure saturates only if it stops "
            "counting an aspect (alpha = 1, a Cube Test level reached) or charges an effort.",
    generate=generate, premise=premise, strict=False, quantifier=SOME, param_name="L", grid=level_grid,
)
