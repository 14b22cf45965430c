"""Constraint 2, Deepness (Deep): correctly swapping contiguous items has more effect in early positions."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    RELEVANCE, Constraint, Options, differing_positions, first_problem, generate_many, graded_documents,
    missed_relevant, random_level, rankings_distinct, single_aspect,
)


def premise(case: Case) -> str | None:
    problem = single_aspect(case) or rankings_distinct(case)
    if problem:
        return problem
    diff = differing_positions(case.worse, case.better)
    if len(case.worse) != len(case.better) or len(diff) != 4:
        return "not two swaps of one ranking"
    i, i1, j, j1 = diff
    if not (i1 == i + 1 and j1 == j + 1 and j > i1):
        return "the swaps are not of contiguous documents"
    # d: worse holds d's order at i, i+1; better holds it at j, j+1.
    d_i, d_i1, d_j, d_j1 = case.worse[i], case.worse[i1], case.better[j], case.better[j1]
    level = case.levels[:, 0]
    return first_problem(
        (case.better[i] == d_i1 and case.better[i1] == d_i, "better does not swap d_i and d_{i+1}"),
        (case.worse[j] == d_j1 and case.worse[j1] == d_j, "worse does not swap d_j and d_{j+1}"),
        (level[d_i] == level[d_j] and level[d_i1] == level[d_j1], "r(d_i) != r(d_j) or r(d_{i+1}) != r(d_{j+1})"),
        (level[d_i] < level[d_i1], "r(d_i) is not below r(d_{i+1})"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case | None:
        top = int(rng.choice(options.top_levels))
        if options.max_length < 4:
            return None
        n = int(rng.integers(4, options.max_length + 1))
        i = int(rng.integers(0, n - 3))
        j = int(rng.integers(i + 2, n - 1))
        levels = [random_level(rng, top) for _ in range(n)]
        low = int(rng.integers(0, top))
        high = int(rng.integers(low + 1, top + 1))
        levels[i], levels[i + 1], levels[j], levels[j + 1] = low, high, low, high
        builder = Builder(1)
        d = graded_documents(builder, rng, levels)
        missed_relevant(builder, rng, [0], top)
        better, worse = list(d), list(d)
        better[i], better[i + 1] = d[i + 1], d[i]
        worse[j], worse[j + 1] = d[j + 1], d[j]
        return builder.case(worse, better)

    return generate_many(make, count, premise, "Deep")


CONSTRAINT = Constraint(
    key="Deep", number=2, title="Deepness", group=RELEVANCE,
    statement="Correctly swapping contiguous items has more effect in early ranking positions:\n"
              "    r(d_i) = r(d_j) < r(d_{i+1}) = r(d_{j+1})  =>  Q(d^{i<->i+1}) > Q(d^{j<->j+1}),  where i < j",
    conditions="single aspect, relevance contribution (r < 1), graded relevance.",
    reading="a ranking d of 4 to max-length documents at random levels, with r(d_i) = r(d_j) < r(d_{i+1}) = "
            "r(d_{j+1}) for i + 1 < j; better = d with d_i, d_{i+1} swapped, worse = d with d_j, d_{j+1} swapped.",
    generate=generate, premise=premise,
)
