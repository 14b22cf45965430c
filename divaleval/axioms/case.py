"""A case of a constraint: one topic's judgments and the two rankings the constraint compares.

A case is small and concrete: documents ``d1 .. dD`` with a level for each
intent ``1 .. I`` (the qrels; an unjudged document has no line), optional
intent weights (none: uniform), and two rankings of documents, ``worse`` and
``better``: the constraint says Q(better) > Q(worse) (for Sat, Q(better) >=
Q(worse)). Cases are built in memory and scored in batches, one topic per
case, through :class:`~divaleval.evaluator.Evaluator`.

Relevance r(d, t) is the level. Every graded measure of divaleval maps a level
to a gain by a function increasing in the level and, for r(d, t) in [0, 1),
divides by something of the intent's highest level (RBU, ERR, EU, CT:
(2^L - 1)/2^Lmax(t)), so comparisons across intents are made between intents
with the same highest level, where every measure's mapping agrees.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import WarningSink
from ..evaluator import Evaluator
from ..io import IntentProbabilities, RunTable
from ..measures import Measure
from ..model import Qrels, Settings

# Two scores closer than this (relative to max(1, |score|)) are a tie: sums that differ only in the
# order of their terms differ by a few units in the last place (below 1e-15 in the generated cases),
# while genuine differences go down to about 1e-13 (Sat at level 10, after several such documents).
TIE_TOLERANCE = 1e-14
WORSE, BETTER = "worse", "better"


@dataclass(frozen=True, eq=False)
class Case:
    """One topic and the two rankings a constraint compares (see the module docstring)."""

    levels: np.ndarray                 # (D, I) level of document d+1 for intent i+1
    judged: np.ndarray                 # (D,) the document has qrels lines (unjudged: level 0 everywhere)
    worse: tuple[int, ...]             # documents (indices) of the ranking that must score lower
    better: tuple[int, ...]            # documents of the ranking that must score higher
    weights: np.ndarray | None = None  # (I,) intent weights; None: uniform
    param: int | None = None           # n, m or L of a quantified constraint
    _key: bytes | None = field(default=None, repr=False, compare=False)
    _size: tuple[int, ...] | None = field(default=None, repr=False, compare=False)

    # -- shape -------------------------------------------------------------
    @property
    def n_docs(self) -> int:
        return self.levels.shape[0]

    @property
    def n_intents(self) -> int:
        return self.levels.shape[1]

    @property
    def top(self) -> np.ndarray:
        """(I,) the highest level judged for each intent (its Lmax)."""
        return self.levels.max(axis=0, initial=0)

    def relevant_to(self, doc: int) -> np.ndarray:
        """Intents (indices) the document is relevant to."""
        return np.flatnonzero(self.levels[doc] > 0)

    @property
    def is_binary(self) -> bool:
        """Every positive level is 1."""
        return bool((self.levels <= 1).all())

    def size(self) -> tuple[int, ...]:
        """What shrinking makes small, most important first."""
        if self._size is None:
            size = (self.n_docs, self.n_intents, len(self.judgments()[0]), int(self.levels.sum()),
                    len(self.worse) + len(self.better))
            object.__setattr__(self, "_size", size)
        return self._size

    def judgments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(document, intent, level) of each qrels line: a judged document's positive levels, or one line
        at level 0 for intent 0 when it has none (an unjudged document has no line)."""
        positive = (self.levels > 0) & self.judged[:, None]
        irrelevant = self.judged & ~positive.any(axis=1)
        doc, intent = np.nonzero(positive)
        zero = np.flatnonzero(irrelevant)
        docs = np.concatenate([doc, zero])
        order = np.argsort(docs, kind="stable")
        intents = np.concatenate([intent, np.zeros(len(zero), dtype=np.int64)])
        levels = np.concatenate([self.levels[doc, intent], np.zeros(len(zero), dtype=np.int64)])
        return docs[order], intents[order], levels[order]

    def key(self) -> bytes:
        """Identity of the case (equal keys: the same qrels, weights, rankings and parameter)."""
        if self._key is None:
            weights = b"" if self.weights is None else self.weights.tobytes()
            key = b"|".join([np.asarray(self.levels.shape).tobytes(), self.levels.tobytes(),
                             self.judged.tobytes(), weights, np.asarray(self.worse).tobytes(),
                             np.asarray(self.better).tobytes(), str(self.param).encode()])
            object.__setattr__(self, "_key", key)
        return self._key

    # -- canonical form ----------------------------------------------------
    def normalised(self) -> "Case":
        """The same case with intents lacking a relevant document dropped (the measures ignore
        them; weights renormalised), unranked unjudged documents dropped, and documents
        renumbered in order of appearance (worse, better, then the rest)."""
        levels = np.maximum(np.asarray(self.levels, dtype=np.int64), 0)
        judged = np.asarray(self.judged, dtype=bool) & np.ones(len(levels), dtype=bool)
        keep_intents = (levels > 0).any(axis=0)
        weights = self.weights
        if not keep_intents.all():
            levels = levels[:, keep_intents]
            if weights is not None:
                weights = weights[keep_intents]
        if weights is not None:
            total = weights.sum()
            weights = weights / total if total > 0 else None
        ranked = dict.fromkeys((*self.worse, *self.better))
        order = [*ranked, *(d for d in np.flatnonzero(judged).tolist() if d not in ranked)]
        new = {old: pos for pos, old in enumerate(order)}
        return Case(levels[order].reshape(len(order), levels.shape[1]), judged[order],
                    tuple(new[d] for d in self.worse), tuple(new[d] for d in self.better), weights, self.param)

    # -- as files ------------------------------------------------------------
    def qrels_lines(self, topic: str = "1") -> list[str]:
        """``topic intent docno level`` lines (a judged non-relevant document: one line, intent 1, level 0)."""
        return [f"{topic} {i + 1} {docno(d)} {lv}" for d, i, lv in zip(*(a.tolist() for a in self.judgments()))]

    def run_lines(self, side: str, topic: str = "1") -> list[str]:
        """The ranking ``side`` (worse or better) as TREC run lines, scores descending."""
        ranking = self.worse if side == WORSE else self.better
        return [f"{topic} Q0 {docno(doc)} {rank} {len(ranking) - rank + 1} {side}"
                for rank, doc in enumerate(ranking, start=1)]

    def iprob_lines(self, topic: str = "1") -> list[str]:
        """``topic intent probability`` lines, or none when the weights are uniform."""
        if self.weights is None:
            return []
        return [f"{topic} {i + 1} {float(w)!r}" for i, w in enumerate(self.weights)]


def docno(doc: int) -> str:
    return f"d{doc + 1}"


def with_levels(case: Case, levels: np.ndarray, judged: np.ndarray | None = None) -> Case:
    return replace(case, levels=levels, judged=case.judged if judged is None else judged, _key=None, _size=None)


class Builder:
    """Collects documents (a level per intent) for one generated case."""

    def __init__(self, n_intents: int) -> None:
        self.n_intents = n_intents
        self.rows: list[np.ndarray] = []
        self.judged: list[bool] = []

    def doc(self, levels=None, judged: bool = True) -> int:
        """A new document with these levels (default: 0 everywhere); its index."""
        row = np.zeros(self.n_intents, dtype=np.int64)
        if levels is not None:
            row[:] = levels
        self.rows.append(row)
        self.judged.append(bool(judged) or bool((row > 0).any()))
        return len(self.rows) - 1

    def only(self, intent: int, level: int) -> int:
        """A new document relevant to one intent only."""
        row = np.zeros(self.n_intents, dtype=np.int64)
        row[intent] = level
        return self.doc(row)

    def case(self, worse, better, weights: np.ndarray | None = None, param: int | None = None) -> Case:
        levels = np.array(self.rows, dtype=np.int64).reshape(len(self.rows), self.n_intents)
        return Case(levels, np.array(self.judged, dtype=bool), tuple(worse), tuple(better),
                    weights, param).normalised()


# -- scoring many cases at once ----------------------------------------------------------

def _ignore(_message: str) -> None:
    pass


def batch_qrels(cases: list[Case]) -> Qrels:
    """One topic per case (topic ``k+1`` for case k), intent weights included: the lines each case prints."""
    topic, intent, doc, level = [], [], [], []
    for k, case in enumerate(cases):
        d, i, lv = case.judgments()
        topic.append(np.full(len(d), k + 1))
        intent.append(i + 1)
        doc.append(d)
        level.append(lv)
    doc_all = np.concatenate(doc)
    qrels = Qrels.from_arrays(np.concatenate(topic), np.concatenate(intent), [docno(d) for d in doc_all.tolist()],
                              np.concatenate(level), name="<axioms>")
    if any(case.weights is not None for case in cases):
        p_topic, p_intent, p_value = [], [], []
        for k, case in enumerate(cases):
            weights = case.weights if case.weights is not None else np.full(case.n_intents, 1.0 / case.n_intents)
            p_topic += [str(k + 1)] * len(weights)
            p_intent += [str(i + 1) for i in range(len(weights))]
            p_value += [float(w) for w in weights]
        n = len(p_topic)
        iprob = IntentProbabilities("<axioms>", np.array(p_topic, dtype=object), np.array(p_intent, dtype=object),
                                    np.array(p_value, dtype=np.float64), np.full(n, "", dtype=object),
                                    np.arange(1, n + 1))
        qrels = qrels.with_iprob(iprob, _ignore)
    return qrels


def batch_run(cases: list[Case], side: str) -> RunTable:
    topic, doc = [], []
    for k, case in enumerate(cases):
        ranking = case.worse if side == WORSE else case.better
        topic.extend([str(k + 1)] * len(ranking))
        doc.extend(docno(d) for d in ranking)
    return RunTable.from_arrays(topic, doc, runid=side)


def score_cases(cases: list[Case], measures: list[Measure], settings: Settings | None = None,
                warn: WarningSink = _ignore) -> tuple[np.ndarray, np.ndarray]:
    """(worse, better): (cases x measures) scores of both rankings of every case."""
    if not cases:
        empty = np.zeros((0, len(measures)))
        return empty, empty.copy()
    evaluator = Evaluator(batch_qrels(cases), measures, complete=True, settings=settings, warn=warn)
    worse = evaluator.score(batch_run(cases, WORSE))
    better = evaluator.score(batch_run(cases, BETTER))
    return np.asarray(worse.matrix, dtype=np.float64), np.asarray(better.matrix, dtype=np.float64)


def violations(worse: np.ndarray, better: np.ndarray, strict: bool) -> np.ndarray:
    """Where ``better > worse`` (strict) or ``better >= worse`` fails, ties within TIE_TOLERANCE."""
    scale = np.maximum(1.0, np.maximum(np.abs(worse), np.abs(better)))
    difference = better - worse
    if strict:
        return ~(difference > TIE_TOLERANCE * scale)
    return ~(difference >= -TIE_TOLERANCE * scale)
