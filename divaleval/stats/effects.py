"""Effect sizes of paired comparisons of runs, and the interval of d_z, without scipy.

Three standardised mean differences, each the difference of two runs' means
over a different standard deviation, because each answers a different question:

* d_z = mean(d) / sd(d), d the per-topic differences: the standardised mean
  difference of paired data (Cohen 1988, sec. 2.3.5; Lakens 2013, eq. 7), which
  the paired t statistic is sqrt(n) times. Its interval inverts the noncentral t
  distribution (Steiger & Fouladi 1997; Cumming & Finch 2001): t = d_z sqrt(n)
  follows a noncentral t with n - 1 degrees of freedom and noncentrality
  delta_z sqrt(n), so the interval's ends are the noncentralities at which the
  observed t is the 1 - alpha/2 and alpha/2 quantile, over sqrt(n).
* ES_E2 = (mean_i - mean_j) / sqrt(V_E), V_E the residual variance of the
  two-way ANOVA without replication over all the runs compared (topics x
  systems): Sakai's standardised mean difference for comparisons among many
  systems (Sakai 2018, "Laboratory Experiments in Information Retrieval";
  Sakai 2014, "Statistical reform in information retrieval?"), the effect size that goes with the Tukey HSD test of the same
  runs. Every pair shares the one denominator, so the effect sizes of a table
  are comparable with each other.
* g_av = J(n - 1) (mean_a - mean_b) / ((sd_a + sd_b) / 2): Cohen's d_av, the
  difference over the average of the two runs' standard deviations over topics
  (Cumming 2012; Lakens 2013, eq. 10), with Hedges' correction of its small-
  sample bias J(v) = Gamma(v/2) / (sqrt(v/2) Gamma((v-1)/2)) (Hedges 1981; the
  exact factor, of which 1 - 3/(4v - 1) is the approximation), v = n - 1 the
  degrees of freedom of the paired design. It ignores the pairing, so it reads
  on the scale of a between-subjects d.
"""
from __future__ import annotations

import math

import numpy as np

from .paired import as_cube

_SQRT_PI = math.sqrt(math.pi)


def _erfc(x: np.ndarray) -> np.ndarray:
    """erfc, elementwise, to about 1e-13 relative: the series of erf below 2, the continued fraction above."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    result = np.empty_like(a)
    small = a < 2.0
    if small.any():
        # erf(a) = 2/sqrt(pi) exp(-a^2) sum_k (2a^2)^k a / (1 3 5 ... (2k+1)) (A&S 7.1.6): positive terms only.
        s = a[small]
        term = s.copy()
        total = s.copy()
        for k in range(1, 48):
            term = term * 2.0 * s * s / (2 * k + 1)
            total = total + term
        result[small] = 1.0 - 2.0 / _SQRT_PI * np.exp(-s * s) * total
    if (~small).any():
        # erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))) (A&S 7.1.14), from the tail.
        s = a[~small]
        fraction = s.copy()
        for k in range(72, 0, -1):
            fraction = s + (k / 2.0) / fraction
        result[~small] = np.exp(-s * s) / (_SQRT_PI * fraction)
    return np.where(x < 0, 2.0 - result, result)


def normal_cdf(z: np.ndarray) -> np.ndarray:
    """The standard normal distribution function, elementwise (full relative precision in the lower tail)."""
    return 0.5 * _erfc(-np.asarray(z, dtype=np.float64) / math.sqrt(2.0))


_NODES = 256


def _chi_nodes(df: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes s and weights times the density of S = sqrt(V / df), V chi-square with ``df``
    degrees of freedom, on the interval that holds all but a negligible part of it."""
    low, high = max(0.0, 1.0 - 9.0 / math.sqrt(df)), 1.0 + 14.0 / math.sqrt(df)
    x, w = np.polynomial.legendre.leggauss(_NODES)
    s = low + (high - low) * (x + 1.0) / 2.0
    log_density = (math.log(2.0) + (df / 2.0) * math.log(df / 2.0) - math.lgamma(df / 2.0)
                   + (df - 1.0) * np.log(s) - df * s * s / 2.0)
    return s, w * (high - low) / 2.0 * np.exp(log_density)


def noncentral_t_cdf(t: np.ndarray, df: float, noncentrality: np.ndarray) -> np.ndarray:
    """P(T <= t) for T noncentral t with ``df`` degrees of freedom, elementwise over t and the noncentrality.

    T = (Z + delta) / S with S = sqrt(V / df), V chi-square: P(T <= t) = E[Phi(t S -
    delta)], integrated over the density of S by Gauss-Legendre quadrature.
    """
    t, noncentrality = np.broadcast_arrays(np.asarray(t, dtype=np.float64),
                                           np.asarray(noncentrality, dtype=np.float64))
    s, weights = _chi_nodes(df)
    return np.clip(normal_cdf(t[..., None] * s - noncentrality[..., None]) @ weights, 0.0, 1.0)


def dz_interval(t: np.ndarray, n: int, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The interval of the population d_z from observed paired t statistics over ``n`` topics (NaN if t is not
    finite): the noncentralities lambda with P(T <= t; lambda) = (1 + level)/2 and (1 - level)/2, over sqrt(n).

    The cdf at the observed t falls as lambda grows, with derivative -E[phi(t S -
    lambda)]: Newton's steps, kept inside a bracket that bisection narrows when
    a step would leave it, find each end to the last bits in a few steps.
    """
    t = np.asarray(t, dtype=np.float64)
    df = n - 1.0
    finite = np.isfinite(t)
    observed = np.where(finite, t, 0.0)
    s, weights = _chi_nodes(df)
    spread = np.sqrt(1.0 + observed * observed / (2.0 * df))
    ends = []
    for target, z in (((1.0 + level) / 2.0, -1.0), ((1.0 - level) / 2.0, 1.0)):
        low, high = observed - 10.0 * spread - 10.0, observed + 10.0 * spread + 10.0
        guess = observed + z * 2.0 * spread
        for _ in range(40):
            argument = observed[..., None] * s - guess[..., None]
            excess = normal_cdf(argument) @ weights - target
            slope = -(np.exp(-0.5 * argument * argument) / math.sqrt(2.0 * math.pi)) @ weights
            low, high = np.where(excess > 0, guess, low), np.where(excess > 0, high, guess)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = guess - excess / slope
            inside = np.isfinite(step) & (step > low) & (step < high)
            following = np.where(inside, step, 0.5 * (low + high))
            if np.all(np.abs(following - guess) <= 1e-13 * (1.0 + np.abs(guess))):
                guess = following
                break
            guess = following
        ends.append(np.where(finite, guess / math.sqrt(n), np.nan))
    return ends[0], ends[1]


def residual_variance(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    """V_E of the two-way ANOVA without replication of a topics x runs matrix (or a stack, topics x runs x k),
    and its degrees of freedom (n - 1)(m - 1): the mean square of x_ij - x_i. - x_.j + x_.."""
    cube = as_cube(matrix)
    n, m, _ = cube.shape
    residual = cube - cube.mean(axis=1, keepdims=True) - cube.mean(axis=0, keepdims=True) + cube.mean(axis=(0, 1))
    df = (n - 1) * (m - 1)
    variance = (residual * residual).sum(axis=(0, 1)) / df
    return (variance[0] if np.asarray(matrix).ndim == 2 else variance), df


def hedges_correction(df: float) -> float:
    """Hedges' J(v) = Gamma(v/2) / (sqrt(v/2) Gamma((v-1)/2)), the factor that makes d unbiased (NaN for v <= 1)."""
    if df <= 1:
        return math.nan
    return math.exp(math.lgamma(df / 2.0) - math.lgamma((df - 1.0) / 2.0)) / math.sqrt(df / 2.0)


def hedges_g_av(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hedges' g_av of runs ``a`` and ``b`` (topics first): J(n - 1) (mean_a - mean_b) / ((sd_a + sd_b) / 2)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    n = a.shape[0]
    average = (a.std(axis=0, ddof=1) + b.std(axis=0, ddof=1)) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return hedges_correction(n - 1.0) * (a.mean(axis=0) - b.mean(axis=0)) / average
