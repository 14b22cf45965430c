"""Metric Unanimity (Amigó, Spina & Carrillo-de-Albornoz 2018, sec. 6.1): does a measure capture the
improvements every other measure agrees on?

Cases are (topic, ordered pair of runs (i, j)). For the measure m, the case
counts 1 when m(i) > m(j), 1/2 when m(i) = m(j) (so P(m) = 1/2 by construction,
the paper's footnote 9), 0 otherwise. For the other measures M, it counts 1 when
every one of them has m'(i) > m'(j), 1/2 when every one ties, 0 otherwise. The
joint count of a case is the product of the two. Then

    MU_M(m) = log2( P(m, M) / (P(m) P(M)) ),

the pointwise mutual information of m's decisions and the others' unanimous
improvements. A measure that decides at random or ties everything scores 0;
one that reports every unanimous improvement scores log2(1 / P(m)) = 1.
(Sakai & Zeng's eq. 10 counts unordered triplets instead, where P(m) is not
1/2: its values are not comparable with these.)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from .cube import ScoreCube

if TYPE_CHECKING:
    import pandas as pd


def metric_unanimity(cube: ScoreCube) -> pd.DataFrame:
    """Per measure: MU against all the other measures of the cube, and its three probabilities."""
    import pandas as pd

    if len(cube.measures) < 2:
        raise UsageError("Metric Unanimity compares a measure with the others: give at least 2 measures")
    if len(cube.runs) < 2:
        raise UsageError("Metric Unanimity needs at least 2 runs")
    i, j = np.triu_indices(len(cube.runs), k=1)
    signs = np.sign(cube.values[i] - cube.values[j]).astype(np.int8)     # (pairs, topics, measures)
    others = len(cube.measures) - 1
    above = (signs > 0).sum(axis=2, dtype=np.int64)[..., None] - (signs > 0)
    below = (signs < 0).sum(axis=2, dtype=np.int64)[..., None] - (signs < 0)
    level = (signs == 0).sum(axis=2, dtype=np.int64)[..., None] - (signs == 0)
    tied = np.where(level == others, 0.5, 0.0)
    others_ij = np.where(above == others, 1.0, tied)                     # the others' count of (i, j)
    others_ji = np.where(below == others, 1.0, tied)                     # ... and of (j, i)
    mine_ij = (1.0 + signs) / 2.0
    mine_ji = (1.0 - signs) / 2.0
    cases = 2.0 * signs.shape[0] * signs.shape[1]
    p_joint = (mine_ij * others_ij + mine_ji * others_ji).sum(axis=(0, 1)) / cases
    p_measure = (mine_ij + mine_ji).sum(axis=(0, 1)) / cases
    p_others = (others_ij + others_ji).sum(axis=(0, 1)) / cases
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.log2(p_joint / (p_measure * p_others))
    return pd.DataFrame({"measure": list(cube.measures), "mu": mu, "p_joint": p_joint, "p_measure": p_measure,
                         "p_others": p_others})
