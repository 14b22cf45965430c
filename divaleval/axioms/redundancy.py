"""Constraint 7, Redundancy (Red): a document of a less covered aspect is worth more."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    DIVERSITY, Constraint, Options, appended, balanced, binary_relevance, first_problem, generate_many, no_overlap,
    only_relevant_to, rankings_distinct,
)


def premise(case: Case) -> str | None:
    problem = (rankings_distinct(case) or binary_relevance(case) or no_overlap(case) or balanced(case)
               or appended(case))
    if problem:
        return problem
    prefix, x, y = list(case.worse[:-1]), case.worse[-1], case.better[-1]
    t, t2 = only_relevant_to(case, x), only_relevant_to(case, y)
    if t is None or t2 is None or t == t2:
        return "d and d' are not relevant to one different aspect each"
    covered = (case.levels[prefix] > 0).sum(axis=0)
    return first_problem((x not in prefix and y not in prefix, "d or d' is already ranked"),
                         (covered[t] > covered[t2], "d's aspect is not the more covered"))


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case | None:
        n_intents = int(rng.integers(2, 5))
        level = int(rng.choice(options.top_levels))
        n = int(rng.integers(1, max(1, options.max_length - 1) + 1))
        builder = Builder(n_intents)
        prefix, covered = [], np.zeros(n_intents, dtype=int)
        for _ in range(n):
            if rng.random() < 0.3:
                prefix.append(builder.doc(judged=bool(rng.random() < 0.5)))
            else:
                t = int(rng.integers(0, n_intents))
                covered[t] += 1
                prefix.append(builder.only(t, level))
        t2 = int(rng.integers(0, n_intents))
        more = np.flatnonzero(covered > covered[t2])
        if not len(more):
            return None
        t = int(rng.choice(more))
        x, y = builder.only(t, level), builder.only(t2, level)
        for _ in range(int(rng.integers(0, 3))):
            builder.only(int(rng.integers(0, n_intents)), level)
        return builder.case([*prefix, x], [*prefix, y])

    return generate_many(make, count, premise, "Red")


CONSTRAINT = Constraint(
    key="Red", number=7, title="Redundancy", group=DIVERSITY,
    statement="Assuming binary relevance, balanced aspects and no aspect overlap, and being d and d' documents "
              "relevant to different aspects, r(d, t) = r(d', t') = r_c:\n"
              "    |{d_i in d. r(d_i, t) = r_c}| > |{d_i in d. r(d_i, t') = r_c}|  =>  Q(d, d') > Q(d, d)",
    conditions="binary relevance (one level c = 1, 2 or 3), balanced aspects (uniform weights), no aspect overlap.",
    reading="a ranking d of 1 to max-length - 1 documents over 2 to 4 aspects, each relevant to one aspect or "
            "none; t covered more often than t' in d; worse = (d, x), better = (d, y), x relevant to t and y to "
            "t' only. Aspects may differ in how many relevant documents they have.",
    generate=generate, premise=premise,
)
