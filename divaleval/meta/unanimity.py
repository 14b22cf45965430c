"""Metric Unanimity (Amigó, Spina & Carrillo-de-Albornoz 2018, sec. 6.1): does a measure capture the
improvements every other measure agrees on?

Cases are (topic, ordered pair of runs (i, j)). For the measure m, the case
counts 1 when m(i) > m(j), 1/2 when m(i) = m(j) (so P(m) = 1/2 by construction,
the paper's footnote 9), 0 otherwise. For the other measures M, it counts 1 when
they unanimously improve i over j, 1/2 when every one of them ties, 0
otherwise. The joint count of a case is the product of the two. Then

    MU_M(m) = log2( P(m, M) / (P(m) P(M)) ),

the pointwise mutual information of m's decisions and the others' unanimous
improvements. A measure that decides at random or ties everything scores 0;
one that reports every unanimous improvement scores log2(1 / P(m)) = 1.

What "unanimously improve" means is lost in the paper's text: the relation
symbol of "M_{i,j} == for all m' in M, m'(d_i) ? m'(d_j)" did not survive
typesetting. Two readings (:data:`READINGS`):

* ``strict``: every other measure has m'(i) > m'(j), Sakai & Zeng's (2019,
  sec. 5.2) GT/LT/EQ tagging, where EQ (every one ties) counts 1/2;
* ``pareto``: every other measure has m'(i) >= m'(j) and at least one has
  m'(i) > m'(j) (a Pareto improvement: no criterion worse, one better); every
  one tying still counts 1/2.

The two agree when no other measure ties a case. With many measures the
strict reading makes unanimity rare and lets most measures reach the same MU;
the Pareto reading counts the cases where some measures tie and the rest
agree. The paper's worked example has no ties and gives 0.415 either way.
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

READINGS = ("strict", "pareto")
DEFAULT_READING = "strict"
READING_RULES = {   # what counts 1 (and the tie that counts 1/2), as the report says it
    "strict": "every other measure > (all =: 1/2)",
    "pareto": "every other measure >=, at least one > (all =: 1/2)",
}


def check_reading(reading: str) -> str:
    if reading not in READINGS:
        raise UsageError(f"unknown reading of unanimity {reading!r}: choose among {', '.join(READINGS)}")
    return reading


def metric_unanimity(cube: ScoreCube, reading: str = DEFAULT_READING) -> pd.DataFrame:
    """Per measure: MU against all the other measures of the cube, its three probabilities, and the reading
    of "unanimous improvement" it was computed under (:data:`READINGS`)."""
    import pandas as pd

    check_reading(reading)
    if len(cube.measures) < 2:
        raise UsageError("Metric Unanimity compares a measure with the others: give at least 2 measures")
    if len(cube.runs) < 2:
        raise UsageError("Metric Unanimity needs at least 2 runs")
    i, j = np.triu_indices(len(cube.runs), k=1)
    signs = np.sign(cube.values[i] - cube.values[j]).astype(np.int8)     # (pairs, topics, measures)
    others = len(cube.measures) - 1
    # Per case and measure m: how many of the others are above, below, level (m itself left out).
    above = (signs > 0).sum(axis=2, dtype=np.int64)[..., None] - (signs > 0)
    below = (signs < 0).sum(axis=2, dtype=np.int64)[..., None] - (signs < 0)
    level = (signs == 0).sum(axis=2, dtype=np.int64)[..., None] - (signs == 0)
    if reading == "strict":
        improves_ij, improves_ji = above == others, below == others
    else:                                                                # none worse, at least one better
        improves_ij, improves_ji = (below == 0) & (above > 0), (above == 0) & (below > 0)
    tied = np.where(level == others, 0.5, 0.0)
    others_ij = np.where(improves_ij, 1.0, tied)                         # the others' count of (i, j)
    others_ji = np.where(improves_ji, 1.0, tied)                         # ... and of (j, i)
    mine_ij = (1.0 + signs) / 2.0
    mine_ji = (1.0 - signs) / 2.0
    cases = 2.0 * signs.shape[0] * signs.shape[1]
    p_joint = (mine_ij * others_ij + mine_ji * others_ji).sum(axis=(0, 1)) / cases
    p_measure = (mine_ij + mine_ji).sum(axis=(0, 1)) / cases
    p_others = (others_ij + others_ji).sum(axis=(0, 1)) / cases
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.log2(p_joint / (p_measure * p_others))
    return pd.DataFrame({"measure": list(cube.measures), "mu": mu, "p_joint": p_joint, "p_measure": p_measure,
                         "p_others": p_others, "reading": reading})
