"""Is run A really better than run B? Paired comparisons of runs, per measure.

For each measure and each compared pair (every run against a baseline, or
every pair of runs): both means and their difference; p-values, each beside an
interval that agrees with it (excludes 0 only when the adjusted test rejects at
alpha = 1 - level); and effect sizes:

* the paired t-test: ``t``, ``p_t``, and ``p_t_holm``, Holm-adjusted over the
  family (``correct``: ``pairs``, the pairs compared under one measure, or
  ``all``, every pair of every measure); ``ci_t_low`` .. ``ci_t_high``, the
  Bonferroni t interval over the same family (simultaneous at 1 - alpha; Holm
  has no interval of its own, and an interval that excludes 0 always goes with
  a Holm p below alpha, see :func:`divaleval.stats.paired.bonferroni_interval`);
* Fisher's randomisation test: ``p_rand`` (exact when 2^n <= trials, else
  (b + 1) / (B + 1)), its Monte-Carlo standard error ``p_rand_se`` (0 when
  exact) and ``p_rand_holm``;
* the randomised Tukey HSD test over all the runs of the cube (its own
  correction for comparing every pair of a measure): ``p_hsd``, ``p_hsd_se``,
  and the simultaneous interval ``ci_hsd_low`` .. ``ci_hsd_high`` from the
  same trials' range distribution, which excludes 0 exactly when p_hsd < alpha;
* with ``bootstrap``: the studentised paired bootstrap test (``p_boot``,
  ``p_boot_se``, ``p_boot_holm``) with its Bonferroni bootstrap-t interval
  (``ci_boot_low`` .. ``ci_boot_high``), over the family as the t-test's;
* effect sizes (:mod:`divaleval.stats.effects`): ``effect_dz`` with its
  noncentral-t interval at the Bonferroni level (``effect_dz_low`` ..
  ``effect_dz_high``), Sakai's ``es_e2`` (the difference over the root of the
  two-way ANOVA residual variance of all the runs) and Hedges' ``g_av``;
* ``ci_unadjusted_low`` .. ``ci_unadjusted_high``: the per-pair t interval at
  ``level``, not adjusted for the family (printed only on request).

The trials of each test are drawn from ``seed`` and shared by the measures
(the same sign flips, the same permutations): a measure's p-values do not
depend on which other measures are compared. What the rows were computed with
(alpha, the family, trials, whether the randomisation test was exact) is in the
frame's ``attrs["compare"]``, for the report's header.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import UsageError
from ..stats import holm, paired_t, randomisation_test, randomised_tukey_hsd
from ..stats.blocks import Progress, SeedLike, monte_carlo_se
from ..stats.bootstrap import paired_bootstrap_intervals
from ..stats.effects import dz_interval, hedges_g_av, residual_variance
from ..stats.paired import all_pairs, baseline_pairs, bonferroni_interval, differences
from ..stats.randomisation import enumerated
from ..stats.tukey import TukeyHSD, randomised_tukey_hsd_intervals
from .cube import ScoreCube

if TYPE_CHECKING:
    import pandas as pd

CORRECTIONS = ("pairs", "all")
COMPARE_COLUMNS = ["measure", "run_a", "run_b", "mean_a", "mean_b", "diff",
                   "t", "p_t", "p_t_holm", "ci_t_low", "ci_t_high",
                   "p_rand", "p_rand_se", "p_rand_holm",
                   "p_hsd", "p_hsd_se", "ci_hsd_low", "ci_hsd_high",
                   "effect_dz", "effect_dz_low", "effect_dz_high", "es_e2", "g_av",
                   "ci_unadjusted_low", "ci_unadjusted_high"]
BOOTSTRAP_COLUMNS = ["p_boot", "p_boot_se", "p_boot_holm", "ci_boot_low", "ci_boot_high"]


def check_comparable(cube: ScoreCube, runs: int = 2) -> None:
    if len(cube.runs) < runs:
        raise UsageError(f"at least {runs} runs are needed, not {len(cube.runs)}")
    if len(cube.topics) < 2:
        raise UsageError(f"at least 2 topics are needed, not {len(cube.topics)}")


def compared_pairs(cube: ScoreCube, baseline: str | None) -> np.ndarray:
    """Every run against the baseline (run - baseline), or every pair of runs (a - b, a before b)."""
    if baseline is None:
        return all_pairs(len(cube.runs))
    found = cube.find_run(baseline)
    if found is None:
        raise UsageError(f"the baseline {baseline!r} is none of the runs ({', '.join(cube.runs)})")
    return baseline_pairs(len(cube.runs), found)


def _run_order(cube: ScoreCube, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs in the order of their keys, and ``pairs`` in that order's positions (for the Tukey HSD)."""
    order = np.argsort(np.array(cube.runs, dtype=object), kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    return order, position[pairs]


def tukey_hsd(cube: ScoreCube, pairs: np.ndarray, trials: int, seed: SeedLike, progress: Progress | None,
              map_blocks: Callable) -> np.ndarray:
    """The randomised Tukey HSD p-values of ``pairs`` (pairs x measures) over all the runs of the cube.

    The runs are permuted in the order of their keys, so that the p-values do
    not depend on the order in which the runs were given (the other tests
    draw per topic, whatever the runs).
    """
    order, ordered_pairs = _run_order(cube, pairs)
    return randomised_tukey_hsd(cube.stacked()[:, order], ordered_pairs, trials, seed, progress=progress,
                                map_blocks=map_blocks)


def tukey_hsd_intervals(cube: ScoreCube, pairs: np.ndarray, trials: int, seed: SeedLike,
                        progress: Progress | None, map_blocks: Callable, alpha: float = 0.05) -> TukeyHSD:
    """:func:`tukey_hsd` (the same trials, the same p-values) with the half-widths of its simultaneous
    intervals, one per measure."""
    order, ordered_pairs = _run_order(cube, pairs)
    return randomised_tukey_hsd_intervals(cube.stacked()[:, order], ordered_pairs, trials, seed, alpha,
                                          progress=progress, map_blocks=map_blocks)


def corrected(p: np.ndarray, correct: str) -> np.ndarray:
    """Holm over the pairs of each measure (``pairs``: a column of ``p`` is a family) or over all (``all``)."""
    p = np.asarray(p, dtype=np.float64)
    return holm(p) if correct == "pairs" else holm(p.reshape(-1)).reshape(p.shape)


def compare_runs(cube: ScoreCube, baseline: str | None = None, *, trials: int = 10_000, seed: SeedLike = 0,
                 level: float = 0.95, correct: str = "pairs", bootstrap: bool = False,
                 progress: Progress | None = None, map_blocks: Callable = map) -> pd.DataFrame:
    """One row per (measure, pair): means, difference, p-values with their intervals, effect sizes (see the
    module). alpha is 1 - level (rounded to 12 decimals, so that 0.95 gives 0.05 exactly)."""
    import pandas as pd

    if correct not in CORRECTIONS:
        raise UsageError(f"unknown correction {correct!r}: choose among {', '.join(CORRECTIONS)}")
    check_comparable(cube)
    alpha = round(1.0 - level, 12)
    pairs = compared_pairs(cube, baseline)
    stacked = cube.stacked()                              # (topics, runs, measures)
    diffs = differences(stacked, pairs)                   # (topics, pairs, measures)
    means = cube.means()                                  # (runs, measures)
    topics = len(cube.topics)
    family = len(pairs) * (len(cube.measures) if correct == "all" else 1)
    test = paired_t(diffs, level)
    ci_t_low, ci_t_high = bonferroni_interval(test, alpha, family)
    exact = enumerated(topics, trials)
    p_rand = randomisation_test(diffs, trials, seed, progress=progress, map_blocks=map_blocks)
    hsd = tukey_hsd_intervals(cube, pairs, trials, seed, progress, map_blocks, alpha)
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    dz_low, dz_high = dz_interval(test.t, topics, 1.0 - alpha / family)
    variance, _ = residual_variance(stacked)
    with np.errstate(divide="ignore", invalid="ignore"):
        es_e2 = diff / np.sqrt(variance)
    columns = {
        "measure": np.repeat(np.array(cube.measures, dtype=object)[None, :], len(pairs), axis=0),
        "run_a": np.repeat(np.array(cube.runs, dtype=object)[pairs[:, 0]][:, None], len(cube.measures), axis=1),
        "run_b": np.repeat(np.array(cube.runs, dtype=object)[pairs[:, 1]][:, None], len(cube.measures), axis=1),
        "mean_a": means[pairs[:, 0]],
        "mean_b": means[pairs[:, 1]],
        "diff": diff,
        "t": test.t,
        "p_t": test.p,
        "p_t_holm": corrected(test.p, correct),
        "ci_t_low": ci_t_low,
        "ci_t_high": ci_t_high,
        "p_rand": p_rand,
        "p_rand_se": np.zeros_like(p_rand) if exact else monte_carlo_se(p_rand, trials),
        "p_rand_holm": corrected(p_rand, correct),
        "p_hsd": hsd.p,
        "p_hsd_se": monte_carlo_se(hsd.p, trials),
        "ci_hsd_low": diff - hsd.half_width,
        "ci_hsd_high": diff + hsd.half_width,
        "effect_dz": test.effect,
        "effect_dz_low": dz_low,
        "effect_dz_high": dz_high,
        "es_e2": es_e2,
        "g_av": hedges_g_av(stacked[:, pairs[:, 0]], stacked[:, pairs[:, 1]]),
        "ci_unadjusted_low": test.ci_low,
        "ci_unadjusted_high": test.ci_high,
    }
    names = list(COMPARE_COLUMNS)
    if bootstrap:
        boot = paired_bootstrap_intervals(diffs, trials, seed, alpha, family, progress=progress,
                                          map_blocks=map_blocks)
        columns.update({"p_boot": boot.p, "p_boot_se": monte_carlo_se(boot.p, trials),
                        "p_boot_holm": corrected(boot.p, correct), "ci_boot_low": boot.ci_low,
                        "ci_boot_high": boot.ci_high})
        names += BOOTSTRAP_COLUMNS
    # Rows measure by measure (the measures' order), pairs in order within each.
    frame = pd.DataFrame({name: np.asarray(columns[name]).T.ravel() for name in names}, columns=names)
    frame.attrs["compare"] = {"alpha": alpha, "correct": correct, "family": family, "pairs": len(pairs),
                              "runs": len(cube.runs), "topics": topics, "trials": trials, "exact": exact,
                              "bootstrap": bootstrap, "hsd_pairs": math.comb(len(cube.runs), 2)}
    return frame


def topic_differences(cube: ScoreCube, measure: str, baseline: str | None = None) -> pd.DataFrame:
    """Per-topic differences of each compared pair under one measure: run_a, run_b, topic, diff (long)."""
    import pandas as pd

    pairs = compared_pairs(cube, baseline)
    diffs = differences(cube.matrix(measure), pairs)       # (topics, pairs)
    return pd.DataFrame({
        "run_a": np.repeat(np.array(cube.runs, dtype=object)[pairs[:, 0]], len(cube.topics)),
        "run_b": np.repeat(np.array(cube.runs, dtype=object)[pairs[:, 1]], len(cube.topics)),
        "topic": np.tile(np.array(cube.topics, dtype=object), len(pairs)),
        "diff": diffs.T.ravel(),
    })
