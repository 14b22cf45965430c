"""The paired bootstrap test with studentised statistics (Sakai 2006, "Evaluating evaluation metrics
based on the bootstrap", SIGIR; Efron & Tibshirani 1993, sec. 16.4).

For a pair with per-topic differences d (n topics): t(d) = mean(d) / (sd(d)/sqrt(n)).
The null hypothesis is made true by centring, w_t = d_t - mean(d). A trial
resamples n topics with replacement (the same topics for every pair of the
trial) and computes t(w*); the achieved significance level (ASL, the p-value)
is (b + 1) / (B + 1), b of the B trials having |t(w*)| >= |t(d)| (two-sided;
Davison & Hinkley 1997 eq. 4.11: never 0). A trial's resample
is a vector of counts c (how often each topic was drawn), so the sums a trial
needs for all pairs are two products, c @ w and c @ w^2.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from .blocks import Progress, SeedLike, TrialBlock, chunk_sizes, monte_carlo_p, run_blocks, tolerance
from .critical import combine_tails, critical_value, largest, tail_size

REACH = 1.0 - 1e-9      # |t*| >= |t(d)| REACH counts as reaching: rounding must not decide


def studentised(total: np.ndarray, squares: np.ndarray, n: int, tol: float) -> np.ndarray:
    """|t| of samples given by their sums and sums of squares; infinite for equal values not 0, 0 for all 0."""
    mean = total / n
    variance = np.maximum(squares - n * mean * mean, 0.0) / (n - 1)
    flat = variance <= 1e-12 * squares / n     # equal values: the variance is rounding only
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / np.sqrt(variance / n)
    return np.where(flat, np.where(np.abs(mean) > tol, np.inf, 0.0), t)


def _trial_statistics(centred: np.ndarray, tol: float, block: TrialBlock):
    """|t(w*)| of one block's resamples, chunk by chunk: (size, comparisons) each."""
    rng = block.generator()
    n = centred.shape[0]
    squares = centred * centred
    for size in chunk_sizes(block.trials, 2 * n + 2 * centred.shape[1]):
        drawn = np.minimum((rng.random((size, n)) * n).astype(np.int64), n - 1)
        offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
        times = np.bincount((drawn + offsets).ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        yield studentised(times @ centred, times @ squares, n, tol)


def bootstrap_block(centred: np.ndarray, observed: np.ndarray, tol: float, block: TrialBlock) -> np.ndarray:
    """One block's trials: per comparison (column of ``centred``), the resamples with |t(w*)| >= |t(d)|."""
    counts = np.zeros(centred.shape[1], dtype=np.int64)
    for t in _trial_statistics(centred, tol, block):
        counts += (t >= observed * REACH).sum(axis=0)
    return counts


def bootstrap_tail_block(centred: np.ndarray, observed: np.ndarray, tol: float, keep: int, block: TrialBlock
                         ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bootstrap_block`'s counts (the same resamples) and the block's ``keep`` largest |t(w*)|."""
    t = np.concatenate(list(_trial_statistics(centred, tol, block)), axis=0)
    return (t >= observed * REACH).sum(axis=0), largest(t, keep)


def _setup(diffs: np.ndarray):
    diffs = np.asarray(diffs, dtype=np.float64)
    flat = diffs.reshape(diffs.shape[0], -1)
    n = flat.shape[0]
    if n < 2:
        raise ValueError("a bootstrap test needs at least two topics")
    tol = tolerance(flat)
    observed = studentised(flat.sum(axis=0), (flat * flat).sum(axis=0), n, tol)
    return diffs, flat, tol, observed, flat - flat.mean(axis=0)


def paired_bootstrap(diffs: np.ndarray, trials: int = 10_000, seed: SeedLike = 0, *,
                     progress: Progress | None = None, map_blocks: Callable = map) -> np.ndarray:
    """Two-sided ASLs of the studentised paired bootstrap test of ``diffs`` (topics first, any trailing shape)."""
    diffs, flat, tol, observed, centred = _setup(diffs)
    counts = run_blocks(partial(bootstrap_block, centred, observed, tol), trials, seed, progress, map_blocks)
    return monte_carlo_p(counts, trials).reshape(diffs.shape[1:])


@dataclass
class PairedBootstrap:
    """The studentised paired bootstrap test with its bootstrap-t intervals (one value per comparison)."""
    p: np.ndarray             # (b + 1) / (B + 1), as :func:`paired_bootstrap`
    ci_low: np.ndarray        # mean -+ c sd / sqrt(n), c the critical |t*| at alpha / family
    ci_high: np.ndarray
    trials: int


def paired_bootstrap_intervals(diffs: np.ndarray, trials: int = 10_000, seed: SeedLike = 0, alpha: float = 0.05,
                               family: int = 1, *, progress: Progress | None = None,
                               map_blocks: Callable = map) -> PairedBootstrap:
    """:func:`paired_bootstrap` (the same resamples) with symmetric bootstrap-t intervals, Bonferroni over ``family``.

    The interval of a comparison is mean(d) -+ c sd(d) / sqrt(n), c the critical
    value of its own resampled |t*| at level alpha / family (:mod:`.critical`;
    the studentised "bootstrap-t" interval, Efron & Tibshirani 1993 sec. 12.5,
    made symmetric as Hall 1988 does for a two-sided test): it excludes 0
    exactly when family * p < alpha, the Bonferroni-adjusted test.
    """
    diffs, flat, tol, observed, centred = _setup(diffs)
    keep = tail_size(trials, alpha, family)
    counts, tail = run_blocks(partial(bootstrap_tail_block, centred, observed, tol, keep), trials, seed, progress,
                              map_blocks, combine=partial(combine_tails, keep=keep))
    n = flat.shape[0]
    se = flat.std(axis=0, ddof=1) / np.sqrt(n)
    with np.errstate(invalid="ignore"):   # a constant difference: no spread, the interval is the point
        half = np.where(se > 0, critical_value(tail, keep) / REACH * se, 0.0)
    mean = flat.mean(axis=0)
    shape = diffs.shape[1:]
    return PairedBootstrap(monte_carlo_p(counts, trials).reshape(shape), (mean - half).reshape(shape),
                           (mean + half).reshape(shape), trials)
