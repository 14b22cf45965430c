"""The rankings of constraints 3 and 4 (DeepTh, CloseTh): one relevant document on top, or n after n non-relevant.

Both compare, under binary relevance and a single aspect, the ranking
``top`` = (d_rel, 2n - 1 non-relevant documents) with ``late`` = (n non-relevant
documents, n relevant documents): rankings of the same length (the paper's
proof for RBU says the four first constraints compare rankings of one length).
"""
from __future__ import annotations

import numpy as np

from .case import Case
from .constraint import Options, binary_relevance, first_problem, rankings_distinct, single_aspect

# n of DeepTh: far enough for the slowest-decaying defaults (RBU's p = 0.99 needs n >= 69;
# RBP with p = 0.99 would need n >= 459).
DEEP_GRID = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 100, 125, 150, 200, 300, 500]


def deep_grid(options: Options) -> list[int]:
    return DEEP_GRID


def close_grid(options: Options) -> list[int]:
    """m of CloseTh: the top area, 2m <= max-length (inside the measures' cutoffs)."""
    return list(range(1, max(1, options.max_length // 2) + 1))


def build(rng: np.random.Generator, n: int, options: Options) -> tuple[Case, Case]:
    """(top, late) as a case each way round: (worse=late, better=top) and (worse=top, better=late)."""
    level = int(rng.choice(options.top_levels))
    extra = int(rng.integers(0, 3))          # relevant documents the rankings miss
    judging = rng.random()                   # non-relevant documents: all judged, none, or each at random
    if judging < 0.33:
        judged_irrelevant = np.ones(2 * n - 1, dtype=bool)
    elif judging < 0.67:
        judged_irrelevant = rng.random(2 * n - 1) < 0.5
    else:
        judged_irrelevant = np.zeros(2 * n - 1, dtype=bool)
    # documents: n relevant (0 .. n-1), 2n - 1 non-relevant (n .. 3n-2), then the missed relevant ones
    levels = np.zeros((3 * n - 1 + extra, 1), dtype=np.int64)
    levels[:n] = level
    levels[3 * n - 1:] = level
    judged = np.concatenate([np.ones(n, dtype=bool), judged_irrelevant, np.ones(extra, dtype=bool)])
    relevant, irrelevant = list(range(n)), list(range(n, 3 * n - 1))
    top = (relevant[0], *irrelevant)
    late = (*irrelevant[:n], *relevant)
    return (Case(levels, judged, late, top, param=n).normalised(),
            Case(levels, judged, top, late, param=n).normalised())


def premise_of(case: Case, top: tuple[int, ...], late: tuple[int, ...]) -> str | None:
    problem = single_aspect(case) or binary_relevance(case) or rankings_distinct(case)
    if problem:
        return problem
    n = case.param
    rel = case.levels[:, 0] > 0
    return first_problem(
        (n is not None and len(top) == len(late) == 2 * n, "the rankings are not 2n long"),
        (bool(rel[top[0]]) and not rel[list(top[1:])].any(), "not one relevant document on top"),
        (not rel[list(late[:n])].any() and bool(rel[list(late[n:])].all()), "not n relevant after n non-relevant"),
    )
