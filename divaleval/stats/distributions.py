"""Student's t distribution, without scipy: two-sided tail probabilities and quantiles.

The tail of t with ``df`` degrees of freedom is a regularised incomplete beta
function, P(|T| >= t) = I_x(df/2, 1/2) with x = df / (df + t^2) (DLMF 8.17.ii;
Abramowitz & Stegun 26.7.1), evaluated by its continued fraction (DLMF 8.17.22)
with Lentz's method. The complement 1 - x = t^2 / (df + t^2) is passed in
directly, so that small and large t keep full relative precision.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

_TINY = 1e-300
_EPS = 1e-15
_MAX_TERMS = 500


def _beta_fraction(a: float, b: float, x: np.ndarray) -> np.ndarray:
    """The continued fraction of I_x(a, b) (DLMF 8.17.22), for x < (a+1)/(a+b+2), by Lentz's method."""
    c = np.ones_like(x)
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    f = d.copy()
    done = np.zeros(x.shape, dtype=bool)
    for m in range(1, _MAX_TERMS):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
            c = 1.0 + numerator / np.where(np.abs(c) < _TINY, _TINY, c)
            delta = c * d
            f = np.where(done, f, f * delta)
        done |= np.abs(delta - 1.0) < _EPS  # the even and odd steps together moved f by less than a bit
        if done.all():
            break
    return f


def regularized_beta(a: float, b: float, x, y=None) -> np.ndarray:
    """I_x(a, b), the regularised incomplete beta function; ``y`` = 1 - x if known more precisely."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    y = 1.0 - x if y is None else np.atleast_1d(np.asarray(y, dtype=np.float64))
    result = np.where(x <= 0.0, 0.0, 1.0)
    inside = (x > 0.0) & (y > 0.0)
    if inside.any():
        xi, yi = x[inside], y[inside]
        log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
        direct = xi < (a + 1.0) / (a + b + 2.0)
        values = np.empty_like(xi)
        with np.errstate(divide="ignore"):
            if direct.any():
                xd, yd = xi[direct], yi[direct]
                front = np.exp(a * np.log(xd) + b * np.log(yd) - log_beta) / a
                values[direct] = front * _beta_fraction(a, b, xd)
            if (~direct).any():  # I_x(a, b) = 1 - I_{1-x}(b, a)
                xr, yr = xi[~direct], yi[~direct]
                front = np.exp(b * np.log(yr) + a * np.log(xr) - log_beta) / b
                values[~direct] = 1.0 - front * _beta_fraction(b, a, yr)
        result[inside] = values
    return result


def t_two_sided(t, df: float) -> np.ndarray:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom (1 at t = 0, 0 at infinite t, NaN for NaN)."""
    t = np.atleast_1d(np.asarray(t, dtype=np.float64))
    square = t * t
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.where(np.isinf(square), 0.0, df / (df + square))
        y = np.where(np.isinf(square), 1.0, square / (df + square))
    p = regularized_beta(df / 2.0, 0.5, x, y)
    return np.where(np.isnan(t), np.nan, np.clip(p, 0.0, 1.0))


def t_quantile(probability: float, df: float) -> float:
    """The ``probability`` quantile of Student's t (e.g. 0.975 -> the two-sided 95% critical value)."""
    if not 0.0 < probability < 1.0:
        raise ValueError("probability must be in (0, 1)")
    if probability == 0.5:
        return 0.0
    tail = 2.0 * min(probability, 1.0 - probability)  # the two-sided tail at the quantile
    low, high = 0.0, max(1.0, abs(NormalDist().inv_cdf(probability)))
    while t_two_sided(high, df)[0] > tail:
        low, high = high, high * 2.0
    for _ in range(200):  # bisection to the last bit
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if t_two_sided(middle, df)[0] > tail:
            low = middle
        else:
            high = middle
    value = 0.5 * (low + high)
    return value if probability > 0.5 else -value


def normal_quantile(probability: float) -> float:
    """The ``probability`` quantile of the standard normal distribution (0.975 -> 1.959964)."""
    return NormalDist().inv_cdf(probability)
