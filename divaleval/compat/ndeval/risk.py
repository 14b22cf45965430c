"""ndeval's risk-sensitive differences from a baseline (``-baseline``, ``-riskAlpha``), NaNs as C computes them."""
from __future__ import annotations

import math

import numpy as np

from .options import Options
from .scoring import COLUMNS, ScoredRun


def risk_based(run: float, base: float, risk_alpha: float, alpha_first: bool = True) -> float:
    """ndeval's RiskBased(x, b, a): x - b where x >= b, else (1 + a)(x - b); NaN compares false, as in C.

    Where both 1 + a and x - b are NaN, the product is the NaN of one of them:
    ndeval prints a's (``alpha_first``) and adds x - b's to the mean (builds
    differ here: this is what the -O0 build does for every value and what
    both builds do for the means).
    """
    if run >= base:
        return run - base
    difference = run - base  # a NaN operand passes through, its sign kept
    if math.isnan(risk_alpha) and (alpha_first or not math.isnan(difference)):
        return risk_alpha
    return (risk_alpha + 1) * difference


def risk_rows(run: ScoredRun, baseline: ScoredRun, opts: Options) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Topics of the run (and, with -c, of the baseline), with RiskBased(run, baseline) values as printed
    and as added to the mean (they differ only in the sign of some NaN). Without a baseline, only NaN
    values can change (their sign): the rest are computed with numpy."""
    zeros = np.zeros(len(COLUMNS))
    run_rows = dict(zip(run.topics, run.matrix))
    base_rows = dict(zip(baseline.topics, baseline.matrix))
    topics = sorted(set(run.topics) | (set(baseline.topics) if opts.complete else set()))
    printed = np.array([run_rows.get(t, zeros) for t in topics]).reshape(len(topics), len(COLUMNS))
    added = printed.copy()
    scalar = np.ones(printed.shape, dtype=bool) if baseline.topics else np.isnan(printed)
    for row, col in zip(*np.nonzero(scalar)):
        x, b = float(printed[row, col]), float(base_rows.get(topics[row], zeros)[col])
        printed[row, col] = risk_based(x, b, opts.risk_alpha)
        added[row, col] = risk_based(x, b, opts.risk_alpha, alpha_first=False)
    return topics, printed, added
