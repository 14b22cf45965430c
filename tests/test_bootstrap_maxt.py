"""The family-wise paired bootstrap (single-step max-t, Westfall & Young 1993): against the exact bootstrap
distribution, enumerated over every resample of a tiny matrix with plain Python arithmetic, and against the
per-pair test it extends."""
from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest

from divaleval.stats import all_pairs, bootstrap_max_t, differences, paired_bootstrap

pytestmark = pytest.mark.golden


def t_abs(values) -> float:
    """|mean| / (sd / sqrt(n)) of a sample, with the bootstrap's convention for a sample of equal values:
    infinite when they are not 0, 0 when they are (stats/bootstrap.py's ``studentised``)."""
    mean = statistics.fmean(values)
    sd = statistics.stdev(values)
    if sd < 1e-12:
        return math.inf if abs(mean) > 1e-12 else 0.0
    return abs(mean) / (sd / math.sqrt(len(values)))


def exact_max_t(matrix: np.ndarray) -> list[float]:
    """The bootstrap's exact adjusted p-values: over all n^n equally likely resamples of the topics (ordered
    draws with replacement), the share whose largest |t*| over the pairs reaches the pair's observed |t|."""
    n, runs = matrix.shape
    pairs = list(itertools.combinations(range(runs), 2))
    diffs = [[float(matrix[t, a] - matrix[t, b]) for t in range(n)] for a, b in pairs]
    observed = [t_abs(d) for d in diffs]
    centred = [[x - statistics.fmean(d) for x in d] for d in diffs]
    reached = [0] * len(pairs)
    total = 0
    for draw in itertools.product(range(n), repeat=n):
        largest = max(t_abs([w[t] for t in draw]) for w in centred)
        total += 1
        for k, value in enumerate(observed):
            reached[k] += largest >= value * (1 - 1e-9)
    return [r / total for r in reached]


# Five topics, three runs: 5^5 = 3,125 resamples. Run 3 is clearly better than run 1; run 2 in between.
TINY = np.array([[0.20, 0.35, 0.60],
                 [0.45, 0.40, 0.70],
                 [0.10, 0.30, 0.30],
                 [0.50, 0.45, 0.90],
                 [0.30, 0.50, 0.55]])


def test_max_t_matches_the_exact_bootstrap_distribution():
    exact = exact_max_t(TINY)
    assert all(0.02 < p < 0.9 for p in exact), exact       # a test that discriminates, not a corner case
    trials = 20_000
    estimated = bootstrap_max_t(differences(TINY, all_pairs(3)), trials=trials, seed=11)
    for p_hat, p in zip(estimated, exact):
        # (b + 1) / (B + 1) estimates p within its Monte-Carlo error (4.5 standard errors, and the +1)
        assert abs(p_hat - p) <= 4.5 * math.sqrt(p * (1 - p) / trials) + 1 / trials, (p_hat, p)


def test_with_one_pair_max_t_is_the_per_pair_bootstrap():
    diffs = differences(TINY, np.array([[2, 0]]))
    trials = 3000
    family = bootstrap_max_t(diffs, trials=trials, seed=4)
    single = paired_bootstrap(diffs, trials=trials, seed=4)
    # The same resamples; paired_bootstrap returns b / B (or, once it adopts it, (b + 1) / (B + 1)).
    b = round(float(single[0]) * trials)
    assert family[0] in (pytest.approx((b + 1) / (trials + 1)), pytest.approx(float(single[0])))


def test_adjusted_p_values_are_never_below_the_per_pair_ones_nor_zero():
    rng = np.random.default_rng(7)
    scores = rng.random((30, 6)) + np.linspace(0, 0.4, 6)
    diffs = differences(scores, all_pairs(6))
    trials = 2000
    family = bootstrap_max_t(diffs, trials=trials, seed=2)
    single = paired_bootstrap(diffs, trials=trials, seed=2)
    # The same resamples: each trial's largest |t*| is at least the pair's own |t*|. (paired_bootstrap gives
    # b / B today, (b + 1) / (B + 1) once it adopts issue 29's rule: its counts under either.)
    per_b = single * trials
    counts_single = np.rint(per_b if np.allclose(per_b, np.rint(per_b)) else single * (trials + 1) - 1)
    counts_family = np.rint(family * (trials + 1) - 1)
    assert (counts_family >= counts_single).all() and (counts_family > counts_single).any()
    assert (family > 0).all() and family.min() == pytest.approx(1 / (trials + 1))
    assert (family <= 1).all()


def test_identical_runs_get_p_one_and_families_share_trials():
    rng = np.random.default_rng(3)
    scores = rng.random((12, 3, 2))
    scores[:, 1, 0] = scores[:, 0, 0]                       # runs 1 and 2 identical under the first measure
    diffs = differences(scores, all_pairs(3))                # (topics, pairs, measures)
    both = bootstrap_max_t(diffs, trials=700, seed=5)
    assert both.shape == (3, 2) and both[0, 0] == 1.0
    for k in range(2):                                       # a family's p-values do not depend on the others
        assert np.array_equal(both[:, k], bootstrap_max_t(diffs[:, :, k], trials=700, seed=5))


def test_blocks_in_any_order_give_the_same_p_values():
    diffs = differences(np.random.default_rng(9).random((10, 4)), all_pairs(4))

    def backwards(fn, blocks):
        blocks = list(blocks)
        return list(reversed([fn(block) for block in reversed(blocks)]))

    assert np.array_equal(bootstrap_max_t(diffs, trials=1800, seed=1),
                          bootstrap_max_t(diffs, trials=1800, seed=1, map_blocks=backwards))
    with pytest.raises(ValueError, match="two topics"):
        bootstrap_max_t(diffs[:1], trials=10)
