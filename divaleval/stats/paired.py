"""Paired comparisons of runs over topics: differences, the paired t-test, effect sizes, intervals.

A comparison is a pair of runs (a, b) of a topics x runs matrix; its per-topic
differences are d_t = x_ta - x_tb, and everything here is computed for many
pairs (and many matrices, a trailing axis) at once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .distributions import t_quantile, t_two_sided


def all_pairs(runs: int) -> np.ndarray:
    """Every pair (a, b), a < b, of ``runs`` runs: an array of shape (pairs, 2), in row order."""
    a, b = np.triu_indices(runs, k=1)
    return np.stack([a, b], axis=1).astype(np.int64)


def baseline_pairs(runs: int, baseline: int) -> np.ndarray:
    """(run, baseline) for every other run, in run order: differences are run - baseline."""
    others = [r for r in range(runs) if r != baseline]
    return np.array([[r, baseline] for r in others], dtype=np.int64).reshape(-1, 2)


def as_cube(matrix: np.ndarray) -> np.ndarray:
    """A (topics, runs) matrix as (topics, runs, 1); a (topics, runs, k) stack of matrices unchanged."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim == 2:
        return matrix[:, :, None]
    if matrix.ndim != 3:
        raise ValueError("expected a topics x runs matrix (or a stack of them, topics x runs x k)")
    return matrix


def differences(matrix: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Per-topic differences x_a - x_b of each pair: shape (topics, pairs, ...) for a (topics, runs, ...) matrix."""
    matrix = np.asarray(matrix, dtype=np.float64)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return matrix[:, pairs[:, 0]] - matrix[:, pairs[:, 1]]


@dataclass
class PairedT:
    """The paired t-test of differences (one value per comparison)."""

    mean: np.ndarray         # mean difference
    sd: np.ndarray           # standard deviation of the differences (n - 1 in the divisor)
    t: np.ndarray            # mean / (sd / sqrt(n)); NaN when every difference is 0
    df: int                  # n - 1
    p: np.ndarray            # two-sided; 1 when every difference is 0, 0 when they are equal and not 0
    ci_low: np.ndarray       # mean -+ t_{(1+level)/2, df} sd / sqrt(n)
    ci_high: np.ndarray
    effect: np.ndarray       # standardised mean difference of paired data, d_z = mean / sd


def paired_t(diffs: np.ndarray, level: float = 0.95) -> PairedT:
    """The paired (one-sample) t-test of ``diffs`` (topics first) against 0, two-sided, with its interval."""
    diffs = np.asarray(diffs, dtype=np.float64)
    n = diffs.shape[0]
    if n < 2:
        raise ValueError("a paired t-test needs at least two topics")
    mean = diffs.mean(axis=0)
    sd = diffs.std(axis=0, ddof=1)
    se = sd / np.sqrt(n)
    df = n - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
        effect = mean / sd
    constant = sd == 0
    # Equal differences: no variance to test against. All 0 is no evidence of a difference (p = 1),
    # all equal and not 0 the strongest evidence there is (t infinite, p = 0).
    p = t_two_sided(np.where(constant, np.where(mean == 0, 0.0, np.inf), t).ravel(), df).reshape(mean.shape)
    half = t_quantile(0.5 + level / 2.0, df) * se
    return PairedT(mean, sd, t, df, p, mean - half, mean + half, effect)


def bonferroni_interval(test: PairedT, alpha: float = 0.05, family: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous t intervals of ``family`` comparisons at level 1 - alpha: each at level 1 - alpha/family.

    mean -+ t_{1 - alpha/(2 family), df} sd / sqrt(n) (Bonferroni; Dunn 1961). An
    interval excludes 0 exactly when the Bonferroni-adjusted p-value, min(1,
    family p), is below alpha; Holm's adjusted p-value is never larger, so an
    interval that excludes 0 always goes with a Holm p below alpha.
    """
    half = t_quantile(1.0 - alpha / (2.0 * family), test.df) * test.sd / np.sqrt(test.df + 1)
    return test.mean - half, test.mean + half
