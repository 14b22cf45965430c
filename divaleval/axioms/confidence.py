"""Constraint 5, Confidence (Conf): adding a non-relevant document at the end decreases the score."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    RELEVANCE, Constraint, Options, first_problem, generate_many, non_relevant, random_level, rankings_distinct,
    single_aspect,
)


def premise(case: Case) -> str | None:
    problem = single_aspect(case) or rankings_distinct(case)
    if problem:
        return problem
    return first_problem(
        (len(case.worse) == len(case.better) + 1 and case.worse[:-1] == case.better, "worse is not (better, x)"),
        (not (case.levels[case.worse[-1]] > 0).any(), "the added document is relevant"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case:
        top = int(rng.choice(options.top_levels))
        n = int(rng.integers(1, max(1, options.max_length - 1) + 1))
        builder = Builder(1)
        d = []
        for _ in range(n):
            level = random_level(rng, top)
            d.append(builder.doc([level]) if level else non_relevant(builder, rng))
        if not (builder.rows and any(r[0] for r in builder.rows)):
            builder.doc([int(rng.integers(1, top + 1))])  # the topic has a relevant document
        for _ in range(int(rng.integers(0, 3))):
            builder.doc([int(rng.integers(1, top + 1))])
        x = non_relevant(builder, rng)
        return builder.case([*d, x], d)

    return generate_many(make, count, premise, "Conf")


CONSTRAINT = Constraint(
    key="Conf", number=5, title="Confidence", group=RELEVANCE,
    statement="Adding non-relevant documents decreases the score:\n    Q(d) > Q(d, d_nrel)",
    conditions="single aspect, relevance contribution (r < 1), graded relevance.",
    reading="better = d (1 to max-length - 1 documents at random levels), worse = d followed by a non-relevant "
            "document (judged 0 or unjudged).",
    generate=generate, premise=premise,
)
