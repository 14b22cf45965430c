"""How alike are two measures? Kendall's tau-b between the system rankings they induce.

Each measure ranks the runs by their summaries over the topics, as divaleval
prints them (the means, but GMAP's geometric mean and a count's sum); tau-b
compares two such rankings (ties: runs with equal summaries, counted per
ranking), with the Fisher-z interval over L = the number of runs (Sakai & Zeng
2019, Table 1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..stats import fisher_interval, kendall_tau_b
from .cube import ScoreCube

if TYPE_CHECKING:
    import pandas as pd


def rank_correlation(cube: ScoreCube, level: float = 0.95) -> pd.DataFrame:
    """One row per pair of measures (in the cube's order): tau-b, its interval, L, and the tied pairs of each
    ranking (``ties_a``, ``ties_b``)."""
    import pandas as pd

    tau, ties = kendall_tau_b(cube.summaries())
    a, b = np.triu_indices(len(cube.measures), k=1)
    systems = len(cube.runs)
    low, high = fisher_interval(tau[a, b], systems, level)
    names = np.array(cube.measures, dtype=object)
    return pd.DataFrame({
        "measure_a": names[a], "measure_b": names[b], "tau": tau[a, b], "ci_low": low, "ci_high": high,
        "runs": systems, "ties_a": ties[a], "ties_b": ties[b],
    })


def tau_matrix(correlations: pd.DataFrame) -> pd.DataFrame:
    """The square, symmetric matrix of tau from :func:`rank_correlation`'s rows (1 on the diagonal)."""
    import pandas as pd

    names = list(dict.fromkeys([*correlations["measure_a"], *correlations["measure_b"]]))
    index = {name: i for i, name in enumerate(names)}
    square = np.eye(len(names))
    for row in correlations.itertuples(index=False):
        square[index[row.measure_a], index[row.measure_b]] = square[index[row.measure_b], index[row.measure_a]] = row.tau
    return pd.DataFrame(square, index=names, columns=names)
