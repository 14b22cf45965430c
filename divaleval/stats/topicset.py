"""Topic set size design (Sakai 2016): how many topics a test collection needs, from a pilot's scores.

Sakai, "Topic set size design", Information Retrieval Journal 19(3):256-283,
2016, after Nagata (2003): a new collection's topic set size n follows from a
statistical requirement and a variance estimated on an existing (pilot)
topics x runs matrix of one measure. Three requirements:

* paired t-test (:func:`ttest_topics`): detect a true difference ``min_diff``
  (minD_t) between two systems with probability ``power`` (1 - beta) at level
  ``alpha``, two-sided. With sigma_t^2 the variance of the per-topic score
  differences and Delta_t = minD_t / sigma_t, the power with n topics is that
  of the noncentral t with n - 1 degrees of freedom and noncentrality
  sqrt(n) Delta_t: P(T' >= t_{alpha/2}) + P(T' <= -t_{alpha/2});
* one-way ANOVA over ``systems`` = m systems (:func:`anova_topics`): detect
  systems whose best and worst true means differ by ``min_diff`` (minD); the
  least favourable configuration (two means at +-minD/2, the others at the
  grand mean) has noncentrality lambda = n minD^2 / (2 sigma^2), and the power
  is P(F' >= F_alpha(m - 1, m (n - 1))) for the noncentral F (the one-way
  design's degrees of freedom, as Sakai's samplesizeANOVA tool; a test blocked
  on topics has (m - 1)(n - 1), and may need a topic or two more);
* confidence interval (:func:`ci_topics`): the expected width of the
  100(1 - alpha)% t interval of a difference between two systems,
  2 t_{alpha/2}(n - 1) E(s) / sqrt(n) with E(s) = sigma_t sqrt(2/(n - 1))
  Gamma(n/2) / Gamma((n - 1)/2), at most ``ci_width`` (delta).

n is the smallest number of topics (at least 2) meeting the requirement, found
by search over n on the exact power (the noncentral distributions of
:mod:`divaleval.stats.noncentral`), not on the normal approximations that
Sakai's Excel tools iterate with (which can differ by a topic or two); the
normal approximation only gives the search its starting point.

The variance: sigma^2 is estimated by the residual variance V_E of the two-way
ANOVA without replication (topics x runs) of the pilot matrix
(:func:`residual_variance`, the default), or by the pooled within-run variance
of the one-way ANOVA (:func:`within_variance`, the within-system variance of Sakai
2016, larger: it keeps the topics' variance). The t-test and the interval take
sigma_t^2 = 2 sigma^2 (as Sakai 2016): with the residual variance this is the
mean over every pair of pilot runs of the variance of their paired differences
(exactly, by the algebra of the two-way model); with the within-run variance it
ignores the covariance of two runs' scores over topics, an overestimate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Callable

import numpy as np

from ..errors import UsageError
from .noncentral import f_critical, nct_cdf, ncf_sf, t_critical

DESIGNS = ("ttest", "anova", "ci")
VARIANCES = ("residual", "within")
MAX_TOPICS = 100_000  # beyond this, no n is reported (the series' precision is checked up to it)


@dataclass(frozen=True)
class Requirement:
    """What a new collection must allow: tests at level ``alpha`` with ``power`` against a true difference
    ``min_diff`` (the t-test: between two systems; the ANOVA: the range of ``systems`` systems' means), and
    ``1 - alpha`` intervals of a difference no wider than ``ci_width``."""

    alpha: float = 0.05
    power: float = 0.80
    min_diff: float = 0.10
    ci_width: float = 0.10
    systems: int = 2

    def __post_init__(self) -> None:
        for name in ("alpha", "power"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise UsageError(f"{name} must be in (0, 1), not {value:g}")
        for name in ("min_diff", "ci_width"):
            value = getattr(self, name)
            if not value > 0.0 or math.isinf(value):
                raise UsageError(f"{name.replace('_', '-')} must be a positive number, not {value:g}")
        if int(self.systems) != self.systems or self.systems < 2:
            raise UsageError(f"systems must be a whole number of at least 2, not {self.systems}")


@dataclass(frozen=True)
class TopicSetSize:
    """The topics needed (None: more than :data:`MAX_TOPICS`, or none can tell with a zero variance), and
    what they achieve: the power of the test, or the interval's expected width."""

    topics: int | None
    achieved: float


def _check_pilot(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise UsageError(f"a variance needs scores of at least 2 topics and 2 runs, not {matrix.shape[0]} topics "
                         f"x {matrix.shape[1] if matrix.ndim == 2 else 0} runs")
    if not np.isfinite(matrix).all():
        raise UsageError("the pilot scores hold a value that is not a number")
    return matrix


def residual_variance(matrix: np.ndarray) -> float:
    """V_E of the two-way ANOVA without replication of a topics x runs matrix: the residual sum of squares
    (after the topic and run means) over (topics - 1)(runs - 1)."""
    matrix = _check_pilot(matrix)
    residuals = matrix - matrix.mean(axis=1, keepdims=True) - matrix.mean(axis=0, keepdims=True) + matrix.mean()
    return float((residuals * residuals).sum() / ((matrix.shape[0] - 1) * (matrix.shape[1] - 1)))


def within_variance(matrix: np.ndarray) -> float:
    """V_E of the one-way ANOVA (runs as groups) of a topics x runs matrix: the runs' pooled variance over
    topics, the sum of squares about each run's mean over runs (topics - 1)."""
    matrix = _check_pilot(matrix)
    deviations = matrix - matrix.mean(axis=0, keepdims=True)
    return float((deviations * deviations).sum() / (matrix.shape[1] * (matrix.shape[0] - 1)))


VARIANCE_ESTIMATES: dict[str, Callable[[np.ndarray], float]] = {"residual": residual_variance,
                                                                 "within": within_variance}


def _z(probability: float) -> float:
    return NormalDist().inv_cdf(probability)


def ttest_power(topics: int, min_diff: float, variance: float, alpha: float) -> float:
    """The power of the two-sided paired t-test over ``topics`` topics against a true mean difference
    ``min_diff``, when the per-topic differences have variance ``variance`` (sigma_t^2)."""
    df = topics - 1
    critical = t_critical(alpha, df)
    noncentrality = math.sqrt(topics) * min_diff / math.sqrt(variance)
    return (1.0 - nct_cdf(critical, df, noncentrality)) + nct_cdf(-critical, df, noncentrality)


def anova_power(topics: int, systems: int, min_diff: float, variance: float, alpha: float) -> float:
    """The power of the one-way ANOVA F-test over ``systems`` systems of ``topics`` topics each, when the range
    of the true means is ``min_diff`` (least favourably spread) and the scores' variance is ``variance``."""
    dfn, dfd = systems - 1, systems * (topics - 1)
    return ncf_sf(f_critical(alpha, dfn, dfd), dfn, dfd, topics * min_diff * min_diff / (2.0 * variance))


def ci_expected_width(topics: int, variance: float, alpha: float) -> float:
    """The expected width of the 100(1 - alpha)% paired t interval of a mean difference over ``topics``
    topics, when the per-topic differences have variance ``variance`` (sigma_t^2)."""
    df = topics - 1
    expected_sd = math.sqrt(variance) * math.sqrt(2.0 / df) * math.exp(math.lgamma(topics / 2.0)
                                                                       - math.lgamma(df / 2.0))
    return 2.0 * t_critical(alpha, df) * expected_sd / math.sqrt(topics)


def smallest_topics(meets: Callable[[int], bool], start: float) -> int | None:
    """The smallest n >= 2 with ``meets(n)``, for a requirement that more topics never stop meeting, searched
    from ``start``: steps that double outwards to bracket it, then bisection; None beyond MAX_TOPICS."""
    n = min(max(2, int(math.ceil(start))), MAX_TOPICS)
    if meets(n):
        high, step = n, 1
        while high > 2:  # step down until it fails
            low = max(2, high - step)
            if not meets(low):
                break
            high, step = low, 2 * step
        else:
            return 2
    else:
        low, step = n, 1
        while True:  # step up until it holds
            if low >= MAX_TOPICS:
                return None
            high = min(MAX_TOPICS, low + step)
            if meets(high):
                break
            low, step = high, 2 * step
    while high - low > 1:  # low fails, high meets
        middle = (low + high) // 2
        if meets(middle):
            high = middle
        else:
            low = middle
    return high


def ttest_topics(variance: float, requirement: Requirement) -> TopicSetSize:
    """Topics for the paired t-test to detect ``min_diff`` with the required power; ``variance`` is sigma^2
    (the t-test's sigma_t^2 = 2 sigma^2)."""
    if not variance > 0.0:
        return TopicSetSize(None, math.nan)
    variance_t = 2.0 * variance
    alpha, power, diff = requirement.alpha, requirement.power, requirement.min_diff
    z_alpha, z_beta = _z(1.0 - alpha / 2.0), _z(power)
    start = ((z_alpha + z_beta) / (diff / math.sqrt(variance_t))) ** 2 + z_alpha ** 2 / 2.0  # Nagata's approximation
    n = smallest_topics(lambda k: ttest_power(k, diff, variance_t, alpha) >= power, start)
    return TopicSetSize(n, math.nan if n is None else ttest_power(n, diff, variance_t, alpha))


def anova_topics(variance: float, requirement: Requirement) -> TopicSetSize:
    """Topics per system for the one-way ANOVA over ``systems`` systems to detect a range ``min_diff`` of their
    means with the required power; ``variance`` is sigma^2."""
    if not variance > 0.0:
        return TopicSetSize(None, math.nan)
    alpha, power, diff, systems = requirement.alpha, requirement.power, requirement.min_diff, requirement.systems
    z_alpha, z_beta = _z(1.0 - alpha / 2.0), _z(power)
    start = (z_alpha + z_beta) ** 2 * 2.0 * variance / (diff * diff)  # two systems' normal approximation
    n = smallest_topics(lambda k: anova_power(k, systems, diff, variance, alpha) >= power, start)
    return TopicSetSize(n, math.nan if n is None else anova_power(n, systems, diff, variance, alpha))


def ci_topics(variance: float, requirement: Requirement) -> TopicSetSize:
    """Topics for the expected width of the interval of a difference to be at most ``ci_width``; ``variance``
    is sigma^2 (the interval's sigma_t^2 = 2 sigma^2)."""
    if not variance > 0.0:
        return TopicSetSize(None, math.nan)
    variance_t, alpha, width = 2.0 * variance, requirement.alpha, requirement.ci_width
    start = 4.0 * _z(1.0 - alpha / 2.0) ** 2 * variance_t / (width * width)
    n = smallest_topics(lambda k: ci_expected_width(k, variance_t, alpha) <= width, start)
    return TopicSetSize(n, math.nan if n is None else ci_expected_width(n, variance_t, alpha))


SIZERS: dict[str, Callable[[float, Requirement], TopicSetSize]] = {"ttest": ttest_topics, "anova": anova_topics,
                                                                    "ci": ci_topics}
