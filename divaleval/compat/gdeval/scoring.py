"""nDCG@k and ERR@k of a topic, and the risk-sensitive differences, in gdeval.pl's arithmetic.

The values are divaleval's nDCG (gains ``2^g - 1``, discount ``log2(i + 2)``)
and ERR (stopping probability ``(2^g - 1) / 2^4``), but computed term by term
in gdeval.pl's order so that every printed digit is its: each discount is
``log(i + 2) / log(2)`` (not ``log2``), DCG is a left-to-right sum of
``gain / discount``, ERR adds ``r * decay / rank`` and then multiplies the
decay by ``1 - r``. The ideal list is every relevant qrels line of the topic,
best first, cut at k, so a repeated line counts twice. The measure kernels
(measures/) sum by blocks and take log2, which can move the last bit, and the
fifth decimal of a mean is sometimes that close to a tie.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .options import MAX_GRADE, Number, Options
from .reading import Judgments, Run

LOG2 = math.log(2.0)
STOP_SCALE = 2.0 ** MAX_GRADE
NO_GAINS = np.zeros(0, dtype=np.int64)
_DISCOUNTS: list[float] = []  # log(i + 2) / log(2), from C's log as Perl's (numpy's log may differ in a bit)


def _discounts(length: int) -> list[float]:
    while len(_DISCOUNTS) < length:
        _DISCOUNTS.append(math.log(len(_DISCOUNTS) + 2) / LOG2)
    return _DISCOUNTS


def dcg(gains: np.ndarray, depth: int) -> Number:
    """DCG of the first ``depth`` gains, in gdeval.pl's order (a 0 gain adds nothing: skipped)."""
    score: Number = 0
    discounts = _discounts(depth)
    for i in np.flatnonzero(gains[:depth]).tolist():
        score += (2.0 ** int(gains[i]) - 1) / discounts[i]
    return score


def err(gains: np.ndarray, depth: int) -> float:
    """ERR of the first ``depth`` gains (a 0 gain changes neither the score nor the decay: skipped)."""
    score, decay = 0.0, 1.0
    for i in np.flatnonzero(gains[:depth]).tolist():
        stop = (2.0 ** int(gains[i]) - 1) / STOP_SCALE
        score += stop * decay / (i + 1)
        decay *= 1 - stop
    return score


def risk_weighted(value: Number, base: Number, alpha: Number) -> Number:
    """The difference from the baseline, a loss weighted by 1 + alpha."""
    return (1 + alpha) * (value - base) if value < base else value - base


STOP_REASON = ("a topic has relevant documents only under another spelling of its number in the qrels "
               "(gdeval.pl divides by zero there and stops)")


class IdealMissing(Exception):
    """gdeval.pl stops ("Illegal division by zero"): a topic with relevant documents but no ideal list of
    its own, its number being spelt otherwise in a qrels line that sorts first (``051`` and ``51``)."""


@dataclass
class Scored:
    """A run's printed rows (topic, nDCG, ERR) in order, and the mean's divisor.

    ``by_topic`` is what a baseline offers later topics: its values, with
    None where gdeval.pl leaves them undefined (a run topic without a relevant
    document gets an nDCG of "" (0) and no ERR).
    """

    runid: str
    rows: list[tuple[str, Number, Number]] = field(default_factory=list)
    by_topic: dict[str, tuple[Number | None, Number | None]] = field(default_factory=dict)
    divisor: int = 0
    stopped: bool = False  # gdeval.pl stopped after the rows so far (IdealMissing)

    def mean(self) -> tuple[Number, Number]:
        """Sums in row order, divided by the divisor (unless 0)."""
        ndcg_sum: Number = 0
        err_sum: Number = 0
        for _, ndcg, err_value in self.rows:
            ndcg_sum += ndcg
            err_sum += err_value
        if self.divisor > 0:
            return ndcg_sum / self.divisor, err_sum / self.divisor
        return ndcg_sum, err_sum


def score(judgments: Judgments, run: Run, opts: Options, baseline: Scored | None = None) -> Scored:
    """A run's rows as gdeval.pl computes them (against ``baseline``: risk-weighted differences).

    Run topics without a relevant document are left out. With ``-c`` the mean
    divides by the number of qrels topics; with a baseline too, the topics the
    run lacks are added after its own (ascending) as scoring 0 against the
    baseline; for those, a value the baseline lacks is the one used for the
    previous such topic (gdeval.pl's variables are not reset between them).
    """
    scored = Scored(run.runid)
    alpha = opts.risk_alpha

    def add(topic: str, gains: np.ndarray, base: tuple[Number, Number]) -> None:
        depth = opts.cutoff(len(gains))
        ideal = judgments.ideal_gains.get(topic)
        if ideal is None:
            raise IdealMissing(topic)
        ndcg = dcg(gains, depth) / dcg(ideal, opts.cutoff(len(ideal)))
        err_value = err(gains, depth)
        if baseline is not None:
            ndcg, err_value = risk_weighted(ndcg, base[0], alpha), risk_weighted(err_value, base[1], alpha)
        scored.rows.append((topic, ndcg, err_value))
        scored.by_topic[topic] = (ndcg, err_value)

    try:
        gains = judgments.grades_of(run.keys)
        for topic, lo, hi in zip(run.topics, run.bounds[:-1].tolist(), run.bounds[1:].tolist()):
            if topic in judgments.topics:
                base = _defined(baseline.by_topic.get(topic) if baseline else None, (0, 0))
                add(topic, gains[lo:hi], base)
            else:
                scored.by_topic[topic] = (0, None)
        scored.divisor = len(scored.rows)
        if opts.complete:
            scored.divisor = len(judgments.topics)
            if baseline is not None:
                done = set(run.topics)
                # gdeval.pl's list of topics holds its hash's keys and values (1): so "1" too.
                base = (0, 0)
                for topic in sorted((judgments.topics | {"1"}) - done, key=int):
                    base = _defined(baseline.by_topic.get(topic), base)
                    if topic in judgments.topics:
                        add(topic, NO_GAINS, base)
    except IdealMissing:
        scored.stopped = True
    return scored


def _defined(values: tuple[Number | None, Number | None] | None,
             previous: tuple[Number, Number]) -> tuple[Number, Number]:
    if values is None:
        return previous
    return tuple(value if value is not None else kept for value, kept in zip(values, previous))
