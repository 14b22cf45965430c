"""Statistics over a topics x runs matrix, against independent references.

scipy (test-only) for the paired t-test, Student's t, Kendall's tau-b and the
exact randomisation test; exact enumerations written here for the randomised
Tukey HSD and the paired bootstrap; the paper's tables for the tau intervals;
hand computations for Holm. Randomised results must lie within Monte-Carlo error
of the exact value: |p - p_exact| <= 4.5 sqrt(p_exact (1 - p_exact) / B) (a
4.5-sigma bound; the seeds are fixed, so the tests are deterministic).
"""
from __future__ import annotations

import itertools
import math
import re
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
import scipy.stats

from divaleval.stats import (
    all_pairs, baseline_pairs, differences, fisher_interval, holm, kendall_tau_b, paired_bootstrap, paired_t,
    preference_tau, randomisation_test, randomised_tukey_hsd, systems_from_pairs, t_quantile, t_two_sided, tau_b,
    trial_blocks,
)
from divaleval.stats import blocks
from conftest import shared_path

SIGMAS = 4.5


def within_mc_error(p, exact, trials):
    p, exact = np.asarray(p), np.asarray(exact)
    bound = SIGMAS * np.sqrt(exact * (1 - exact) / trials) + 0.5 / trials
    return np.all(np.abs(p - exact) <= bound), np.abs(p - exact), bound


def scores(topics, runs, seed):
    """Scores in [0, 1] with run effects, like a measure's: some pairs differ, some do not."""
    rng = np.random.default_rng(seed)
    effects = np.linspace(0, 0.15, runs)
    return np.clip(rng.beta(2, 3, size=(topics, 1)) + effects + rng.normal(0, 0.12, size=(topics, runs)), 0, 1)


# -- Student's t and the paired t-test ---------------------------------------------------------------

@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 24, 49, 200])
def test_t_tail_and_quantile_match_scipy(df):
    t = np.array([0.0, 1e-6, 0.3, 1.0, 1.96, 2.5, 4.0, 9.0, 30.0, -2.2])
    expected = 2 * scipy.stats.t.sf(np.abs(t), df)
    if df == 1:  # Cauchy: scipy loses digits near 0, the closed form does not
        expected = 2 / math.pi * np.arctan2(1.0, np.abs(t))
    assert np.allclose(t_two_sided(t, df), expected, rtol=1e-12, atol=1e-15)
    for q in (0.6, 0.9, 0.975, 0.995, 0.025):
        assert t_quantile(q, df) == pytest.approx(scipy.stats.t.ppf(q, df), rel=1e-12)


@pytest.mark.parametrize("topics", [3, 10, 50])
def test_paired_t_matches_scipy_ttest_rel(topics):
    matrix = scores(topics, 4, seed=topics)
    pairs = all_pairs(4)
    test = paired_t(differences(matrix, pairs), level=0.95)
    for q, (a, b) in enumerate(pairs):
        reference = scipy.stats.ttest_rel(matrix[:, a], matrix[:, b])
        interval = reference.confidence_interval(0.95)
        assert test.t[q] == pytest.approx(reference.statistic, rel=1e-12)
        assert test.p[q] == pytest.approx(reference.pvalue, rel=1e-10)
        assert test.ci_low[q] == pytest.approx(interval.low, rel=1e-12)
        assert test.ci_high[q] == pytest.approx(interval.high, rel=1e-12)
        d = matrix[:, a] - matrix[:, b]
        assert test.effect[q] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert test.df == topics - 1


def test_paired_t_of_equal_differences():
    diffs = np.array([[0.0, 0.25], [0.0, 0.25], [0.0, 0.25]])
    test = paired_t(diffs)
    assert test.p.tolist() == [1.0, 0.0]   # identical runs: no evidence; a constant gap: t is infinite
    assert paired_t(np.full((3, 1), 0.1)).p[0] < 1e-20   # 0.1 + 0.1 + 0.1: a variance of rounding only


# -- Holm -----------------------------------------------------------------------------------------------

def test_holm_by_hand():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> kept monotone: 0.06
    assert holm(np.array([0.01, 0.04, 0.03, 0.005])) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # capped at 1; columns are separate families
    got = holm(np.array([[0.5, 0.01], [0.6, 0.02]]))
    assert got == pytest.approx(np.array([[1.0, 0.02], [1.0, 0.02]]))


# -- Fisher's randomisation test ------------------------------------------------------------------------

def scipy_exact_randomisation(x, y):
    return scipy.stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                        permutation_type="samples", n_resamples=np.inf,
                                        alternative="two-sided").pvalue


def test_exact_randomisation_equals_scipy():
    matrix = scores(12, 4, seed=3)
    pairs = all_pairs(4)
    p = randomisation_test(differences(matrix, pairs), trials=10_000)   # 2^12 <= 10,000: enumerated
    expected = [scipy_exact_randomisation(matrix[:, a], matrix[:, b]) for a, b in pairs]
    assert p == pytest.approx(expected, abs=1e-12)


def test_randomised_randomisation_within_monte_carlo_error_of_scipy():
    matrix = scores(14, 5, seed=11)
    pairs = all_pairs(5)
    trials = 20_000
    p = randomisation_test(differences(matrix, pairs), trials=trials, seed=1, exact=False)
    expected = np.array([scipy_exact_randomisation(matrix[:, a], matrix[:, b]) for a, b in pairs])
    assert 0.001 < expected.min() and expected.max() > 0.2   # a spread of p-values, not all 0 or 1
    ok, error, bound = within_mc_error(p, expected, trials)
    assert ok, (error, bound)


# -- the randomised Tukey HSD, against its exact permutation distribution ---------------------------

def exact_tukey(matrix):
    """Every one of the (m!)^n ways of permuting each topic's row: the share whose range reaches each pair."""
    n, m = matrix.shape
    permutations = list(itertools.permutations(range(m)))
    means = matrix.mean(axis=0)
    pairs = all_pairs(m)
    observed = np.abs(means[pairs[:, 0]] - means[pairs[:, 1]])
    reached = np.zeros(len(pairs))
    total = 0
    for choice in itertools.product(permutations, repeat=n):
        permuted = np.array([matrix[t, list(choice[t])] for t in range(n)]).mean(axis=0)
        reached += (permuted.max() - permuted.min()) >= observed - 1e-12
        total += 1
    return reached / total


def test_tukey_hsd_within_monte_carlo_error_of_exact_enumeration():
    matrix = np.array([[0.61, 0.40, 0.22], [0.55, 0.52, 0.30], [0.70, 0.35, 0.41], [0.48, 0.50, 0.20]])
    exact = exact_tukey(matrix)                       # 6^4 = 1296 equally likely permutations
    assert exact.min() < 0.1 and exact.max() > 0.5
    trials = 20_000
    p = randomised_tukey_hsd(matrix, trials=trials, seed=7)
    ok, error, bound = within_mc_error(p, exact, trials)
    assert ok, (p, exact, bound)


def test_tukey_hsd_stacked_measures_are_each_their_own_test():
    a, b = scores(9, 4, seed=1), scores(9, 4, seed=2)
    both = randomised_tukey_hsd(np.stack([a, b], axis=2), trials=1500, seed=5)
    assert both[:, 0] == pytest.approx(randomised_tukey_hsd(a, trials=1500, seed=5), abs=0)
    assert both[:, 1] == pytest.approx(randomised_tukey_hsd(b, trials=1500, seed=5), abs=0)


# -- the studentised paired bootstrap, against all n^n resamples --------------------------------------

def exact_bootstrap(d):
    n = len(d)
    w = d - d.mean()
    observed = abs(d.mean() / (d.std(ddof=1) / math.sqrt(n)))
    samples = w[np.array(list(itertools.product(range(n), repeat=n)))]      # every ordered resample
    mean, sd = samples.mean(axis=1), samples.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / (sd / math.sqrt(n))
    t[sd == 0] = np.where(np.abs(mean[sd == 0]) > 1e-15, np.inf, 0.0)   # equal values: infinite unless all 0
    return float(np.mean(t >= observed * (1 - 1e-12)))


def test_bootstrap_within_monte_carlo_error_of_exact_enumeration():
    matrix = scores(6, 3, seed=21)
    matrix[:, 2] += 0.1
    pairs = all_pairs(3)
    diffs = differences(matrix, pairs)
    exact = np.array([exact_bootstrap(diffs[:, q]) for q in range(len(pairs))])   # 6^6 = 46656 resamples
    assert exact.min() < 0.15 and exact.max() > 0.3
    trials = 20_000
    p = paired_bootstrap(diffs, trials=trials, seed=3)
    ok, error, bound = within_mc_error(p, exact, trials)
    assert ok, (p, exact, bound)


# -- reproducibility: seeds, blocks, chunks ---------------------------------------------------------

def reversed_map(fn, items):
    """A back end that runs the blocks last first (and returns them in order, as a cluster's gather does)."""
    items = list(items)
    return list(reversed([fn(item) for item in reversed(items)]))


def process_map(fn, items):
    with ProcessPoolExecutor(max_workers=2) as pool:
        return list(pool.map(fn, items))


@pytest.mark.parametrize("procedure", ["tukey", "bootstrap", "randomisation"])
def test_the_seed_decides_and_where_blocks_run_does_not(procedure, monkeypatch):
    matrix = scores(20, 4, seed=9)
    diffs = differences(matrix, all_pairs(4))

    def run(seed, map_blocks=map):
        if procedure == "tukey":
            return randomised_tukey_hsd(matrix, trials=1700, seed=seed, map_blocks=map_blocks)
        if procedure == "bootstrap":
            return paired_bootstrap(diffs, trials=1700, seed=seed, map_blocks=map_blocks)
        return randomisation_test(diffs, trials=1700, seed=seed, map_blocks=map_blocks)

    first = run(42)
    assert np.array_equal(first, run(42))
    assert not np.array_equal(first, run(43))
    assert np.array_equal(first, run(42, reversed_map))
    assert np.array_equal(first, run(42, process_map))
    assert np.array_equal(first, run(np.random.SeedSequence(42)))
    monkeypatch.setattr(blocks, "CHUNK_ELEMENTS", 97)      # tiny chunks: the same draws, the same p-values
    assert np.array_equal(first, run(42))


def test_blocks_are_the_seed_sequence_spawned():
    planned = trial_blocks(1234, 99)
    assert [b.trials for b in planned] == [500, 500, 234]
    spawned = np.random.SeedSequence(99).spawn(3)
    for block, child in zip(planned, spawned):
        assert block.generator().random(4).tolist() == np.random.Generator(np.random.PCG64(child)).random(4).tolist()


def test_progress_counts_every_trial():
    done = []
    randomised_tukey_hsd(scores(5, 3, seed=1), trials=1234, seed=1, progress=done.append)
    assert sum(done) == 1234 and len(done) == 3


# -- Kendall's tau-b and its interval -----------------------------------------------------------------

def test_tau_b_matches_scipy_with_ties():
    rng = np.random.default_rng(4)
    for _ in range(20):
        x = rng.integers(0, 5, 11).astype(float)
        y = rng.integers(0, 5, 11).astype(float)
        assert tau_b(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, rel=1e-12)
    columns = rng.random((9, 4))
    columns[3, 1] = columns[5, 1]                    # one tie in the second ranking
    tau, ties = kendall_tau_b(columns)
    assert ties.tolist() == [0, 1, 0, 0]
    for i, j in itertools.combinations(range(4), 2):
        assert tau[i, j] == pytest.approx(scipy.stats.kendalltau(columns[:, i], columns[:, j]).statistic)


def paper_table(start: str, stop: str) -> str:
    text = shared_path("papers", "which-diversity-measures-good-sakai-zeng-sigir2019.md").read_text()
    return text[text.index(start): text.index(stop)]


def test_tau_intervals_of_the_papers_examples():
    # Sakai & Zeng, Table 1(a), EBR vs ERR: tau .886 over 15 systems -> [.767, .946].
    low, high = fisher_interval(0.886, 15)
    assert (round(float(low), 3), round(float(high), 3)) == (0.767, 0.946)
    # Table 5(a), iRBU: 952 agreements, 163 disagreements: tau .708 over P = 1,115 pairs -> [.596, .793],
    # L taken back from P.
    assert systems_from_pairs(1115) == pytest.approx((1 + math.sqrt(8921)) / 2)
    assert round(preference_tau(952, 163, 1115), 3) == 0.708
    low, high = fisher_interval(0.708, systems_from_pairs(1115))
    assert (round(float(low), 3), round(float(high), 3)) == (0.596, 0.793)


def test_tau_intervals_of_sakai_zeng_table_1():
    cells = re.findall(r"\.(\d{3}) \[(0\.\d{3}), (0\.\d{3})\]", paper_table("(a)\tERR\tnDCG", "- From Part (a)"))
    assert len(cells) == 51                           # every cell of parts (a), (b) and (c)
    for tau, lo, hi in cells:
        low, high = fisher_interval(float("0." + tau), 15)
        assert ("%.3f" % low, "%.3f" % high) == (lo, hi), tau


AGREEMENT = re.compile(r"\t(\d+)\t(\d+)\t\.(\d{3}) \[\.(\d{3}), \.(\d{3})\]")


def test_gold_agreement_intervals_of_sakai_zeng_tables_5_and_6():
    rows = AGREEMENT.findall(paper_table("Table 5: Agreement", "clearly the best measures"))
    assert len(rows) == 120                           # Tables 5(a), 5(b), 6(a), 6(b)
    for agree, disagree, tau, lo, hi in rows:
        pairs = int(agree) + int(disagree)
        exact = preference_tau(int(agree), int(disagree), pairs)
        assert "%.3f" % exact == "0." + tau
        # The paper computes its intervals from tau rounded to three decimals: that reproduces every one.
        low, high = fisher_interval(round(exact, 3), systems_from_pairs(pairs))
        assert ("%.3f" % low, "%.3f" % high) == ("0." + lo, "0." + hi), (agree, disagree)
        # From the exact tau, an end moves by at most one in the third decimal.
        low, high = fisher_interval(exact, systems_from_pairs(pairs))
        assert abs(low - float("0." + lo)) <= 0.0015 and abs(high - float("0." + hi)) <= 0.0015


def test_interval_is_undefined_for_four_systems_or_fewer_and_at_tau_one():
    low, high = fisher_interval(0.5, 4)
    assert np.isnan(low) and np.isnan(high)
    for tau in (1.0, -1.0):         # atanh(+-1) is infinite: no interval, not [1, 1]
        assert np.isnan(fisher_interval(tau, 10)).all()


def test_pairs_helpers():
    assert all_pairs(3).tolist() == [[0, 1], [0, 2], [1, 2]]
    assert baseline_pairs(3, 1).tolist() == [[0, 1], [2, 1]]
