"""Kendall's rank correlation between system rankings, and its Fisher-z confidence interval.

tau-b (Kendall 1945) of two score vectors x, y over L systems:
(concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), n0 = L(L-1)/2 pairs, n1 and
n2 the pairs tied in x and in y (without ties it is tau-a). Ties are exact
equalities of the scores.

The interval (Long & Cliff 1997, as Sakai & Zeng 2019 sec. 5.1 use it):
tanh(atanh(tau) -+ z sqrt(0.437 / (L - 4))), z the normal quantile of the
level (1.96 for 95%). For an agreement tau computed from P preference pairs, L
is taken back from P = L(L-1)/2: L = (1 + sqrt(1 + 8P)) / 2 (Sakai & Zeng
sec. 6.3), not rounded.

The interval is undefined (NaN), never a point, where its approximation has
nothing to say:

* L <= 4: the variance 0.437 / (L - 4) of z = atanh(tau) (Fieller, Hartley &
  Pearson 1957, "Tests for rank correlation coefficients. I", Biometrika 44)
  is infinite or negative;
* |tau| = 1: z is infinite, and tanh would give the degenerate [1, 1] (or
  [-1, -1]), a claim of certainty no sample of L systems supports (the
  normal approximation of tau is worst near |tau| = 1: Daniels & Kendall 1947);
* tau undefined (a ranking whose systems all tie).
"""
from __future__ import annotations

import math

import numpy as np

from .distributions import normal_quantile

FISHER_VARIANCE = 0.437  # the variance factor of Fisher's z of Kendall's tau (Fieller, Hartley & Pearson 1957)


def pair_signs(scores: np.ndarray) -> np.ndarray:
    """sign(x_i - x_j) for every pair i < j of the rows of ``scores`` (L, ...): shape (pairs, ...)."""
    scores = np.asarray(scores, dtype=np.float64)
    i, j = np.triu_indices(scores.shape[0], k=1)
    return np.sign(scores[i] - scores[j])


def kendall_tau_b(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tau-b between every two columns of ``scores`` (systems x rankings): (tau matrix, tied pairs per ranking).

    A ranking whose systems all tie has no tau (NaN).
    """
    signs = pair_signs(scores)
    if signs.ndim == 1:
        signs = signs[:, None]
    ties = (signs == 0).sum(axis=0)
    untied = signs.shape[0] - ties
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = (signs.T @ signs) / np.sqrt(np.outer(untied, untied).astype(np.float64))
    return np.clip(tau, -1.0, 1.0), ties


def tau_b(x, y) -> float:
    """tau-b of two score vectors."""
    tau, _ = kendall_tau_b(np.column_stack([np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)]))
    return float(tau[0, 1])


def fisher_interval(tau, systems, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The Fisher-z interval of tau over ``systems`` (L; a float when taken back from pairs): (low, high).

    NaN where it is undefined (:func:`interval_defined`: L <= 4, |tau| = 1, tau NaN).
    """
    tau = np.asarray(tau, dtype=np.float64)
    systems = np.asarray(systems, dtype=np.float64)
    z = normal_quantile(0.5 + level / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        half = z * np.sqrt(FISHER_VARIANCE / (systems - 4.0))
        centre = np.arctanh(tau)
        low, high = np.tanh(centre - half), np.tanh(centre + half)
    undefined = ~interval_defined(tau, systems)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def interval_defined(tau, systems) -> np.ndarray:
    """Where the Fisher-z interval exists: more than 4 systems and |tau| < 1 (see the module)."""
    tau = np.asarray(tau, dtype=np.float64)
    return (np.asarray(systems, dtype=np.float64) > 4.0) & (np.abs(tau) < 1.0)


def systems_from_pairs(pairs) -> np.ndarray:
    """L such that L(L-1)/2 = pairs: the number of ranked items a count of pairs stands for."""
    return (1.0 + np.sqrt(1.0 + 8.0 * np.asarray(pairs, dtype=np.float64))) / 2.0


def preference_tau(agree: int, disagree: int, pairs: int) -> float:
    """tau of a measure against gold preferences: (agreements - disagreements) / pairs."""
    return (agree - disagree) / pairs if pairs else math.nan
