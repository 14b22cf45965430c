"""The numbers of the report's first page: runs ranked by one measure, their significance, the measures' agreement.

* Ranking: each run's mean of the chosen measure with a simultaneous interval:
  mean -+ t(1 - alpha / 2m, n - 1) sd / sqrt(n) over the n topics, Bonferroni
  over the m runs, so that all m intervals hold together at level 1 - alpha.
  They say where each mean lies, not which runs differ: a per-topic mean varies
  with the topics far more than a paired difference does.
* Which runs differ: the randomised Tukey HSD test between every two runs
  (:func:`divaleval.meta.compare.tukey_hsd`: every topic's scores permuted
  across the runs, so topics block the comparison; one family of all pairs, so
  its p-values need no further correction). Its p-value is a function of the
  difference of means alone (the trials' ranges are shared), so in the order of
  the means the runs that one run is not significantly different from are
  contiguous: the groups are the maximal runs of consecutive ranks with no
  significant pair among them (the letters of the "compact letter display";
  two runs sharing a letter are not significantly different).
* Kendall's tau-b between the system rankings of every two measures
  (:func:`divaleval.meta.rank_correlation`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from ..errors import UsageError
from ..meta import ScoreCube, rank_correlation, tau_matrix
from ..meta.compare import check_comparable, tukey_hsd
from ..stats import all_pairs, t_quantile
from ..stats.blocks import Progress, SeedLike
from .summary import topic_summary

if TYPE_CHECKING:
    import pandas as pd

RANKING_COLUMNS = ["rank", "label", "run", "runid", "mean", "ci_low", "ci_high", "groups"]


@dataclass
class TrackReport:
    """What ``divaleval report`` draws: see the module. Runs are named by ``labels`` (the cube's order)."""

    cube: ScoreCube
    labels: tuple[str, ...]
    measure: str                  # the measure runs are ranked and tested by
    alpha: float
    trials: int
    seed: SeedLike
    ranking: pd.DataFrame         # RANKING_COLUMNS, best mean first
    p_values: pd.DataFrame        # the HSD's p-values, runs x runs by label in ranking order (NaN on the diagonal)
    groups: list[list[str]]       # labels of each group of runs not significantly different, in ranking order
    tau: pd.DataFrame | None      # measures x measures Kendall tau-b (None for one measure)
    means: pd.DataFrame           # runs (labels, cube order) x measures
    summary: pd.DataFrame         # per topic and measure: see summary.py
    config: dict = field(default_factory=dict)


def simultaneous_intervals(matrix: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high) of each column of a topics x runs matrix: Bonferroni t intervals at joint level
    1 - alpha over the runs (see the module)."""
    n, m = matrix.shape
    mean = matrix.mean(axis=0)
    half = t_quantile(1.0 - alpha / (2.0 * m), n - 1) * matrix.std(axis=0, ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half


def group_letters(count: int) -> list[str]:
    """a, b, ..., z, aa, ab, ...: the names of ``count`` groups."""
    names = []
    for i in range(count):
        name, i = "", i + 1
        while i:
            i, rest = divmod(i - 1, 26)
            name = chr(ord("a") + rest) + name
        names.append(name)
    return names


def not_different_groups(significant: np.ndarray) -> list[tuple[int, int]]:
    """Maximal ranges [first, last] of consecutive positions (runs in ranking order) with no significant pair
    among them, given the symmetric boolean matrix of significant pairs in that order."""
    m = len(significant)
    ranges: list[tuple[int, int]] = []
    for first in range(m):
        last = first
        while last + 1 < m and not significant[first:last + 2, first:last + 2].any():
            last += 1
        if not ranges or last > ranges[-1][1]:
            ranges.append((first, last))
    return ranges


def track_report(cube: ScoreCube, labels: Sequence[str], measure: str | None = None, *, alpha: float = 0.05,
                 trials: int = 10_000, seed: SeedLike = 0, progress: Progress | None = None,
                 map_blocks: Callable = map, config: dict | None = None) -> TrackReport:
    """The report's numbers over ``cube`` (runs named by ``labels``), ranked and tested by ``measure``
    (default: the cube's first)."""
    import pandas as pd

    check_comparable(cube)
    labels = tuple(labels)
    if len(labels) != len(cube.runs) or len(set(labels)) != len(labels):
        raise ValueError("one unique label per run is needed")
    measure = measure or cube.measures[0]
    if measure not in cube.measures:
        raise UsageError(f"the ranking measure {measure!r} is not among the measures: {', '.join(cube.measures)}")
    if measure in cube.summarised_otherwise():
        raise UsageError(f"the ranking measure {measure} is not summarised by an arithmetic mean, which the "
                         "report's intervals and tests are about: rank by another measure (GMAP's per-topic "
                         "values are AP's, for instance)")
    chosen = cube.select([measure])
    mean, low, high = simultaneous_intervals(chosen.matrix(0), alpha)
    order = np.lexsort((np.arange(len(mean)), -mean))     # best mean first; ties in the cube's order
    pairs = all_pairs(len(cube.runs))
    p = tukey_hsd(chosen, pairs, trials, seed, progress, map_blocks)[:, 0]
    square = np.full((len(cube.runs), len(cube.runs)), np.nan)
    square[pairs[:, 0], pairs[:, 1]] = square[pairs[:, 1], pairs[:, 0]] = p
    ranked = square[np.ix_(order, order)]
    ranges = not_different_groups(ranked < alpha)
    letters = group_letters(len(ranges))
    member = [[letters[g] for g, (first, last) in enumerate(ranges) if first <= position <= last]
              for position in range(len(order))]
    names = [labels[r] for r in order]
    ranking = pd.DataFrame({
        "rank": np.arange(1, len(order) + 1), "label": names, "run": [cube.runs[r] for r in order],
        "runid": [cube.runids[r] for r in order], "mean": mean[order], "ci_low": low[order],
        "ci_high": high[order], "groups": ["".join(m) for m in member],
    }, columns=RANKING_COLUMNS)
    tau = tau_matrix(rank_correlation(cube)) if len(cube.measures) > 1 else None
    means = pd.DataFrame(cube.summaries(), index=pd.Index(labels, name="run"), columns=list(cube.measures))
    return TrackReport(
        cube=cube, labels=labels, measure=measure, alpha=alpha, trials=trials, seed=seed, ranking=ranking,
        p_values=pd.DataFrame(ranked, index=names, columns=names),
        groups=[names[first:last + 1] for first, last in ranges], tau=tau, means=means,
        summary=topic_summary(cube, labels), config=dict(config or {}))


def topic_extremes(view: pd.DataFrame, count: int = 5) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``count`` topics where a run gains most over the median (largest ``vs_median`` > 0), and those where
    it loses most (smallest < 0), from :func:`divaleval.report.run_topic_view`; ties in topic order."""
    gains = view[view["vs_median"] > 0].sort_values("vs_median", ascending=False, kind="stable").head(count)
    losses = view[view["vs_median"] < 0].sort_values("vs_median", ascending=True, kind="stable").head(count)
    return gains, losses
