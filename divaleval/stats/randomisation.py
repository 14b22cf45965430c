"""Fisher's randomisation test of paired differences (two-sided), randomised or exact.

Under the null hypothesis the two runs' scores of a topic are exchangeable, so
each difference d_t keeps or flips its sign with probability 1/2. A trial draws
the signs s_t and records |sum_t s_t d_t|; with b of B trials reaching the
observed |sum_t d_t| (compared with a tolerance of rounding, so that equal sums
count as equal), the p-value is (b + 1) / (B + 1): the observed signs are one
of the arrangements, so it is never 0 (Phipson & Smyth 2010). One sign vector
per trial serves every comparison at once: counts for P pairs are one (trials x topics) @
(topics x P) product. With few topics (2^n <= trials), every one of the 2^n
sign vectors is enumerated instead, which gives the exact p-value.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from .blocks import Progress, SeedLike, TrialBlock, chunk_sizes, monte_carlo_p, run_blocks, tolerance


def _flat(diffs: np.ndarray) -> np.ndarray:
    diffs = np.asarray(diffs, dtype=np.float64)
    return diffs.reshape(diffs.shape[0], -1)


def _count(sums: np.ndarray, observed: np.ndarray, tol: float) -> np.ndarray:
    return (np.abs(sums) >= observed - tol).sum(axis=0)


def randomisation_block(diffs: np.ndarray, tol: float, block: TrialBlock) -> np.ndarray:
    """Trials of one block: per comparison (column of ``diffs``, topics x comparisons), how many reach the observed."""
    rng = block.generator()
    observed = np.abs(diffs.sum(axis=0))
    counts = np.zeros(diffs.shape[1], dtype=np.int64)
    for size in chunk_sizes(block.trials, diffs.shape[0] + diffs.shape[1]):
        signs = np.where(rng.random((size, diffs.shape[0])) < 0.5, -1.0, 1.0)
        counts += _count(signs @ diffs, observed, tol)
    return counts


def exact_counts(diffs: np.ndarray, tol: float) -> np.ndarray:
    """Over all 2^n sign vectors: per comparison, how many reach the observed |sum|."""
    n = diffs.shape[0]
    observed = np.abs(diffs.sum(axis=0))
    counts = np.zeros(diffs.shape[1], dtype=np.int64)
    bits = np.arange(n, dtype=np.int64)
    total = 1 << n
    for start, size in _ranges(total, n + diffs.shape[1]):
        codes = np.arange(start, start + size, dtype=np.int64)
        signs = np.where((codes[:, None] >> bits) & 1, -1.0, 1.0)
        counts += _count(signs @ diffs, observed, tol)
    return counts


def _ranges(total: int, per_item: int):
    start = 0
    for size in chunk_sizes(total, per_item):
        yield start, size
        start += size


def enumerated(topics: int, trials: int) -> bool:
    """Whether :func:`randomisation_test` enumerates every sign vector (2^n <= trials) rather than drawing."""
    return topics < 63 and (1 << topics) <= trials


def randomisation_test(diffs: np.ndarray, trials: int = 10_000, seed: SeedLike = 0, *,
                       exact: bool | None = None, progress: Progress | None = None,
                       map_blocks: Callable = map) -> np.ndarray:
    """Two-sided p-values of Fisher's paired randomisation test of ``diffs`` (topics first, any trailing shape).

    exact: enumerate all 2^n sign vectors (default: when 2^n <= trials; p is the
    share of them at least as extreme, exactly), else ``trials`` random ones from
    ``seed`` (p = (b + 1) / (B + 1), b of them at least as extreme: never 0).
    """
    diffs = np.asarray(diffs, dtype=np.float64)
    flat = _flat(diffs)
    tol = tolerance(flat) * flat.shape[0]
    if exact is None:
        exact = enumerated(flat.shape[0], trials)
    if exact:
        p = exact_counts(flat, tol) / float(1 << flat.shape[0])
        if progress is not None:
            progress(trials)
    else:
        counts = run_blocks(partial(randomisation_block, flat, tol), trials, seed, progress, map_blocks)
        p = monte_carlo_p(counts, trials)
    return p.reshape(diffs.shape[1:])
