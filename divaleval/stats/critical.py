"""Critical values of randomised tests, so that an interval excludes 0 exactly when its test rejects.

A randomised test compares an observed statistic s with B trials' statistics
S_1..S_B and reports p = (b + 1) / (B + 1), b = #{S_i >= s} (Phipson & Smyth
2010). At a level alpha, shared by ``family`` comparisons as Bonferroni shares
it, the test rejects when family * p < alpha, i.e. when b < K, K the number of
counts b in 0..B with family * (b + 1) / (B + 1) < alpha. Since b < K exactly
when the K-th largest trial statistic is below s, that K-th largest value c is
the critical value: the interval estimate +- c (on the statistic's scale)
excludes 0 exactly when the test rejects. With K = 0 (too few trials for the
level: B + 1 <= family / alpha) no test can reject, and c is infinite.

A block of trials keeps only its K largest statistics per column (at most
alpha B of them), so the memory is that of the counts, whatever B.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np


def tail_size(trials: int, alpha: float, family: int = 1) -> int:
    """K: how many counts b = 0, 1, ... make family * (b + 1) / (B + 1) < alpha (the rejecting ones)."""
    def rejects(b: int) -> bool:
        return family * ((b + 1.0) / (trials + 1.0)) < alpha

    guess = max(0, min(trials + 1, math.ceil(alpha * (trials + 1) / family) - 1))
    while guess > 0 and not rejects(guess - 1):     # the float comparison decides, as the adjusted p's does
        guess -= 1
    while guess <= trials and rejects(guess):
        guess += 1
    return guess


def largest(values: np.ndarray, keep: int) -> np.ndarray:
    """The ``keep`` largest values of each column of ``values`` (trials first), largest first."""
    values = np.asarray(values, dtype=np.float64)
    if keep <= 0:
        return values[:0]
    return -np.sort(-values, axis=0)[:keep]


def combine_tails(results: Iterable[tuple[np.ndarray, np.ndarray]], keep: int) -> tuple[np.ndarray, np.ndarray]:
    """Blocks' (counts, ``keep`` largest statistics): the counts summed, the ``keep`` largest of all blocks.

    The tails are merged by sorting, so the order of the blocks does not matter.
    """
    total, tails = None, []
    for counts, tail in results:
        total = np.array(counts, dtype=np.int64) if total is None else total + counts
        tails.append(tail)
    return total, largest(np.concatenate(tails, axis=0), keep)


def critical_value(tail: np.ndarray, keep: int) -> np.ndarray:
    """The K-th largest trial statistic per column (``tail`` holds the K largest), infinite for K = 0."""
    if keep <= 0:
        return np.full(tail.shape[1:], np.inf)
    return tail[keep - 1]
