"""The paired bootstrap test with family-wise control: the single-step bootstrap max-t (Westfall & Young 1993,
"Resampling-Based Multiple Testing", ch. 2, the single-step maxT adjusted p-values, with the bootstrap
as the resampling scheme; Westfall 2011, "On using the bootstrap for multiple comparisons", J. Biopharm. Stat.).

The per-pair test is Sakai's studentised paired bootstrap (Sakai 2006;
:mod:`divaleval.stats.bootstrap`): per pair of runs, the per-topic differences
d are centred, w = d - mean(d), so that the null hypothesis holds, and a trial
resamples the n topics with replacement and computes |t(w*)|. Here a trial
resamples the topics once for every pair of the family (so the pairs keep their
dependence: they share runs and topics) and records the largest |t(w*)| over
the family. A pair's adjusted p-value is the share of trials whose largest
|t*| reaches the pair's |t(d)|:

    p_adj(pair) = (b + 1) / (B + 1),  b = #{trials: max over pairs |t*| >= |t(d_pair)|}

(Phipson & Smyth 2010: the observed data count as one arrangement, so no
p-value is 0). Comparing every pair with the largest statistic of the trial is
what the randomised Tukey HSD does with the range of the means (Sakai 2014;
Carterette 2012): both control the family-wise error rate over all the pairs
of runs of a measure, the HSD on the means' scale, this one on the pairs'
t-statistics (each pair's own variance, as the per-pair bootstrap has it).
A pair's adjusted p-value is never below its per-pair one from the same trials.

Trials are drawn exactly as the per-pair test draws them (a resample is a vector
of counts per topic, floor(u n) of uniform doubles), so with the same seed the
two tests see the same resamples. A trailing axis holds several families
(measures) that share the trials, each with its own maximum.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from .blocks import Progress, SeedLike, TrialBlock, chunk_sizes, run_blocks, tolerance
from .bootstrap import studentised

SLACK = 1.0 - 1e-9      # a trial's statistic equal to the observed up to rounding reaches it (as the per-pair test)


def max_t_block(centred: np.ndarray, observed: np.ndarray, tol: float, block: TrialBlock) -> np.ndarray:
    """One block's trials over ``centred`` (topics, pairs, families): per (pair, family), the trials whose largest
    |t*| over the family's pairs reaches the pair's observed |t|."""
    rng = block.generator()
    n, pairs, families = centred.shape
    flat = centred.reshape(n, pairs * families)
    squares = flat * flat
    counts = np.zeros((pairs, families), dtype=np.int64)
    for size in chunk_sizes(block.trials, 2 * n + 2 * flat.shape[1]):
        drawn = np.minimum((rng.random((size, n)) * n).astype(np.int64), n - 1)
        offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
        times = np.bincount((drawn + offsets).ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        t = studentised(times @ flat, times @ squares, n, tol).reshape(size, pairs, families)
        largest = t.max(axis=1)                                        # (size, families)
        for family in range(families):
            ordered = np.sort(largest[:, family])
            counts[:, family] += ordered.size - np.searchsorted(ordered, observed[:, family] * SLACK, side="left")
    return counts


def bootstrap_max_t(diffs: np.ndarray, trials: int = 10_000, seed: SeedLike = 0, *,
                    progress: Progress | None = None, map_blocks: Callable = map) -> np.ndarray:
    """Family-wise adjusted p-values of the bootstrap max-t test: ``diffs`` (topics, pairs) is one family,
    (topics, pairs, families) several sharing the trials. Returns (pairs,) or (pairs, families)."""
    diffs = np.asarray(diffs, dtype=np.float64)
    cube = diffs[:, :, None] if diffs.ndim == 2 else diffs
    if cube.ndim != 3:
        raise ValueError("differences are (topics, pairs) or (topics, pairs, families)")
    n = cube.shape[0]
    if n < 2:
        raise ValueError("a bootstrap test needs at least two topics")
    tol = tolerance(cube)
    observed = studentised(cube.sum(axis=0), (cube * cube).sum(axis=0), n, tol)     # (pairs, families)
    centred = cube - cube.mean(axis=0)
    counts = run_blocks(partial(max_t_block, centred, observed, tol), trials, seed, progress, map_blocks)
    p = (counts + 1.0) / (trials + 1.0)
    return p[:, 0] if diffs.ndim == 2 else p
