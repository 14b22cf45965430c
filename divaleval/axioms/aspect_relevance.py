"""Constraint 10, Aspect relevance (AspRel): covering a heavier aspect is worth more."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    DIVERSITY, Constraint, Options, differing_positions, first_problem, generate_many, missed_relevant, no_overlap,
    only_relevant_to, rankings_distinct, same_highest_level, single_aspect_doc,
)


def premise(case: Case) -> str | None:
    problem = rankings_distinct(case) or no_overlap(case)
    if problem:
        return problem
    diff = differing_positions(case.worse, case.better)
    if len(case.worse) != len(case.better) or len(diff) != 1:
        return "better is not worse with one document replaced"
    i = diff[0]
    x, y = case.worse[i], case.better[i]
    t, t2 = only_relevant_to(case, x), only_relevant_to(case, y)
    if t is None or t2 is None or t == t2:
        return "d_i and d'_i are not relevant to one different aspect each"
    others = list(case.worse[:i] + case.worse[i + 1:])
    return first_problem(
        (case.weights is not None and case.weights[t2] > case.weights[t], "w(t') is not above w(t)"),
        (case.levels[x, t] == case.levels[y, t2], "r(d_i, t) != r(d'_i, t')"),
        (case.top[t] == case.top[t2], "the two aspects' highest levels differ"),
        (not (case.levels[others][:, [t, t2]] > 0).any(), "another ranked document is relevant to t or t'"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case:
        n_intents = int(rng.integers(2, 5))
        t, t2 = (int(v) for v in rng.choice(n_intents, 2, replace=False))
        k = rng.integers(1, 10, n_intents)
        if k[t2] == k[t]:
            k[t2] += 1
        elif k[t2] < k[t]:
            k[t], k[t2] = k[t2], k[t]
        weights = k / k.sum()
        top = int(rng.choice(options.top_levels))
        level = int(rng.integers(1, top + 1))
        n = int(rng.integers(1, options.max_length + 1))
        i = int(rng.integers(0, n))
        others = [a for a in range(n_intents) if a not in (t, t2)]
        builder = Builder(n_intents)
        d = [builder.only(t, level) if p == i else single_aspect_doc(builder, rng, others, top) for p in range(n)]
        y = builder.only(t2, level)
        same_highest_level(builder, (t, t2), top)
        missed_relevant(builder, rng, (t, t2), top)
        better = list(d)
        better[i] = y
        return builder.case(d, better, weights)

    return generate_many(make, count, premise, "AspRel")


CONSTRAINT = Constraint(
    key="AspRel", number=10, title="Aspect relevance", group=DIVERSITY,
    statement="Aspects with higher weights have more effect in the score. Assuming no aspect overlap, and being "
              "d_i and d'_i documents relevant to different aspects t, t' that have not been observed before, "
              "for all j < i. r(d_j, t) = r(d_j, t') = 0, and r(d_i, t) = r(d'_i, t') > 0:\n"
              "    w(t') > w(t)  =>  Q(d with d_i -> d'_i) > Q(d)",
    conditions="no aspect overlap; random weights; the two aspects share their highest level.",
    reading="worse = d (1 to max-length documents over 2 to 4 aspects), d_i relevant to t only; better = d with "
            "d_i replaced by d'_i, relevant to t' only at the same level, w(t') > w(t). As in the paper's proof, "
            "which compares position i alone, no other ranked document is relevant to t or t' (read literally, "
            "a later document relevant to t' would make better the more redundant ranking).",
    generate=generate, premise=premise,
)
