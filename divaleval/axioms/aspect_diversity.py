"""Constraint 6, Aspect diversity (AspDiv): a document covering more aspects, in the same place, scores more."""
from __future__ import annotations

import numpy as np

from .case import Builder, Case
from .constraint import (
    DIVERSITY, Constraint, Options, differing_positions, first_problem, generate_many, missed_relevant,
    random_level, random_weights, rankings_distinct,
)


def premise(case: Case) -> str | None:
    problem = rankings_distinct(case)
    if problem:
        return problem
    diff = differing_positions(case.worse, case.better)
    if len(case.worse) != len(case.better) or len(diff) != 1:
        return "better is not worse with one document replaced"
    i = diff[0]
    old, new = case.levels[case.worse[i]], case.levels[case.better[i]]
    raised = new > old
    below = list(case.worse[i + 1:])
    return first_problem(
        (bool((new >= old).all() and raised.any()), "d'_i does not dominate d_i"),
        (not (case.levels[below][:, raised] > 0).any(), "a document below d_i is relevant to an aspect d'_i adds"),
    )


def generate(rng: np.random.Generator, count: int, options: Options, _param: int | None) -> list[Case]:
    def make() -> Case | None:
        n_intents = int(rng.integers(2, 5))
        top = int(rng.choice(options.top_levels))
        n = int(rng.integers(1, options.max_length + 1))
        i = int(rng.integers(0, n))
        old = np.array([random_level(rng, top, 0.6) for _ in range(n_intents)])
        can_rise = np.flatnonzero(old < top)
        if not len(can_rise):
            return None
        raised = can_rise[rng.random(len(can_rise)) < 0.5]
        if not len(raised):
            raised = rng.choice(can_rise, 1)
        new = old.copy()
        for t in raised:
            new[t] = int(rng.integers(old[t] + 1, top + 1))
        builder = Builder(n_intents)
        d = []
        for position in range(n):
            if position == i:
                d.append(builder.doc(old, judged=bool(rng.random() < 0.5)))
                continue
            levels = np.array([random_level(rng, top, 0.6) for _ in range(n_intents)])
            if position > i:
                levels[raised] = 0
            d.append(builder.doc(levels, judged=bool(rng.random() < 0.5)))
        replacement = builder.doc(new)
        missed_relevant(builder, rng, range(n_intents), top, most=1)
        better = list(d)
        better[i] = replacement
        weights = random_weights(rng, n_intents) if rng.random() < 0.5 else None
        return builder.case(d, better, weights)

    return generate_many(make, count, premise, "AspDiv")


CONSTRAINT = Constraint(
    key="AspDiv", number=6, title="Aspect diversity", group=DIVERSITY,
    statement="Covering more aspects in the same document (without additional effort of inspecting more "
              "documents) increases the score. Assuming relevance contribution (r(d, t) < 1):\n"
              "    for all t in T. r(d'_i, t) >= r(d_i, t) (> for some t)  =>  Q(d with d_i -> d'_i) > Q(d)",
    conditions="relevance contribution (r < 1); graded relevance; any weights; overlap allowed.",
    reading="worse = d (1 to max-length documents, 2 to 4 aspects, random levels), better = d with d_i replaced "
            "by a new document d'_i at least as relevant to every aspect and more relevant to some. As in the "
            "paper's proofs, which compare position i alone, the documents below i are not relevant to the "
            "aspects d'_i adds (they would otherwise lose novelty).",
    generate=generate, premise=premise,
)
