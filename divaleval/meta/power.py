"""Discriminative power: how many pairs of runs a measure tells apart, and by how much (Sakai 2006, 2014).

For every measure, every pair of runs gets a p-value (an achieved significance
level, ASL) from one or more tests (:data:`METHODS`), each with the error it
controls (:data:`CONTROL`):

* ``tukey``: the randomised Tukey HSD over all runs (Sakai 2014; Carterette
  2012), family-wise over all the pairs of runs of the measure;
* ``bootstrap``: the studentised paired bootstrap (Sakai 2006), per pair: no
  correction for testing every pair;
* ``bootstrap-maxt``: the same bootstrap with family-wise control over all the
  pairs, by the single-step max-t (Westfall & Young 1993;
  :mod:`divaleval.stats.bootstrap_maxt`), so that it stands beside the HSD.

A per-pair test separates more pairs than a family-wise one on the same data:
the two kinds are not comparable, and every row says which kind it is. A
measure's discriminative power at level alpha is the number (and share) of
pairs with p < alpha; the smallest significant difference is the smallest
|difference of means| among those pairs (Sakai & Zeng 2019, Table 3, "minimum
Delta"). The ASL curve of a measure is its pairs' p-values sorted ascending,
plotted against the pairs' ranks (Sakai 2006, Fig. 1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import UsageError
from ..stats import bootstrap_max_t, paired_bootstrap
from ..stats.blocks import Progress, SeedLike
from ..stats.paired import all_pairs, differences
from .compare import check_comparable, tukey_hsd
from .cube import ScoreCube

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("tukey", "bootstrap", "bootstrap-maxt")
DEFAULT_METHODS = ("tukey", "bootstrap")
FAMILY_WISE, PER_PAIR = "family-wise", "per-pair"
CONTROL = {"tukey": FAMILY_WISE, "bootstrap": PER_PAIR, "bootstrap-maxt": FAMILY_WISE}


def pair_significance(cube: ScoreCube, methods=DEFAULT_METHODS, *, trials: int = 10_000, seed: SeedLike = 0,
                      progress: Progress | None = None, map_blocks: Callable = map) -> pd.DataFrame:
    """One row per (measure, method, pair of runs): control (``family-wise`` over all the pairs of runs of the
    measure, or ``per-pair``), run_a, run_b, diff (mean a - mean b), p."""
    import pandas as pd

    check_comparable(cube)
    unknown = [m for m in methods if m not in METHODS]
    if not methods:
        raise UsageError(f"no method: choose among {', '.join(METHODS)}")
    if unknown:
        raise UsageError(f"unknown method {unknown[0]!r}: choose among {', '.join(METHODS)}")
    pairs = all_pairs(len(cube.runs))
    stacked = cube.stacked()
    means = cube.means()
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]                 # (pairs, measures)
    frames = []
    for method in methods:
        if method == "tukey":
            p = tukey_hsd(cube, pairs, trials, seed, progress, map_blocks)
        else:
            test = paired_bootstrap if method == "bootstrap" else bootstrap_max_t
            p = test(differences(stacked, pairs), trials, seed, progress=progress, map_blocks=map_blocks)
        frames.append(pd.DataFrame({
            "measure": np.repeat(np.array(cube.measures, dtype=object), len(pairs)),
            "method": method,
            "control": CONTROL[method],
            "run_a": np.tile(np.array(cube.runs, dtype=object)[pairs[:, 0]], len(cube.measures)),
            "run_b": np.tile(np.array(cube.runs, dtype=object)[pairs[:, 1]], len(cube.measures)),
            "diff": diff.T.ravel(),
            "p": p.T.ravel(),
        }))
    frame = pd.concat(frames, ignore_index=True)
    # Measure by measure, in the cube's order; the methods in the order asked.
    order = {m: i for i, m in enumerate(cube.measures)}
    return frame.sort_values("measure", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


def power_summary(significance: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per (measure, method): the method's error control, alpha, pairs, significant pairs (p < alpha), their
    share, the smallest significant |difference| (NaN when no pair is significant)."""
    import pandas as pd

    rows = []
    for (measure, method), block in significance.groupby(["measure", "method"], sort=False):
        significant = block["p"].to_numpy() < alpha
        deltas = np.abs(block["diff"].to_numpy())[significant]
        rows.append({"measure": measure, "method": method, "control": CONTROL[method], "alpha": alpha,
                     "pairs": len(block), "significant": int(significant.sum()),
                     "share": float(significant.mean()) if len(block) else np.nan,
                     "min_significant_diff": float(deltas.min()) if deltas.size else np.nan})
    return pd.DataFrame(rows, columns=["measure", "method", "control", "alpha", "pairs", "significant", "share",
                                       "min_significant_diff"])


def asl_curves(significance: pd.DataFrame) -> pd.DataFrame:
    """Per (measure, method), the pairs sorted by p-value (ascending), with their rank from 1."""
    parts = []
    for _, block in significance.groupby(["measure", "method"], sort=False):
        ordered = block.sort_values("p", kind="stable").copy()
        after = list(ordered.columns).index("control" if "control" in ordered.columns else "method")
        ordered.insert(after + 1, "rank", np.arange(1, len(ordered) + 1))
        parts.append(ordered)
    import pandas as pd

    return pd.concat(parts, ignore_index=True) if parts else significance.assign(rank=[])
