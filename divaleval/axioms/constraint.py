"""What a constraint is to the checker, and the helpers its modules share.

A :class:`Constraint` holds its formal statement (for ``--explain``), a
generator of cases within its conditions, and its premise: a test of one
concrete case that the generator's cases pass by construction and that the
shrinker re-applies to every smaller case it tries.

Quantifiers. Most constraints hold for every case (``EVERY``). Three carry a
quantified parameter, tried over a finite grid:
* DeepTh: "there exists n large enough": read as "from some n on" (``FROM_SOME``),
  since at n = 1 it only restates Priority;
* CloseTh: "there exists m small enough": some m of the grid works (``SOME``);
* Sat: "there exists r_max": some highest level L of the aspect works (``SOME``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..model import Settings
from .case import Case

EVERY, FROM_SOME, SOME = "every", "from-some", "some"
RELEVANCE, DIVERSITY = "relevance", "diversity"

Premise = Callable[[Case], "str | None"]


@dataclass(frozen=True)
class Options:
    """What generation and scoring are configured with."""

    max_length: int = 10       # documents in a ranking (DeepTh and CloseTh: see their grids)
    top_levels: tuple[int, ...] = (1, 2, 3)  # highest levels a generated topic may have
    gain: str = "exp"          # the evaluation's gain table (--gain)
    topicwise: str = "max"     # one level per document for ad hoc measures: the paper's max over aspects

    @property
    def settings(self) -> Settings:
        return Settings.parse(self.gain, self.topicwise)


@dataclass(frozen=True)
class Constraint:
    key: str          # "Pri"
    number: int       # 1..10, the paper's
    title: str        # "Priority"
    group: str        # RELEVANCE or DIVERSITY
    statement: str    # the formal statement, as the paper writes it
    conditions: str   # the conditions the cases satisfy
    reading: str      # how divaleval reads the statement and generates cases
    generate: Callable[[np.random.Generator, int, Options, "int | None"], list[Case]]
    premise: Premise
    strict: bool = True             # Q(better) > Q(worse); False: >=
    quantifier: str = EVERY
    param_name: str | None = None   # "n", "m", "L"
    grid: Callable[[Options], list[int]] | None = None

    def params(self, options: Options, binary: bool) -> list[int | None]:
        """Parameter values to try (binary cases of Sat: only L = 1)."""
        if self.grid is None:
            return [None]
        values = self.grid(options)
        return [1] if binary and self.param_name == "L" else values

    def explain(self) -> str:
        quantified = {EVERY: "in every case", FROM_SOME: f"at every {self.param_name} of the grid from some value on",
                      SOME: f"in every case at some {self.param_name} of the grid"}[self.quantifier]
        relation = "Q(better) > Q(worse)" if self.strict else "Q(better) >= Q(worse)"
        return (f"Constraint {self.number} ({self.title}, {self.key}), {self.group}-oriented\n\n"
                f"{self.statement}\n\nConditions: {self.conditions}\n\n"
                f"How divaleval checks it: {self.reading}\nIt requires {relation} {quantified}.\n")


# -- premises ---------------------------------------------------------------------------

def first_problem(*checks: tuple[bool, str]) -> str | None:
    """The message of the first failed check, or None."""
    for ok, message in checks:
        if not ok:
            return message
    return None


def distinct(ranking: tuple[int, ...]) -> bool:
    return len(set(ranking)) == len(ranking)


def rankings_distinct(case: Case) -> str | None:
    return first_problem((distinct(case.worse) and distinct(case.better), "a ranking repeats a document"),
                         (len(case.worse) > 0 and len(case.better) > 0, "a ranking is empty"))


def single_aspect(case: Case) -> str | None:
    return first_problem((case.n_intents == 1, "not a single aspect"))


def binary_relevance(case: Case) -> str | None:
    """Every positive level of the topic is the same (r in {0, r_c})."""
    positive = case.levels[case.levels > 0]
    return first_problem((len(np.unique(positive)) <= 1, "relevance is not binary"))


def no_overlap(case: Case) -> str | None:
    """No document is relevant to two aspects."""
    return first_problem((bool(((case.levels > 0).sum(axis=1) <= 1).all()), "a document is relevant to two aspects"))


def balanced(case: Case) -> str | None:
    return first_problem((case.weights is None, "aspects are not balanced"))


def differing_positions(a: tuple[int, ...], b: tuple[int, ...]) -> list[int]:
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


def appended(case: Case) -> str | None:
    """worse = (d, x) and better = (d, y): one prefix, two different last documents."""
    return first_problem((len(case.worse) == len(case.better) and len(case.worse) >= 1, "not (d, x) against (d, y)"),
                         (case.worse[:-1] == case.better[:-1], "the two rankings do not share their prefix"),
                         (case.worse[-1] != case.better[-1], "the last documents are the same"))


def only_relevant_to(case: Case, doc: int) -> int | None:
    """The one intent the document is relevant to, or None."""
    intents = case.relevant_to(doc)
    return int(intents[0]) if len(intents) == 1 else None


# -- generation ---------------------------------------------------------------------------

def random_weights(rng: np.random.Generator, n: int) -> np.ndarray:
    """Intent weights k_i / sum k, k_i in 1..9 (short decimals that print and read back exactly)."""
    k = rng.integers(1, 10, n).astype(np.float64)
    return k / k.sum()


def random_level(rng: np.random.Generator, top: int, p_zero: float = 0.4) -> int:
    return 0 if rng.random() < p_zero else int(rng.integers(1, top + 1))


def non_relevant(builder, rng: np.random.Generator) -> int:
    """A non-relevant document: judged 0 or unjudged, at random."""
    return builder.doc(judged=bool(rng.random() < 0.5))


def single_aspect_doc(builder, rng: np.random.Generator, intents: list[int], top: int, p_zero: float = 0.4) -> int:
    """A document relevant to at most one of ``intents``, at a random level up to ``top``."""
    level = random_level(rng, top, p_zero) if intents else 0
    if level == 0:
        return non_relevant(builder, rng)
    return builder.only(int(rng.choice(intents)), level)


def graded_documents(builder, rng: np.random.Generator, levels: list[int]) -> list[int]:
    """Documents of a single aspect at these levels (level 0: non-relevant, judged or not)."""
    return [builder.doc([level]) if level else non_relevant(builder, rng) for level in levels]


def missed_relevant(builder, rng: np.random.Generator, intents, top: int, most: int = 2) -> None:
    """0 to ``most`` relevant documents of each intent that no ranking holds (topics differ in size)."""
    for intent in intents:
        for _ in range(int(rng.integers(0, most + 1))):
            builder.only(int(intent), int(rng.integers(1, top + 1)))


def same_highest_level(builder, intents, top: int) -> None:
    """A document at ``top`` for each intent: the intents share their highest level (equal levels are then
    equal relevance for every measure)."""
    for intent in intents:
        builder.only(int(intent), top)


def generate_many(make: Callable[[], Case | None], count: int, premise: Premise, name: str) -> list[Case]:
    """``count`` cases from ``make`` (which may give up on a draw by returning None)."""
    cases: list[Case] = []
    attempts = 0
    while len(cases) < count:
        attempts += 1
        if attempts > 50 * count + 100:
            raise RuntimeError(f"{name}: the generator keeps failing its own premise")
        case = make()
        if case is None:
            continue
        problem = premise(case)
        if problem is not None:  # a generator bug: never silently check a case outside the conditions
            raise AssertionError(f"{name}: generated case outside the conditions: {problem}")
        cases.append(case)
    return cases
