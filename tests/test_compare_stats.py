"""compare's statistics a reviewer checks (issue 29), each against an independent reference.

* Intervals that agree with their p-values: Bonferroni t intervals against
  scipy's ttest_rel interval at level 1 - alpha/k; Holm against statsmodels'
  multipletests (over the pairs of a measure, or over all rows with --correct
  all); the randomised HSD's and the bootstrap-t's critical values against
  their exact permutation / resampling distributions (enumerated here), and
  "excludes 0 exactly when the adjusted p < alpha" on many data sets and levels.
* Randomised p-values: (b + 1) / (B + 1) (Phipson & Smyth 2010), never 0, with
  the Monte-Carlo standard error sqrt(p (1 - p) / B); exact enumeration stays
  exact (scipy's exact permutation test).
* Effect sizes: d_z's interval against the inversion of scipy's noncentral t;
  V_E (ES_E2's denominator) against statsmodels' two-way OLS residual mean
  square; g_av by hand with scipy's gamma function.
* ``divaleval compare`` on the TREC 2012 baselines: intervals exclude 0 only
  for pairs whose adjusted p-value is below alpha, and no p-value is 0 in the
  csv or json output (skipped without ../shared).
"""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import scipy.optimize
import scipy.special
import scipy.stats

from divaleval.meta.compare import compare_runs
from divaleval.meta.cube import ScoreCube
from divaleval.stats import all_pairs, differences, paired_t, randomisation_test
from divaleval.stats.blocks import monte_carlo_se
from divaleval.stats.bootstrap import paired_bootstrap, paired_bootstrap_intervals
from divaleval.stats.critical import tail_size
from divaleval.stats.effects import dz_interval, hedges_g_av, noncentral_t_cdf, normal_cdf, residual_variance
from divaleval.stats.paired import bonferroni_interval
from divaleval.stats.tukey import randomised_tukey_hsd, randomised_tukey_hsd_intervals
from conftest import shared_path

statsmodels_multitest = pytest.importorskip("statsmodels.stats.multitest")
smf = pytest.importorskip("statsmodels.formula.api")

SIGMAS = 4.5


def scores(topics, runs, seed, spread=0.15):
    rng = np.random.default_rng(seed)
    effects = np.linspace(0, spread, runs)
    return np.clip(rng.beta(2, 3, size=(topics, 1)) + effects + rng.normal(0, 0.12, size=(topics, runs)), 0, 1)


def cube_of(values, runs=None):
    runs = runs or [f"r{i}" for i in range(values.shape[1])]
    topics = [str(t) for t in range(values.shape[0])]
    stacked = values if values.ndim == 3 else values[:, :, None]
    measures = [f"m{j + 1}" for j in range(stacked.shape[2])]
    return ScoreCube(tuple(runs), tuple(runs), tuple(topics), tuple(measures), np.transpose(stacked, (1, 0, 2)))


def excludes_zero(low, high):
    return (np.asarray(low) > 0) | (np.asarray(high) < 0)


# -- (b + 1) / (B + 1) ---------------------------------------------------------------------------------------

def test_tail_size_by_hand():
    # p = (b + 1) / 20000 < 0.05 for b + 1 <= 999: K = 999 counts reject.
    assert tail_size(19_999, 0.05) == 999
    assert tail_size(10_000, 0.05) == 500        # (499 + 1) / 10001 < 0.05 <= (500 + 1) / 10001
    assert tail_size(10, 0.05) == 0              # 1 / 11 > 0.05: no test can reject
    assert tail_size(10_000, 0.05, family=28) == 17   # 28 (b + 1) / 10001 < 0.05 for b + 1 <= 17


def test_randomised_p_values_are_never_zero():
    trials = 3000
    constant = np.full((30, 1), 0.2)           # one sign vector in 2^30 reaches the observed sum: b = 0
    assert randomisation_test(constant, trials, seed=1, exact=False)[0] == 1 / (trials + 1)
    assert paired_bootstrap(constant, trials, seed=1)[0] == 1 / (trials + 1)       # t infinite: no resample reaches
    apart = np.column_stack([np.zeros(12), np.ones(12)])   # a trial reaches 1 only if no topic or every topic swaps
    p = randomised_tukey_hsd(apart, trials=trials, seed=2)[0]
    assert p >= 1 / (trials + 1) and p * (trials + 1) == pytest.approx(round(p * (trials + 1)), abs=1e-9)
    identical = np.zeros((10, 1))                # every trial reaches a difference of 0: p = 1
    assert randomisation_test(identical, trials, seed=1, exact=False)[0] == 1.0


def test_randomised_p_within_monte_carlo_error_of_scipys_exact_p_and_its_standard_error():
    matrix = scores(14, 3, seed=5)
    pairs = all_pairs(3)
    trials = 20_000
    p = randomisation_test(differences(matrix, pairs), trials, seed=3, exact=False)
    for q, (a, b) in enumerate(pairs):
        exact = scipy.stats.permutation_test((matrix[:, a], matrix[:, b]), lambda x, y, axis: np.mean(x - y, axis=axis),
                                             vectorized=True, permutation_type="samples", n_resamples=np.inf,
                                             alternative="two-sided").pvalue
        assert abs(p[q] - exact) <= SIGMAS * math.sqrt(exact * (1 - exact) / trials) + 1 / trials
    assert (p > 0).all()
    assert monte_carlo_se(p, trials) == pytest.approx(np.sqrt(p * (1 - p) / trials))


def test_exact_enumeration_stays_exact():
    matrix = scores(10, 2, seed=8)
    d = matrix[:, 0] - matrix[:, 1]
    p = randomisation_test(d[:, None], trials=10_000)[0]      # 2^10 <= 10,000: enumerated
    count = sum(abs(np.dot(signs, d)) >= abs(d.sum()) - 1e-12 for signs in itertools.product([1, -1], repeat=10))
    assert p == count / 1024


# -- intervals that agree with the tests ---------------------------------------------------------------------

@pytest.mark.parametrize("family, alpha", [(1, 0.05), (6, 0.05), (15, 0.1)])
def test_bonferroni_interval_is_scipys_at_the_bonferroni_level(family, alpha):
    matrix = scores(25, 4, seed=family)
    pairs = all_pairs(4)
    test = paired_t(differences(matrix, pairs))
    low, high = bonferroni_interval(test, alpha, family)
    for q, (a, b) in enumerate(pairs):
        reference = scipy.stats.ttest_rel(matrix[:, a], matrix[:, b]).confidence_interval(1 - alpha / family)
        assert (low[q], high[q]) == pytest.approx((reference.low, reference.high), rel=1e-12)
        bonferroni = min(1.0, family * test.p[q])
        assert bool(excludes_zero(low[q], high[q])) == (bonferroni < alpha)


def exact_ranges(matrix):
    """The max - min range of the run means under every one of the (m!)^n row permutations."""
    n, m = matrix.shape
    permutations = [list(p) for p in itertools.permutations(range(m))]
    return np.array([np.ptp(np.array([matrix[t, choice[t]] for t in range(n)]).mean(axis=0))
                     for choice in itertools.product(permutations, repeat=n)])


def test_hsd_critical_range_within_monte_carlo_error_of_the_exact_distribution():
    matrix = np.array([[0.61, 0.40, 0.22], [0.55, 0.52, 0.30], [0.70, 0.35, 0.41], [0.48, 0.50, 0.20],
                       [0.52, 0.45, 0.33]])
    ranges = exact_ranges(matrix)                        # 6^5 = 7776 equally likely permutations
    trials, alpha = 20_000, 0.1
    hsd = randomised_tukey_hsd_intervals(matrix, trials=trials, seed=4, alpha=alpha)
    tail = np.mean(ranges >= hsd.half_width - 1e-12)  # P(range >= c) under the exact distribution: about alpha
    assert abs(tail - alpha) <= SIGMAS * math.sqrt(alpha * (1 - alpha) / trials) + np.mean(
        np.isclose(ranges, hsd.half_width)), (tail, hsd.half_width)
    assert np.array_equal(hsd.p, randomised_tukey_hsd(matrix, trials=trials, seed=4))   # the same trials


@pytest.mark.parametrize("seed", range(6))
def test_hsd_interval_excludes_zero_exactly_when_p_is_below_alpha(seed):
    matrix = scores(15, 5, seed=seed, spread=0.25)
    means = matrix.mean(axis=0)
    pairs = all_pairs(5)
    diff = means[pairs[:, 0]] - means[pairs[:, 1]]
    for alpha, trials in ((0.05, 999), (0.1, 1500), (0.01, 2000)):
        hsd = randomised_tukey_hsd_intervals(matrix, trials=trials, seed=seed, alpha=alpha)
        assert np.array_equal(excludes_zero(diff - hsd.half_width, diff + hsd.half_width), hsd.p < alpha)


def exact_bootstrap_t(d):
    n = len(d)
    w = d - d.mean()
    samples = w[np.array(list(itertools.product(range(n), repeat=n)))]
    mean, sd = samples.mean(axis=1), samples.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / (sd / math.sqrt(n))
    t[sd == 0] = np.where(np.abs(mean[sd == 0]) > 1e-15, np.inf, 0.0)
    return t


def test_bootstrap_t_interval_against_the_exact_resampling_distribution():
    matrix = scores(6, 3, seed=21)
    diffs = differences(matrix, all_pairs(3))
    trials, alpha, family = 20_000, 0.2, 2
    boot = paired_bootstrap_intervals(diffs, trials, seed=3, alpha=alpha, family=family)
    assert np.array_equal(boot.p, paired_bootstrap(diffs, trials, seed=3))          # the same resamples
    for q in range(diffs.shape[1]):
        d = diffs[:, q]
        se = d.std(ddof=1) / math.sqrt(len(d))
        critical = (boot.ci_high[q] - d.mean()) / se                                 # c of mean +- c se
        tail = np.mean(exact_bootstrap_t(d) >= critical * (1 - 1e-9))                # about alpha / family
        level = alpha / family
        assert abs(tail - level) <= SIGMAS * math.sqrt(level * (1 - level) / trials) + 1 / 6 ** 6 * 50
        assert bool(excludes_zero(boot.ci_low[q], boot.ci_high[q])) == (family * boot.p[q] < alpha)


# -- effect sizes ---------------------------------------------------------------------------------------------

def test_normal_cdf_and_noncentral_t_against_scipy():
    z = np.linspace(-12, 12, 2401)
    assert np.allclose(normal_cdf(z), scipy.stats.norm.cdf(z), rtol=1e-12, atol=0)
    for df in (2, 9, 49, 300):
        t, delta = np.meshgrid([-3.0, 0.0, 0.7, 2.5, 8.0], [-1.0, 0.0, 1.5, 4.0])
        reference = scipy.stats.nct.cdf(t, df, delta)
        assert np.allclose(noncentral_t_cdf(t, df, delta), reference, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("n", [8, 50])
def test_dz_interval_inverts_scipys_noncentral_t(n):
    for t in (-4.2, -0.3, 0.0, 1.1, 2.9, 6.5):
        low, high = dz_interval(np.array([t]), n, level=0.95)
        ends = [scipy.optimize.brentq(lambda x: scipy.stats.nct.cdf(t, n - 1, x) - target, t - 6, t + 6, xtol=1e-13)
                for target in (0.975, 0.025)]
        assert (low[0], high[0]) == pytest.approx((ends[0] / math.sqrt(n), ends[1] / math.sqrt(n)), abs=1e-8)
    assert np.isnan(dz_interval(np.array([np.inf, np.nan]), n)[0]).all()


def test_residual_variance_is_the_two_way_anova_mean_square():
    import pandas as pd

    matrix = scores(12, 5, seed=3)
    frame = pd.DataFrame({"y": matrix.ravel(), "topic": np.repeat(np.arange(12), 5), "run": np.tile(np.arange(5), 12)})
    fit = smf.ols("y ~ C(topic) + C(run)", frame).fit()
    variance, df = residual_variance(matrix)
    assert variance == pytest.approx(fit.mse_resid, rel=1e-12) and df == fit.df_resid == 44
    # two runs: V_E is half the variance of the differences (by hand)
    pair = matrix[:, :2]
    assert residual_variance(pair)[0] == pytest.approx(np.var(pair[:, 0] - pair[:, 1], ddof=1) / 2, rel=1e-12)


def test_hedges_g_av_by_hand():
    a, b = np.array([0.5, 0.2, 0.9, 0.4, 0.7]), np.array([0.3, 0.25, 0.6, 0.1, 0.65])
    d_av = (a.mean() - b.mean()) / ((a.std(ddof=1) + b.std(ddof=1)) / 2)
    v = len(a) - 1
    j = scipy.special.gamma(v / 2) / (math.sqrt(v / 2) * scipy.special.gamma((v - 1) / 2))
    assert hedges_g_av(a, b) == pytest.approx(d_av * j, rel=1e-12)
    assert j == pytest.approx(1 - 3 / (4 * v - 1), abs=0.01)       # Hedges' approximation, close


def test_compare_rows_against_references():
    values = np.stack([scores(20, 4, seed=1), scores(20, 4, seed=2, spread=0.3)], axis=2)
    cube = cube_of(values)
    alpha = 0.05
    for correct in ("pairs", "all"):
        frame = compare_runs(cube, trials=999, seed=1, correct=correct)
        family = 6 * (2 if correct == "all" else 1)
        assert frame.attrs["compare"]["family"] == family
        if correct == "pairs":
            holm = np.concatenate([statsmodels_multitest.multipletests(frame.p_t[frame.measure == m], method="holm")[1]
                                   for m in ("m1", "m2")])
            holm_rand = np.concatenate([statsmodels_multitest.multipletests(frame.p_rand[frame.measure == m],
                                                                            method="holm")[1] for m in ("m1", "m2")])
        else:
            holm = statsmodels_multitest.multipletests(frame.p_t, method="holm")[1]
            holm_rand = statsmodels_multitest.multipletests(frame.p_rand, method="holm")[1]
        assert frame.p_t_holm.to_numpy() == pytest.approx(holm, rel=1e-12)
        assert frame.p_rand_holm.to_numpy() == pytest.approx(holm_rand, rel=1e-12)
        for row in frame.itertuples():
            j = cube.measures.index(row.measure)
            a, b = values[:, cube.runs.index(row.run_a), j], values[:, cube.runs.index(row.run_b), j]
            interval = scipy.stats.ttest_rel(a, b).confidence_interval(1 - alpha / family)
            assert (row.ci_t_low, row.ci_t_high) == pytest.approx((interval.low, interval.high), rel=1e-12)
            if excludes_zero(row.ci_t_low, row.ci_t_high):
                assert row.p_t_holm < alpha
            assert bool(excludes_zero(row.ci_hsd_low, row.ci_hsd_high)) == (row.p_hsd < alpha)
            assert row.es_e2 == pytest.approx(row.diff / math.sqrt(residual_variance(values[:, :, j])[0]))
            assert row.effect_dz_low < row.effect_dz < row.effect_dz_high
    assert frame[["p_t", "p_rand", "p_hsd", "p_rand_holm", "p_t_holm"]].gt(0).all().all()


# -- divaleval compare on the TREC 2012 baselines ------------------------------------------------------------

@pytest.fixture(scope="module")
def trec2012():
    root = shared_path("data", "trec-web", "2012")      # skips without ../shared
    runs = sorted(str(p) for p in (root / "baseline-runs").glob("*/*.txt"))
    if len(runs) != 8:
        pytest.skip("the 8 TREC 2012 baseline runs are not in ../shared")
    import divaleval

    return divaleval.score_cube(str(root / "qrels-for-ndeval.txt"), runs, ["alpha-nDCG@20"], warn=lambda m: None)


def test_trec2012_intervals_exclude_zero_only_when_the_adjusted_p_is_below_alpha(trec2012):
    from divaleval.output.compare import render_comparison

    alpha = 0.05
    frame = compare_runs(trec2012, trials=2000, seed=0, bootstrap=True)
    assert len(frame) == 28
    significant = 0
    for row in frame.itertuples():
        if excludes_zero(row.ci_t_low, row.ci_t_high):
            assert row.p_t_holm < alpha
            significant += 1
        assert bool(excludes_zero(row.ci_hsd_low, row.ci_hsd_high)) == (row.p_hsd < alpha)
        assert bool(excludes_zero(row.ci_boot_low, row.ci_boot_high)) == (28 * row.p_boot < alpha)
        if excludes_zero(row.ci_boot_low, row.ci_boot_high):
            assert row.p_boot_holm < alpha
    assert significant >= 12                             # the 2 x 6 pairs between the category-A runs and the rest
    # The audit's pair: its unadjusted interval [+0.0042, +0.0647] excludes 0, but Holm p(t) = 0.42, p(HSD) = 0.94.
    pair = frame[frame.run_a.str.endswith("ql/results-cata.txt") & frame.run_b.str.endswith("rm/results-cata.txt")]
    row = pair.iloc[0]
    assert (round(row.ci_unadjusted_low, 4), round(row.ci_unadjusted_high, 4)) == (0.0042, 0.0647)
    assert row.p_t_holm == pytest.approx(0.424, abs=5e-4) and row.p_hsd > 0.9
    assert not excludes_zero(row.ci_t_low, row.ci_t_high) and not excludes_zero(row.ci_hsd_low, row.ci_hsd_high)
    for fmt in ("csv", "json"):
        text = render_comparison(trec2012, frame, fmt, 2000, alpha)
        if fmt == "json":
            records = [json.loads(line) for line in text.splitlines()]
        else:
            import io

            import pandas as pd

            records = pd.read_csv(io.StringIO(text)).to_dict(orient="records")
        for record in records:
            for key, value in record.items():
                if key.startswith("p_") and not key.endswith("_se"):
                    assert value > 0, (key, record)
        assert {"ci_t_low", "ci_hsd_high", "ci_boot_low", "effect_dz_low", "es_e2", "g_av", "p_hsd_se",
                "family", "correct"} <= set(records[0])
        assert "ci_unadjusted_low" not in records[0]
    table = render_comparison(trec2012, frame, "table", 2000, alpha)
    assert "--correct pairs" in table and "Bonferroni" in table and "(unadjusted)" not in table
    assert "(unadjusted)" in render_comparison(trec2012, frame, "table", 2000, alpha, unadjusted=True)


# -- the command's options --------------------------------------------------------------------------------------

def test_the_command_states_its_family_and_prints_unadjusted_intervals_only_when_asked():
    import io

    import pandas as pd
    from click.testing import CliRunner

    from conftest import SAMPLE
    from divaleval.cli import main_group

    def run(*args):
        result = CliRunner().invoke(main_group, ["compare", "-q", "-B", "300", "-m", "alpha-nDCG@10,ERR-IA@10",
                                                 *args, str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs")])
        assert result.exit_code == 0, result.output
        return result.output

    table = run()
    assert "Family (--correct pairs)" in table and "(unadjusted)" not in table and "p(boot)" not in table
    everything = run("--correct", "all", "--bootstrap", "--unadjusted")
    assert "Family (--correct all)" in everything and "(unadjusted)" in everything and "p(boot)" in everything
    frame = pd.read_csv(io.StringIO(run("--correct", "all", "--bootstrap", "-f", "csv")))
    assert (frame.correct == "all").all() and (frame.family == len(frame)).all()
    assert frame.p_t_holm.to_numpy() == pytest.approx(statsmodels_multitest.multipletests(frame.p_t, method="holm")[1])
    assert "ci_unadjusted_low" not in frame and {"ci_boot_low", "p_boot_se"} <= set(frame)
    assert "ci_unadjusted_low" in pd.read_csv(io.StringIO(run("--unadjusted", "-f", "csv")))
    result = CliRunner().invoke(main_group, ["compare", "--correct", "some", str(SAMPLE / "qrels.txt"),
                                             str(SAMPLE / "runs")])
    assert result.exit_code == 2


def test_intervals_do_not_depend_on_where_blocks_run():
    matrix = scores(12, 4, seed=2)
    diffs = differences(matrix, all_pairs(4))

    def reversed_map(fn, items):
        items = list(items)
        return list(reversed([fn(item) for item in reversed(items)]))

    for map_blocks in (map, reversed_map):
        hsd = randomised_tukey_hsd_intervals(matrix, trials=1700, seed=3, map_blocks=map_blocks)
        boot = paired_bootstrap_intervals(diffs, 1700, seed=3, family=6, map_blocks=map_blocks)
        if map_blocks is map:
            first = (hsd.half_width, boot.ci_low.copy())
        else:
            assert hsd.half_width == first[0] and np.array_equal(boot.ci_low, first[1])
