"""The paired bootstrap test with studentised statistics (Sakai 2006, "Evaluating evaluation metrics
based on the bootstrap", SIGIR; Efron & Tibshirani 1993, sec. 16.4).

For a pair with per-topic differences d (n topics): t(d) = mean(d) / (sd(d)/sqrt(n)).
The null hypothesis is made true by centring, w_t = d_t - mean(d). A trial
resamples n topics with replacement (the same topics for every pair of the
trial) and computes t(w*); the achieved significance level (ASL, the p-value)
is the share of trials with |t(w*)| >= |t(d)| (two-sided). A trial's resample
is a vector of counts c (how often each topic was drawn), so the sums a trial
needs for all pairs are two products, c @ w and c @ w^2.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from .blocks import Progress, SeedLike, TrialBlock, chunk_sizes, run_blocks, tolerance


def studentised(total: np.ndarray, squares: np.ndarray, n: int, tol: float) -> np.ndarray:
    """|t| of samples given by their sums and sums of squares; infinite for equal values not 0, 0 for all 0."""
    mean = total / n
    variance = np.maximum(squares - n * mean * mean, 0.0) / (n - 1)
    flat = variance <= 1e-12 * squares / n     # equal values: the variance is rounding only
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / np.sqrt(variance / n)
    return np.where(flat, np.where(np.abs(mean) > tol, np.inf, 0.0), t)


def bootstrap_block(centred: np.ndarray, observed: np.ndarray, tol: float, block: TrialBlock) -> np.ndarray:
    """One block's trials: per comparison (column of ``centred``), the resamples with |t(w*)| >= |t(d)|."""
    rng = block.generator()
    n = centred.shape[0]
    squares = centred * centred
    counts = np.zeros(centred.shape[1], dtype=np.int64)
    for size in chunk_sizes(block.trials, 2 * n + 2 * centred.shape[1]):
        drawn = np.minimum((rng.random((size, n)) * n).astype(np.int64), n - 1)
        offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
        times = np.bincount((drawn + offsets).ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        t = studentised(times @ centred, times @ squares, n, tol)
        counts += (t >= observed * (1.0 - 1e-9)).sum(axis=0)
    return counts


def paired_bootstrap(diffs: np.ndarray, trials: int = 10_000, seed: SeedLike = 0, *,
                     progress: Progress | None = None, map_blocks: Callable = map) -> np.ndarray:
    """Two-sided ASLs of the studentised paired bootstrap test of ``diffs`` (topics first, any trailing shape)."""
    diffs = np.asarray(diffs, dtype=np.float64)
    flat = diffs.reshape(diffs.shape[0], -1)
    n = flat.shape[0]
    if n < 2:
        raise ValueError("a bootstrap test needs at least two topics")
    tol = tolerance(flat)
    observed = studentised(flat.sum(axis=0), (flat * flat).sum(axis=0), n, tol)
    centred = flat - flat.mean(axis=0)
    counts = run_blocks(partial(bootstrap_block, centred, observed, tol), trials, seed, progress, map_blocks)
    return (counts / float(trials)).reshape(diffs.shape[1:])
