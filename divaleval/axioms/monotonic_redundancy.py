"""Constraint 8, Monotonic redundancy (MRed): redundancy measured with graded relevance."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    DIVERSITY, Constraint, Options, appended, balanced, first_problem, generate_many, missed_relevant,
    only_relevant_to, rankings_distinct, same_highest_level,
)


def premise(case: Case) -> str | None:
    problem = rankings_distinct(case) or balanced(case) or appended(case)
    if problem:
        return problem
    prefix, x, y = list(case.worse[:-1]), case.worse[-1], case.better[-1]
    t, t2 = only_relevant_to(case, x), only_relevant_to(case, y)
    if case.n_intents != 2 or t is None or t2 is None or t == t2:
        return "not two aspects with d and d' exclusively relevant to one each"
    return first_problem(
        (len(prefix) >= 1, "d is empty"),
        (x not in prefix and y not in prefix, "d or d' is already ranked"),
        (case.levels[x, t] == case.levels[y, t2], "r(d, t) != r(d', t')"),
        (case.top[t] == case.top[t2], "the two aspects' highest levels differ"),
        (bool((case.levels[prefix, t] > case.levels[prefix, t2]).all()), "some d_i is not more relevant to t"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case:
        top = int(rng.choice(options.top_levels))
        t = int(rng.integers(0, 2))
        t2 = 1 - t
        n = int(rng.integers(1, max(1, options.max_length - 1) + 1))
        builder = Builder(2)
        prefix = []
        for _ in range(n):
            levels = np.zeros(2, dtype=int)
            levels[t] = int(rng.integers(1, top + 1))
            levels[t2] = int(rng.integers(0, levels[t]))
            prefix.append(builder.doc(levels))
        level = int(rng.integers(1, top + 1))
        x, y = builder.only(t, level), builder.only(t2, level)
        same_highest_level(builder, (t, t2), top)
        missed_relevant(builder, rng, (t, t2), top)
        return builder.case([*prefix, x], [*prefix, y])

    return generate_many(make, count, premise, "MRed")


CONSTRAINT = Constraint(
    key="MRed", number=8, title="Monotonic redundancy", group=DIVERSITY,
    statement="Assuming two balanced aspects (T = {t, t'}), relevance contribution, and being d and d' documents "
              "exclusively relevant to each aspect, 0 < r(d, t) = r(d', t') <= 1 and r(d, t') = r(d', t) = 0:\n"
              "    for all d_i in d. r(d_i, t) > r(d_i, t')  =>  Q(d, d') > Q(d, d)",
    conditions="two balanced aspects, relevance contribution (r < 1), graded relevance (the aspects share their "
               "highest level, so that equal levels are equal relevance for every measure).",
    reading="a non-empty ranking d of up to max-length - 1 documents each more relevant to t than to t' (it may "
            "be relevant to both); worse = (d, x), better = (d, y), x relevant to t only and y to t' only, at "
            "one level.",
    generate=generate, premise=premise,
)
