"""The randomised Tukey HSD test (Sakai 2014, "Metrics, statistics, tests"; Carterette 2012).

Over a topics x runs matrix: a trial permutes every topic's row across the runs
independently and records the range of the run means, max - min. A pair's
p-value is the share of trials whose range is at least the pair's |mean
difference|. Comparing every pair with the largest difference of the trial is
what corrects for the multiple comparisons: the p-values hold for the family
of all pairs of the matrix. A trial's permutations are the argsort of uniform
draws, so a block draws only doubles. A trailing axis holds several matrices
(measures) that share the trials.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from .blocks import Progress, SeedLike, TrialBlock, chunk_sizes, run_blocks, tolerance
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


def tukey_hsd_block(matrix: np.ndarray, thresholds: np.ndarray, block: TrialBlock) -> np.ndarray:
    """One block's trials over ``matrix`` (topics, runs, k): per (pair, k), the trials whose range reaches it."""
    rng = block.generator()
    n, m, k = matrix.shape
    counts = np.zeros(thresholds.shape, dtype=np.int64)
    for size in chunk_sizes(block.trials, n * m * (k + 2)):
        permutations = np.argsort(rng.random((size, n, m)), axis=2)
        counts += _count_reaching(_ranges(matrix, permutations), thresholds)
    return counts


def randomised_tukey_hsd(matrix: np.ndarray, pairs: np.ndarray | None = None, trials: int = 10_000,
                         seed: SeedLike = 0, *, progress: Progress | None = None,
                         map_blocks: Callable = map) -> np.ndarray:
    """p-values of the randomised Tukey HSD test for ``pairs`` of runs (default: all pairs, a < b).

    matrix: topics x runs, or topics x runs x k (k matrices sharing the trials).
    Returns an array of shape (pairs,) or (pairs, k).
    """
    cube = as_cube(matrix)
    pairs = all_pairs(cube.shape[1]) if pairs is None else np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    means = cube.mean(axis=0)                                           # (runs, k)
    # Rounding must not decide: a range equal to a difference up to it counts as reaching it.
    thresholds = np.abs(means[pairs[:, 0]] - means[pairs[:, 1]]) - tolerance(cube)
    counts = run_blocks(partial(tukey_hsd_block, cube, thresholds), trials, seed, progress, map_blocks)
    p = counts / float(trials)
    return p[:, 0] if np.asarray(matrix).ndim == 2 else p
