"""Shrinking a counterexample: fewer documents, fewer intents, fewer qrels lines, lower levels.

Every smaller case one step away is tried; those still inside the
constraint's conditions (its premise) are scored together, and the smallest
that still violates the constraint replaces the case, until none does. All
counterexamples shrink in lockstep, so that each round is one batched
evaluation, and a candidate shared by several (one constraint, several
measures) is scored once.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator

import numpy as np

from ..measures import Measure
from ..model import Settings
from .case import Case, score_cases, violations, with_levels
from .constraint import Constraint

MAX_ROUNDS = 500


@dataclass
class ShrinkTask:
    constraint: Constraint
    measure: int      # index into the measures
    case: Case        # the current (smallest so far) counterexample
    done: bool = False


def size_key(case: Case) -> tuple[int, ...]:
    return (*case.size(), int(case.weights is not None))


def _drop_document(case: Case, doc: int) -> Case:
    renumber = lambda ranking: tuple(d - (d > doc) for d in ranking if d != doc)  # noqa: E731
    return Case(np.delete(case.levels, doc, axis=0), np.delete(case.judged, doc), renumber(case.worse),
                renumber(case.better), case.weights, case.param).normalised()


def _drop_intent(case: Case, intent: int) -> Case:
    weights = None if case.weights is None else np.delete(case.weights, intent)
    return Case(np.delete(case.levels, intent, axis=1), case.judged, case.worse, case.better, weights,
                case.param).normalised()


def candidates(case: Case) -> Iterator[Case]:
    """Every case one step smaller than ``case`` (not yet checked against any premise)."""
    for doc in range(case.n_docs):
        if case.n_docs > 1:
            yield _drop_document(case, doc)
    if case.n_intents > 1:
        for intent in range(case.n_intents):
            yield _drop_intent(case, intent)
    for doc in np.flatnonzero(case.judged & ~(case.levels > 0).any(axis=1)):
        judged = case.judged.copy()
        judged[doc] = False
        yield with_levels(case, case.levels, judged).normalised()
    if case.levels.max(initial=0) > 1:  # every level above 1 lowered at once (binary relevance stays binary)
        yield with_levels(case, np.where(case.levels > 1, case.levels - 1, case.levels)).normalised()
    for doc, intent in zip(*np.nonzero(case.levels > 0)):
        levels = case.levels.copy()
        levels[doc, intent] -= 1
        yield with_levels(case, levels).normalised()
    if case.weights is not None:
        yield replace(case, weights=None, _key=None, _size=None)


def shrink(tasks: list[ShrinkTask], measures: list[Measure], settings: Settings,
           progress: Callable[[str], None] | None = None) -> None:
    """Shrink every task's case in place."""
    for round_number in range(MAX_ROUNDS):
        active = [task for task in tasks if not task.done]
        if not active:
            return
        if progress:
            progress(f"shrinking {len(active)} counterexamples (round {round_number + 1})")
        pool: dict[tuple[str, bytes], int] = {}
        pool_cases: list[Case] = []
        valid: dict[tuple[str, bytes], bool] = {}
        chosen: list[list[int]] = []
        for task in active:
            current = size_key(task.case)
            ids = []
            for candidate in candidates(task.case):
                key = (task.constraint.key, candidate.key())
                if key not in valid:
                    valid[key] = (size_key(candidate) < current
                                  and task.constraint.premise(candidate) is None)
                if not valid[key]:
                    continue
                if key not in pool:
                    pool[key] = len(pool_cases)
                    pool_cases.append(candidate)
                ids.append(pool[key])
            chosen.append(ids)
        needed = sorted({task.measure for task in active})
        column = {j: c for c, j in enumerate(needed)}
        worse, better = score_cases(pool_cases, [measures[j] for j in needed], settings)
        for task, ids in zip(active, chosen):
            if not ids:
                task.done = True
                continue
            c = column[task.measure]
            bad = violations(worse[ids, c], better[ids, c], task.constraint.strict)
            failing = [pool_cases[i] for i, b in zip(ids, bad) if b]
            if not failing:
                task.done = True
                continue
            smallest = min(failing, key=size_key)
            if size_key(smallest) < size_key(task.case):
                task.case = smallest
            else:
                task.done = True
