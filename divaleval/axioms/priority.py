"""Constraint 1, Priority (Pri): swapping documents in concordance with their relevance increases the score."""
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
    if len(case.worse) != len(case.better) or len(diff) != 2:
        return "better is not worse with two documents swapped"
    i, j = diff
    level = case.levels[:, 0]
    return first_problem(
        (case.worse[i] == case.better[j] and case.worse[j] == case.better[i], "not a swap"),
        (level[case.worse[j]] > level[case.worse[i]], "the lower document is not the more relevant"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case:
        top = int(rng.choice(options.top_levels))
        n = int(rng.integers(2, max(2, options.max_length) + 1))
        i, j = sorted(rng.choice(n, 2, replace=False).tolist())
        levels = [random_level(rng, top) for _ in range(n)]
        levels[i] = int(rng.integers(0, top))
        levels[j] = int(rng.integers(levels[i] + 1, top + 1))
        builder = Builder(1)
        ranked = graded_documents(builder, rng, levels)
        missed_relevant(builder, rng, [0], top)
        swapped = list(ranked)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        return builder.case(ranked, swapped)

    return generate_many(make, count, premise, "Pri")


CONSTRAINT = Constraint(
    key="Pri", number=1, title="Priority", group=RELEVANCE,
    statement="Swapping items in concordance with their relevance increases the ranking quality score. "
              "Being k > 0:\n    r(d_{i+k}) > r(d_i)  =>  Q(d^{i<->i+k}) > Q(d)",
    conditions="single aspect, relevance contribution (r < 1), graded relevance.",
    reading="a ranking d of 2 to max-length documents at random levels 0..L (L = 1, 2 or 3; non-relevant "
            "documents judged 0 or unjudged), two positions i < i+k with r(d_{i+k}) > r(d_i); "
            "worse = d, better = d with the two swapped. Other relevant documents may be judged but not ranked.",
    generate=generate, premise=premise,
)
