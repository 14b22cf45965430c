"""Risk-sensitive comparison of a run with a baseline: URisk and TRisk (Dinçer, Macdonald & Ounis 2014).

Per topic, the difference d_t = x_t - b_t of the run's score and the baseline's
is weighted against losses:

    z_t = d_t            if d_t >= 0
    z_t = (1 + alpha) d_t  if d_t < 0          (alpha >= 0; Wang et al. 2012's U_RISK weighting)

    URisk = (1/c) sum_t z_t                     (c topics)
    TRisk = URisk / SE,  SE = s_z / sqrt(c),  s_z the sample standard deviation of the z_t (c - 1)

TRisk is the one-sample t statistic of the z_t, so under the hypothesis that the
run does as well as the baseline once losses are weighted (mean z = 0) it follows
Student's t with c - 1 degrees of freedom (with alpha = 0 it is the paired t-test
of the run against the baseline). Dinçer et al. read it inferentially: TRisk
beyond about +2 is a significant gain over the baseline, below about -2 a
significant risk of harm (|t| > t_{0.975, c-1}, two-sided at 0.05); ``p`` is the
exact two-sided p-value.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from .distributions import t_two_sided


def checked_alpha(value, name: str = "the risk alpha") -> float:
    """The weight of losses as a float: a finite number >= 0, else a :class:`UsageError` (``name`` says
    what the caller calls it)."""
    try:
        alpha = float(value)
    except (TypeError, ValueError):
        alpha = math.nan
    if not (math.isfinite(alpha) and alpha >= 0):
        raise UsageError(f"{name} must be a number >= 0, not {value!r}")
    return alpha


def risk_adjusted(run: np.ndarray, baseline: np.ndarray, alpha: float) -> np.ndarray:
    """z = x - b where the run gains, (1 + alpha)(x - b) where it loses (elementwise)."""
    difference = np.asarray(run, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    return np.where(difference >= 0, difference, (1.0 + alpha) * difference)


@dataclass
class RiskTest:
    """URisk and TRisk of risk-adjusted differences, one value per column."""

    urisk: np.ndarray  # mean of z (a sequential sum over topics, in topic order, as every mean here)
    trisk: np.ndarray  # URisk / (s_z / sqrt(c)); 0 when every z is 0, +-inf when they are equal and not 0
    p: np.ndarray      # two-sided P(|T| >= |TRisk|), T ~ Student's t with c - 1 degrees of freedom
    df: int            # c - 1


def risk_test(z: np.ndarray) -> RiskTest:
    """URisk, TRisk and its p-value of a (topics, ...) array of risk-adjusted differences (>= 2 topics)."""
    z = np.asarray(z, dtype=np.float64)
    count = z.shape[0]
    if count < 2:
        raise ValueError("TRisk needs at least two topics")
    urisk = np.cumsum(z, axis=0)[-1] / count
    constant = (z == z[0]).all(axis=0)  # no spread at all (a computed sd may keep a rounding residue)
    error = np.where(constant, 0.0, z.std(axis=0, ddof=1) / np.sqrt(count))
    with np.errstate(divide="ignore", invalid="ignore"):
        trisk = np.where(error > 0, urisk / error, np.where(urisk == 0, 0.0, np.copysign(np.inf, urisk)))
    p = t_two_sided(trisk.ravel(), count - 1).reshape(trisk.shape)
    return RiskTest(urisk, trisk, p, count - 1)
