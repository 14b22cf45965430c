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
_DISCOUNTS: list[float] = []  # log(i + 2) / log(2), from C's log as Perl's (numpy's log may differ in a bit)


def _discounts(length: int) -> np.ndarray:
    while len(_DISCOUNTS) < length:
        _DISCOUNTS.append(math.log(len(_DISCOUNTS) + 2) / LOG2)
    return np.array(_DISCOUNTS[:length])


def topic_rows(gains: np.ndarray, starts: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """A row per topic: its first ``cuts[t]`` gains from ``gains[starts[t]]``, zeros after (as wide as the
    longest)."""
    width = int(cuts.max()) if len(cuts) else 0
    positions = np.arange(width)
    inside = positions < cuts[:, None]
    return np.where(inside, gains[np.minimum(starts[:, None] + positions, max(len(gains) - 1, 0))], 0)


def dcg_and_err(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DCG and ERR of each row of gains, term by term in gdeval.pl's order: numpy's cumulative sums and
    products run left to right, as its loop; a 0 gain (which gdeval.pl skips) adds 0 and multiplies
    the decay by 1, which changes no bit."""
    if not rows.shape[1]:
        return np.zeros(len(rows)), np.zeros(len(rows))
    gain = 2.0 ** rows - 1
    dcg_values = np.cumsum(gain / _discounts(rows.shape[1]), axis=1)[:, -1]
    stop = gain / STOP_SCALE
    decay = np.ones_like(stop)  # before each rank: the product of (1 - stop) above it
    decay[:, 1:] = np.cumprod(1 - stop[:, :-1], axis=1)
    err_values = np.cumsum(stop * decay / np.arange(1, rows.shape[1] + 1), axis=1)[:, -1]
    return dcg_values, err_values


def topic_values(gains: np.ndarray, starts: np.ndarray, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DCG and ERR of each topic's first ``cuts[t]`` gains from ``gains[starts[t]]``: all topics as one
    matrix, or a topic at a time where one is far longer than the others (``-k`` large)."""
    if len(cuts) * int(cuts.max(initial=0)) <= 4 * int(cuts.sum()) + 65536:
        return dcg_and_err(topic_rows(gains, starts, cuts))
    each = [dcg_and_err(topic_rows(gains, starts[t:t + 1], cuts[t:t + 1])) for t in range(len(cuts))]
    return np.concatenate([dcg_values for dcg_values, _ in each]), np.concatenate([err_values for _, err_values in each])


def dcg(gains: np.ndarray, depth: int) -> float:
    """DCG of the first ``depth`` gains, in gdeval.pl's order."""
    return float(dcg_and_err(np.asarray(gains[:depth])[None, :])[0][0])


def err(gains: np.ndarray, depth: int) -> float:
    """ERR of the first ``depth`` gains."""
    return float(dcg_and_err(np.asarray(gains[:depth])[None, :])[1][0])


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
    ideal_dcg = _ideal_dcg(judgments, opts)

    def add(topic: str, dcg_value: float, err_value: float, base: tuple[Number, Number]) -> None:
        ideal = ideal_dcg.get(topic)
        if ideal is None:
            raise IdealMissing(topic)
        ndcg = dcg_value / ideal
        if baseline is not None:
            ndcg, err_value = risk_weighted(ndcg, base[0], alpha), risk_weighted(err_value, base[1], alpha)
        scored.rows.append((topic, ndcg, err_value))
        scored.by_topic[topic] = (ndcg, err_value)

    try:
        cuts = _cuts(np.diff(run.bounds), opts)
        firsts = np.cumsum(cuts) - cuts  # where each topic's first k lines start among them all
        counted = np.repeat(run.bounds[:-1] - firsts, cuts) + np.arange(int(cuts.sum()))
        dcg_values, err_values = topic_values(judgments.grades_of(run.keys_at(counted)), firsts, cuts)
        for topic, dcg_value, err_value in zip(run.topics, dcg_values.tolist(), err_values.tolist()):
            if topic in judgments.topics:
                base = _defined(baseline.by_topic.get(topic) if baseline else None, (0, 0))
                add(topic, dcg_value, err_value, base)
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
                        add(topic, 0.0, 0.0, base)  # no documents: DCG and ERR 0
    except IdealMissing:
        scored.stopped = True
    return scored


def _cuts(lengths: np.ndarray, opts: Options) -> np.ndarray:
    """How many documents of each list count (-k)."""
    return np.minimum(lengths, opts.cutoff(int(lengths.max(initial=0))))


def _ideal_dcg(judgments: Judgments, opts: Options) -> dict[str, float]:
    """Each qrels topic's ideal DCG at the depth: its relevant lines, best first, cut at k."""
    lists = list(judgments.ideal_gains.values())
    if not lists:
        return {}
    lengths = np.array([len(gains) for gains in lists])
    dcg_values, _ = topic_values(np.concatenate(lists), np.cumsum(lengths) - lengths, _cuts(lengths, opts))
    return dict(zip(judgments.ideal_gains, dcg_values.tolist()))


def _defined(values: tuple[Number | None, Number | None] | None,
             previous: tuple[Number, Number]) -> tuple[Number, Number]:
    if values is None:
        return previous
    return tuple(value if value is not None else kept for value, kept in zip(values, previous))
