"""The noncentral t and F distributions and the critical values of t and F, without scipy: what power needs.

Both noncentral distributions are Poisson mixtures of regularised incomplete beta
functions, summed here over every term whose Poisson weight can matter (12
standard deviations and 40 terms either side of the Poisson law's mean: the
weights left out add up to less than 1e-20):

* noncentral t with ``df`` degrees of freedom and noncentrality ``delta``, for
  t >= 0 (Guenther 1978, "Evaluation of probabilities for the noncentral
  distributions and the difference of two t-variables with a desk calculator",
  J. Statist. Comput. Simul. 6; the series of Lenth 1989, Applied Statistics
  38, algorithm AS 243)::

      F(t) = Phi(-delta) + 1/2 sum_j [ p_j I_x(j + 1/2, df/2) + q_j I_x(j + 1, df/2) ]
      x = t^2 / (t^2 + df),  p_j = e^(-delta^2/2) (delta^2/2)^j / j!,
      q_j = delta e^(-delta^2/2) (delta^2/2)^j / (sqrt 2 Gamma(j + 3/2)),

  and F(t; df, delta) = 1 - F(-t; df, -delta) for t < 0;
* noncentral F with ``dfn``, ``dfd`` degrees of freedom and noncentrality
  ``lam`` (Johnson, Kotz & Balakrishnan 1995, Continuous Univariate
  Distributions vol. 2, ch. 30, eq. 30.3): P(F' > w) =
  sum_j e^(-lam/2) (lam/2)^j / j! I_{1-y}(dfd/2, dfn/2 + j), with
  y = dfn w / (dfn w + dfd), the upper tail taken directly so that it keeps its
  relative precision.

The incomplete beta function is the continued fraction of
:mod:`divaleval.stats.distributions`, evaluated for all the terms at once.
The critical values of t and F (:func:`t_critical`, :func:`f_critical`) are
found by Newton's method on the tail, guarded by bisection.
tests/test_topicset.py checks every function here against scipy.stats (nct, ncf, t, f).
"""
from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from .distributions import _beta_fraction, regularized_beta, t_two_sided

_SPREAD = 12.0  # Poisson standard deviations summed beyond the mean
_EXTRA_TERMS = 40


def _poisson_terms(mean: float) -> np.ndarray:
    """The indices j of the Poisson(mean) weights that can matter, both sides of the mean."""
    reach = _SPREAD * math.sqrt(mean) + _EXTRA_TERMS
    return np.arange(max(0, int(mean - reach)), int(math.ceil(mean + reach)), dtype=np.float64)


_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _log_gamma(values: np.ndarray) -> np.ndarray:
    return _lgamma(values).astype(np.float64)


def _beta_terms(a: np.ndarray, b: np.ndarray, x: float, y: float) -> np.ndarray:
    """I_x(a_j, b_j) for arrays a, b of parameters at one point x (y = 1 - x, given for its precision)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    if x <= 0.0:
        return np.zeros(a.shape)
    if y <= 0.0:
        return np.ones(a.shape)
    log_front = a * math.log(x) + b * math.log(y) - (_log_gamma(a) + _log_gamma(b) - _log_gamma(a + b))
    direct = x < (a + 1.0) / (a + b + 2.0)
    values = np.empty(a.shape)
    if direct.any():
        values[direct] = np.exp(log_front[direct]) / a[direct] * _beta_fraction(
            a[direct], b[direct], np.full(int(direct.sum()), x))
    if (~direct).any():  # I_x(a, b) = 1 - I_{1-x}(b, a)
        other = ~direct
        values[other] = 1.0 - np.exp(log_front[other]) / b[other] * _beta_fraction(
            b[other], a[other], np.full(int(other.sum()), y))
    return np.clip(values, 0.0, 1.0)


def _nct_cdf_nonnegative(t: float, df: float, delta: float) -> float:
    """F(t; df, delta) for t >= 0, by the series above."""
    half_square = 0.5 * delta * delta
    normal_part = 0.5 * math.erfc(delta / math.sqrt(2.0))  # Phi(-delta)
    if t == 0.0:
        return normal_part
    square = t * t
    x, y = square / (square + df), df / (square + df)
    j = _poisson_terms(half_square)
    if half_square > 0.0:
        log_weight = -half_square + j * math.log(half_square) - _log_gamma(j + 1.0)
        p = np.exp(log_weight)
        q = math.copysign(1.0, delta) * np.exp(log_weight + _log_gamma(j + 1.0) - _log_gamma(j + 1.5)
                                               + math.log(abs(delta)) - 0.5 * math.log(2.0))
    else:
        p, q = (j == 0).astype(np.float64), np.zeros(j.shape)
    series = p @ _beta_terms(j + 0.5, 0.5 * df, x, y) + q @ _beta_terms(j + 1.0, 0.5 * df, x, y)
    return normal_part + 0.5 * series


def nct_cdf(t: float, df: float, delta: float) -> float:
    """P(T <= t) for the noncentral t distribution with ``df`` degrees of freedom and noncentrality ``delta``."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    if t >= 0.0:
        return min(1.0, max(0.0, _nct_cdf_nonnegative(t, df, delta)))
    return min(1.0, max(0.0, 1.0 - _nct_cdf_nonnegative(-t, df, -delta)))


def ncf_sf(w: float, dfn: float, dfd: float, lam: float) -> float:
    """P(F' > w) for the noncentral F distribution (``dfn``, ``dfd`` degrees of freedom, noncentrality ``lam``)."""
    if dfn <= 0 or dfd <= 0 or lam < 0:
        raise ValueError("degrees of freedom must be positive and the noncentrality not negative")
    if w <= 0.0:
        return 1.0
    y, y_complement = dfn * w / (dfn * w + dfd), dfd / (dfn * w + dfd)
    half = 0.5 * lam
    j = _poisson_terms(half)
    weights = np.exp(-half + j * math.log(half) - _log_gamma(j + 1.0)) if half > 0 else (j == 0).astype(float)
    return float(min(1.0, max(0.0, weights @ _beta_terms(0.5 * dfd, 0.5 * dfn + j, y_complement, y))))


def _upper_critical(tail, log_density, target: float, start: float) -> float:
    """The point c > 0 whose upper tail ``tail(c)`` is ``target``, for a tail that falls and is convex beyond
    the mode: Newton's steps from a point left of c approach it from the left without overshooting, and
    bisection takes over should a step leave the bracket (or 100 steps not suffice)."""
    low, high = 0.0, max(start, 1.0)
    while tail(high) > target:
        low, high = high, 2.0 * high
    point = min(max(start, low), high)
    for _ in range(100):
        excess = tail(point) - target
        if excess == 0.0:
            return point
        if excess > 0.0:
            low = point
        else:
            high = point
        step = point + excess / math.exp(log_density(point))
        if not low < step < high or abs(step - point) <= 1e-15 * point:
            if low < step < high:
                return step
            break
        point = step
    for _ in range(200):  # bisection to the last bit
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if tail(middle) > target:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


@lru_cache(maxsize=4096)
def t_critical(alpha: float, df: float) -> float:
    """The two-sided critical value of Student's t: P(|T| >= c) = ``alpha`` (c = t_{alpha/2}(df))."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be in (0, 1)")
    log_norm = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)

    def log_density(c: float) -> float:  # of |T|: twice t's density
        return math.log(2.0) + log_norm - (df + 1.0) / 2.0 * math.log1p(c * c / df)

    return _upper_critical(lambda c: float(t_two_sided(c, df)[0]), log_density, alpha,
                           NormalDist().inv_cdf(1.0 - alpha / 2.0))


@lru_cache(maxsize=4096)
def f_critical(alpha: float, dfn: float, dfd: float) -> float:
    """The critical value of the central F distribution: P(F >= w) = ``alpha`` (w = F_alpha(dfn, dfd))."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be in (0, 1)")
    a, b = 0.5 * dfn, 0.5 * dfd
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)

    def tail(w: float) -> float:  # P(F > w) = I_{1-y}(dfd/2, dfn/2), y = dfn w / (dfn w + dfd)
        return float(regularized_beta(b, a, dfd / (dfn * w + dfd), dfn * w / (dfn * w + dfd))[0])

    def log_density(w: float) -> float:
        return (a * math.log(dfn) + b * math.log(dfd) + (a - 1.0) * math.log(w)
                - (a + b) * math.log(dfn * w + dfd) - log_beta)

    # Beyond the mode (below 1) the tail is convex; start at the chi-square's normal approximation, or 1.
    return _upper_critical(tail, log_density, alpha, max(1.0, 1.0 + NormalDist().inv_cdf(1.0 - alpha)
                                                         * math.sqrt(2.0 / dfn)))
