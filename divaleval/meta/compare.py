"""Is run A really better than run B? Paired comparisons of runs, per measure.

For each measure and each compared pair (every run against a baseline, or
every pair of runs): both means, their difference with its t interval, the
effect size d_z = mean difference / sd of the differences, and p-values:

* ``p_t``: the paired t-test (two-sided), and ``p_t_holm``, Holm-adjusted over
  the pairs compared under the measure;
* ``p_rand``: Fisher's randomisation test (two-sided), and ``p_rand_holm``;
* ``p_hsd``: the randomised Tukey HSD test over all the runs of the cube: its
  own correction for comparing every pair, so it is not adjusted again.

The trials of each test are drawn from ``seed`` and shared by the measures
(the same sign flips, the same permutations): a measure's p-values do not
depend on which other measures are compared.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import UsageError
from ..stats import holm, paired_t, randomisation_test, randomised_tukey_hsd
from ..stats.blocks import Progress, SeedLike
from ..stats.paired import all_pairs, baseline_pairs, differences
from .cube import ScoreCube

if TYPE_CHECKING:
    import pandas as pd

COMPARE_COLUMNS = ["measure", "run_a", "run_b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "effect_dz",
                   "t", "p_t", "p_t_holm", "p_rand", "p_rand_holm", "p_hsd"]


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


def tukey_hsd(cube: ScoreCube, pairs: np.ndarray, trials: int, seed: SeedLike, progress: Progress | None,
              map_blocks: Callable) -> np.ndarray:
    """The randomised Tukey HSD p-values of ``pairs`` (pairs x measures) over all the runs of the cube.

    The runs are permuted in the order of their keys, so that the p-values do
    not depend on the order in which the runs were given (the other tests
    draw per topic, whatever the runs).
    """
    order = np.argsort(np.array(cube.runs, dtype=object), kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    return randomised_tukey_hsd(cube.stacked()[:, order], position[pairs], trials, seed, progress=progress,
                                map_blocks=map_blocks)


def compare_runs(cube: ScoreCube, baseline: str | None = None, *, trials: int = 10_000, seed: SeedLike = 0,
                 level: float = 0.95, progress: Progress | None = None, map_blocks: Callable = map
                 ) -> pd.DataFrame:
    """One row per (measure, pair): means, difference, interval, effect size, p-values (see the module)."""
    import pandas as pd

    check_comparable(cube)
    pairs = compared_pairs(cube, baseline)
    stacked = cube.stacked()                              # (topics, runs, measures)
    diffs = differences(stacked, pairs)                   # (topics, pairs, measures)
    means = cube.means()                                  # (runs, measures)
    test = paired_t(diffs, level)
    p_rand = randomisation_test(diffs, trials, seed, progress=progress, map_blocks=map_blocks)
    p_hsd = tukey_hsd(cube, pairs, trials, seed, progress, map_blocks)
    columns = {
        "measure": np.repeat(np.array(cube.measures, dtype=object)[None, :], len(pairs), axis=0),
        "run_a": np.repeat(np.array(cube.runs, dtype=object)[pairs[:, 0]][:, None], len(cube.measures), axis=1),
        "run_b": np.repeat(np.array(cube.runs, dtype=object)[pairs[:, 1]][:, None], len(cube.measures), axis=1),
        "mean_a": means[pairs[:, 0]],
        "mean_b": means[pairs[:, 1]],
        "diff": means[pairs[:, 0]] - means[pairs[:, 1]],
        "ci_low": test.ci_low,
        "ci_high": test.ci_high,
        "effect_dz": test.effect,
        "t": test.t,
        "p_t": test.p,
        "p_t_holm": holm(test.p),
        "p_rand": p_rand,
        "p_rand_holm": holm(p_rand),
        "p_hsd": p_hsd,
    }
    # Rows measure by measure (the measures' order), pairs in order within each.
    return pd.DataFrame({name: np.asarray(values).T.ravel() for name, values in columns.items()},
                        columns=COMPARE_COLUMNS)


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
