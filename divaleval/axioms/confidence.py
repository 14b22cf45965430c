"""Constraint 5, Confidence (Conf): adding a non-relevant document at the end decreases the score."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    RELEVANCE, Constraint, Options, first_problem, generate_many, graded_documents, missed_relevant, non_relevant,
    random_level, rankings_distinct, single_aspect,
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
        levels = [random_level(rng, top) for _ in range(n)]
        d = graded_documents(builder, rng, levels)
        if not any(levels):
            builder.doc([int(rng.integers(1, top + 1))])  # the topic has a relevant document
        missed_relevant(builder, rng, [0], top)
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
