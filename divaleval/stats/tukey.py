"""The randomised Tukey HSD test (Sakai 2014, "Metrics, statistics, tests"; Carterette 2012).

Over a topics x runs matrix: a trial permutes every topic's row across the runs
independently and records the range of the run means, max - min. A pair's
p-value is (b + 1) / (B + 1), b of the B trials having a range at least the
pair's |mean difference| (Phipson & Smyth 2010). Comparing every pair with the
largest difference of the trial is what corrects for the multiple comparisons:
the p-values hold for the family of all pairs of the matrix, and so does the
interval of every pair, diff -+ the critical range (:mod:`.critical`). A trial's permutations are the argsort of uniform
draws, so a block draws only doubles. A trailing axis holds several matrices
(measures) that share the trials.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from .blocks import Progress, SeedLike, TrialBlock, chunk_sizes, monte_carlo_p, run_blocks, tolerance
from .critical import combine_tails, critical_value, largest, tail_size
from .paired import all_pairs, as_cube


def _ranges(matrix: np.ndarray, permutations: np.ndarray) -> np.ndarray:
    """Ranges of the run means after permuting each topic's row: (trials, k)."""
    topics = np.arange(matrix.shape[0])[None, :, None]
    permuted = matrix[topics, permutations]              # (trials, topics, runs, k)
    means = permuted.mean(axis=1)                        # (trials, runs, k)
    return means.max(axis=1) - means.min(axis=1)


def _count_reaching(ranges: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Per threshold (pairs, k): how many trial ranges (trials, k) reach it."""
    counts = np.empty(thresholds.shape, dtype=np.int64)
    for column in range(thresholds.shape[1]):
        ordered = np.sort(ranges[:, column])
        counts[:, column] = ordered.size - np.searchsorted(ordered, thresholds[:, column], side="left")
    return counts


def _trial_ranges(matrix: np.ndarray, block: TrialBlock):
    """The ranges of one block's trials over ``matrix`` (topics, runs, k), chunk by chunk: (size, k) each."""
    rng = block.generator()
    n, m, k = matrix.shape
    for size in chunk_sizes(block.trials, n * m * (k + 2)):
        permutations = np.argsort(rng.random((size, n, m)), axis=2)
        yield _ranges(matrix, permutations)


def tukey_hsd_block(matrix: np.ndarray, thresholds: np.ndarray, block: TrialBlock) -> np.ndarray:
    """One block's trials over ``matrix`` (topics, runs, k): per (pair, k), the trials whose range reaches it."""
    counts = np.zeros(thresholds.shape, dtype=np.int64)
    for ranges in _trial_ranges(matrix, block):
        counts += _count_reaching(ranges, thresholds)
    return counts


def tukey_tail_block(matrix: np.ndarray, thresholds: np.ndarray, keep: int, block: TrialBlock
                     ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tukey_hsd_block`'s counts (the same draws) and the block's ``keep`` largest ranges per matrix."""
    ranges = np.concatenate(list(_trial_ranges(matrix, block)), axis=0)
    return _count_reaching(ranges, thresholds), largest(ranges, keep)


def _setup(matrix: np.ndarray, pairs: np.ndarray | None):
    cube = as_cube(matrix)
    pairs = all_pairs(cube.shape[1]) if pairs is None else np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    means = cube.mean(axis=0)                                           # (runs, k)
    # Rounding must not decide: a range equal to a difference up to it counts as reaching it.
    tol = tolerance(cube)
    thresholds = np.abs(means[pairs[:, 0]] - means[pairs[:, 1]]) - tol
    return cube, pairs, thresholds, tol


def randomised_tukey_hsd(matrix: np.ndarray, pairs: np.ndarray | None = None, trials: int = 10_000,
                         seed: SeedLike = 0, *, progress: Progress | None = None,
                         map_blocks: Callable = map) -> np.ndarray:
    """p-values of the randomised Tukey HSD test for ``pairs`` of runs (default: all pairs, a < b).

    matrix: topics x runs, or topics x runs x k (k matrices sharing the trials).
    Returns an array of shape (pairs,) or (pairs, k); p = (b + 1) / (B + 1).
    """
    cube, pairs, thresholds, _ = _setup(matrix, pairs)
    counts = run_blocks(partial(tukey_hsd_block, cube, thresholds), trials, seed, progress, map_blocks)
    p = monte_carlo_p(counts, trials)
    return p[:, 0] if np.asarray(matrix).ndim == 2 else p


@dataclass
class TukeyHSD:
    """The randomised Tukey HSD test of pairs with its simultaneous intervals (one column per matrix)."""
    p: np.ndarray             # (pairs, k), or (pairs,) for one matrix: as :func:`randomised_tukey_hsd`
    half_width: np.ndarray    # (k,), or a scalar for one matrix: every pair's interval is diff -+ half_width
    trials: int


def randomised_tukey_hsd_intervals(matrix: np.ndarray, pairs: np.ndarray | None = None, trials: int = 10_000,
                                   seed: SeedLike = 0, alpha: float = 0.05, *, progress: Progress | None = None,
                                   map_blocks: Callable = map) -> TukeyHSD:
    """The p-values of :func:`randomised_tukey_hsd` (the same trials) and simultaneous 1 - alpha intervals.

    The half-width is the critical range c of the trials' ranges (:mod:`.critical`),
    so that diff -+ c excludes 0 exactly when p < alpha: the permutation
    analogue of Tukey's HSD intervals (every pair's interval from one quantile of
    the maximum range), simultaneous over all pairs of the matrix's runs. The
    rounding tolerance the count allows is added, so the two never disagree.
    """
    cube, pairs, thresholds, tol = _setup(matrix, pairs)
    keep = tail_size(trials, alpha)
    counts, tail = run_blocks(partial(tukey_tail_block, cube, thresholds, keep), trials, seed, progress,
                              map_blocks, combine=partial(combine_tails, keep=keep))
    p, half_width = monte_carlo_p(counts, trials), critical_value(tail, keep) + tol
    if np.asarray(matrix).ndim == 2:
        p, half_width = p[:, 0], half_width[0]
    return TukeyHSD(p, half_width, trials)
