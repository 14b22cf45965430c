"""Meta-evaluation over a score cube: Metric Unanimity, tau between measures, discriminative power,
gold agreement, comparisons; cubes from scored runs, frames and score files."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

import divaleval
from divaleval.errors import InputError, UsageError
from divaleval.io.gold import read_gold
from divaleval.meta import (
    METHODS, ScoreCube, asl_curves, compare_runs, cube_from_frame, gold_agreement, metric_unanimity,
    pair_significance, power_summary, rank_correlation, tau_matrix,
)
from conftest import SAMPLE


def cube_of(values, runs=None, measures=None, topics=None):
    values = np.asarray(values, dtype=np.float64)
    r, t, m = values.shape
    runs = runs or [f"S{i + 1}" for i in range(r)]
    return ScoreCube(tuple(runs), tuple(runs), tuple(topics or [str(i + 1) for i in range(t)]),
                     tuple(measures or [f"m{i + 1}" for i in range(m)]), values)


# -- Metric Unanimity -------------------------------------------------------------------------------------

RBU_EXAMPLE = [[1, 0.8, 1], [0.5, 0.3, 0.2], [0.2, 0.4, 0.5]]   # rows S1..S3, columns m1..m3 (sec. 6.1)


def test_metric_unanimity_of_the_rbu_paper_example():
    # 6 ordered pairs; m1 improves (1,2), (1,3), (2,3); {m2, m3} unanimously (1,2), (1,3), (3,2);
    # they agree twice: MU(m1) = log2((2/6) / ((3/6)(3/6))) = log2(4/3) = 0.415.
    frame = metric_unanimity(cube_of(np.array(RBU_EXAMPLE)[:, None, :]))
    row = frame.set_index("measure").loc["m1"]
    assert round(row.mu, 3) == 0.415
    assert row.mu == pytest.approx(math.log2(4 / 3))
    assert (row.p_joint, row.p_measure, row.p_others) == pytest.approx((2 / 6, 3 / 6, 3 / 6))


# Two readings of the RBU paper's lost relation symbol. One measure m1 against M = {m2, m3}; three runs,
# two topics, 2 x 6 = 12 ordered cases (rows S1..S3, columns m1..m3).
READINGS_CUBE = np.array([
    [[0.9, 0.5, 0.7], [0.3, 0.3, 0.3]],     # S1: topic 1, topic 2
    [[0.4, 0.5, 0.2], [0.3, 0.3, 0.3]],     # S2: ties S1 under every measure on topic 2
    [[0.6, 0.1, 0.7], [0.8, 0.6, 0.9]],     # S3: beats S1 and S2 under every measure on topic 2
])


@pytest.mark.golden
@pytest.mark.parametrize("reading, p_others, p_joint", [
    # Counted by hand, case by case (m1's count x M's count):
    # topic 1: (S1,S2): m1 .9>.4 counts 1; m2 ties (.5=.5), m3 improves: strict 0, Pareto 1.
    #          (S1,S3): m1 1; m2 improves (.5>.1), m3 ties (.7=.7): strict 0, Pareto 1.
    #          (S2,S3), (S3,S2): m2 and m3 disagree: 0 both. The reversed pairs: m1 counts 0.
    #   strict: M counts 0, joint 0; Pareto: M counts 2, joint 1 + 1 = 2.
    # topic 2: (S1,S2), (S2,S1): every measure ties: m1 1/2, M 1/2 (either reading), joint 2 x 1/4;
    #          (S3,S1), (S3,S2): all improve: 1 each, joint 1 each; (S1,S3), (S2,S3): 0.
    #   M counts 1/2 + 1/2 + 1 + 1 = 3, joint 1/4 + 1/4 + 1 + 1 = 5/2 under both readings.
    # m1 counts 3 per topic: P(m1) = 6/12 = 1/2 (footnote 9).
    ("strict", 3 / 12, 2.5 / 12),                 # MU = log2((2.5/12) / (1/2 x 3/12)) = log2(5/3)
    ("pareto", 5 / 12, 4.5 / 12),                 # MU = log2((4.5/12) / (1/2 x 5/12)) = log2(9/5)
])
def test_metric_unanimity_under_both_readings_by_hand(reading, p_others, p_joint):
    frame = metric_unanimity(cube_of(READINGS_CUBE), reading).set_index("measure")
    row = frame.loc["m1"]
    assert (row.p_measure, row.p_others, row.p_joint) == pytest.approx((0.5, p_others, p_joint), rel=1e-12)
    assert row.mu == pytest.approx({"strict": math.log2(5 / 3), "pareto": math.log2(9 / 5)}[reading], rel=1e-12)
    assert (frame["reading"] == reading).all()
    # The paper's example has no ties: 0.415 under either reading.
    example = metric_unanimity(cube_of(np.array(RBU_EXAMPLE)[:, None, :]), reading).set_index("measure")
    assert example.loc["m1", "mu"] == pytest.approx(math.log2(4 / 3))


def test_an_unknown_reading_is_refused():
    with pytest.raises(UsageError, match="unknown reading of unanimity 'weak': choose among strict, pareto"):
        metric_unanimity(cube_of(READINGS_CUBE), "weak")


def test_metric_unanimity_properties():
    rng = np.random.default_rng(2)
    values = rng.random((5, 4, 3))
    values[:, :, 1] = values[:, :, 0] * 0.5 + 0.1                   # m2 ranks as m1 does
    with_constant = np.concatenate([values, np.full((5, 4, 1), 0.3)], axis=2)
    frame = metric_unanimity(cube_of(with_constant)).set_index("measure")
    assert frame.loc["m4", "mu"] == pytest.approx(0.0)              # Property 2: a constant measure scores 0
    assert (frame["p_measure"] == 0.5).all()                          # ties count 1/2: P(m) = 1/2
    # Property 4: repeating a measure among the others does not change MU.
    repeated = np.concatenate([values, values[:, :, 2:3]], axis=2)
    once = metric_unanimity(cube_of(values)).set_index("measure")
    twice = metric_unanimity(cube_of(repeated)).set_index("measure")
    assert twice.loc["m1", "mu"] == pytest.approx(once.loc["m1", "mu"])


# -- tau between measures ---------------------------------------------------------------------------------

def test_rank_correlation_of_measures_is_tau_b_of_their_means():
    rng = np.random.default_rng(8)
    values = rng.random((9, 6, 3))
    values[3, :, 2] = values[4, :, 2]                                 # a tie in m3's ranking
    frame = rank_correlation(cube_of(values))
    means = values.mean(axis=1)
    for row in frame.itertuples():
        i, j = int(row.measure_a[1]) - 1, int(row.measure_b[1]) - 1
        assert row.tau == pytest.approx(scipy.stats.kendalltau(means[:, i], means[:, j]).statistic)
        half = 1.959963984540054 * math.sqrt(0.437 / (9 - 4))
        assert (row.ci_low, row.ci_high) == pytest.approx((math.tanh(math.atanh(row.tau) - half),
                                                           math.tanh(math.atanh(row.tau) + half)))
    assert frame.set_index(["measure_a", "measure_b"]).loc[("m1", "m3"), "ties_b"] == 1
    square = tau_matrix(frame)
    assert square.loc["m3", "m1"] == square.loc["m1", "m3"] and square.loc["m2", "m2"] == 1


def test_tau_intervals_are_undefined_at_tau_one_and_with_four_runs_or_fewer():
    rng = np.random.default_rng(21)
    values = rng.random((6, 5, 3))
    values[:, :, 1] = 2 * values[:, :, 0] + 1              # ranks the runs as m1 does: tau 1
    values[:, :, 2] = -values[:, :, 0]                     # the reverse: tau -1
    frame = rank_correlation(cube_of(values)).set_index(["measure_a", "measure_b"])
    assert frame.loc[("m1", "m2"), "tau"] == 1.0 and frame.loc[("m1", "m3"), "tau"] == -1.0
    assert frame[["ci_low", "ci_high"]].isna().all().all()           # not [1, 1] nor [-1, -1]
    values[:, :, 2] = rng.random((6, 5))
    tau = rank_correlation(cube_of(values)).set_index(["measure_a", "measure_b"]).loc[("m1", "m3")]
    reference = scipy.stats.kendalltau(values[:, :, 0].mean(axis=1), values[:, :, 2].mean(axis=1)).statistic
    assert tau.tau == pytest.approx(reference) and abs(reference) < 1
    half = 1.959963984540054 * math.sqrt(0.437 / (6 - 4))
    assert (tau.ci_low, tau.ci_high) == pytest.approx((math.tanh(math.atanh(reference) - half),
                                                       math.tanh(math.atanh(reference) + half)))
    four = rank_correlation(cube_of(values[:4]))                  # L = 4: 0.437 / (L - 4) is infinite
    assert four[["ci_low", "ci_high"]].isna().all().all() and four["tau"].notna().all()


# -- discriminative power -----------------------------------------------------------------------------------

def test_power_summary_counts_pairs_below_alpha_and_the_smallest_difference():
    import pandas as pd

    significance = pd.DataFrame({
        "measure": ["m"] * 3, "method": ["tukey"] * 3, "run_a": ["a", "a", "b"], "run_b": ["b", "c", "c"],
        "diff": [0.05, -0.2, 0.02], "p": [0.04, 0.001, 0.05]})
    row = power_summary(significance, alpha=0.05).iloc[0]
    assert (row.pairs, row.significant, row.min_significant_diff) == (3, 2, 0.05)   # p = 0.05 is not < 0.05
    assert (row.control, row.alpha) == ("family-wise", 0.05)
    curve = asl_curves(significance)
    assert curve["p"].tolist() == [0.001, 0.04, 0.05] and curve["rank"].tolist() == [1, 2, 3]


def test_pair_significance_is_the_stats_tests_per_measure():
    rng = np.random.default_rng(3)
    values = rng.random((4, 12, 2)) + np.array([0, 0.1, 0.2, 0.3])[:, None, None]
    cube = cube_of(values)
    frame = pair_significance(cube, METHODS, trials=800, seed=4)
    from divaleval.stats import all_pairs, bootstrap_max_t, differences, paired_bootstrap, randomised_tukey_hsd

    for j, measure in enumerate(cube.measures):
        tukey = frame[(frame.measure == measure) & (frame.method == "tukey")]["p"].to_numpy()
        assert np.array_equal(tukey, randomised_tukey_hsd(cube.matrix(j), trials=800, seed=4))
        boot = frame[(frame.measure == measure) & (frame.method == "bootstrap")]["p"].to_numpy()
        assert np.array_equal(boot, paired_bootstrap(differences(cube.matrix(j), all_pairs(4)), trials=800, seed=4))
        maxt = frame[(frame.measure == measure) & (frame.method == "bootstrap-maxt")]["p"].to_numpy()
        assert np.array_equal(maxt, bootstrap_max_t(differences(cube.matrix(j), all_pairs(4)), trials=800, seed=4))
    # Every row says what error its test controls.
    assert dict(zip(frame.method, frame.control)) == {
        "tukey": "family-wise", "bootstrap": "per-pair", "bootstrap-maxt": "family-wise"}
    assert set(pair_significance(cube, trials=50).method) == {"tukey", "bootstrap"}      # the default


# -- comparisons --------------------------------------------------------------------------------------------

def test_compare_against_a_baseline():
    rng = np.random.default_rng(5)
    values = rng.random((3, 15, 2)) + np.array([0, 0.05, 0.25])[:, None, None]
    cube = cube_of(values, runs=["runs/base.txt", "runs/b.txt", "runs/c.txt"])
    frame = compare_runs(cube, "base.txt", trials=2000, seed=1)     # the baseline by its file name
    assert frame[["measure", "run_a", "run_b"]].values.tolist() == [
        ["m1", "runs/b.txt", "runs/base.txt"], ["m1", "runs/c.txt", "runs/base.txt"],
        ["m2", "runs/b.txt", "runs/base.txt"], ["m2", "runs/c.txt", "runs/base.txt"]]
    for row in frame.itertuples():
        j = cube.measures.index(row.measure)
        a, b = values[cube.runs.index(row.run_a), :, j], values[0, :, j]
        reference = scipy.stats.ttest_rel(a, b)
        assert row.p_t == pytest.approx(reference.pvalue, rel=1e-10)
        assert row.diff == pytest.approx(a.mean() - b.mean())
        assert (row.ci_unadjusted_low, row.ci_unadjusted_high) == pytest.approx(
            tuple(reference.confidence_interval(0.95)))
    m1 = frame[frame.measure == "m1"]
    low, high = sorted(m1.p_t)                       # Holm over the two comparisons of m1, by hand
    holm = {low: min(1, 2 * low), high: max(min(1, 2 * low), high)}
    assert m1.p_t_holm.tolist() == pytest.approx([holm[p] for p in m1.p_t])
    assert frame.p_hsd.between(0, 1).all() and frame.p_rand.between(0, 1).all()
    with pytest.raises(UsageError, match="none of the runs"):
        compare_runs(cube, "nothing.txt", trials=10)


def test_compare_all_pairs_and_reproducibility():
    values = np.random.default_rng(6).random((4, 10, 1))
    first = compare_runs(cube_of(values), trials=1000, seed=3)
    assert len(first) == 6
    assert first.equals(compare_runs(cube_of(values), trials=1000, seed=3))
    assert not first.p_hsd.equals(compare_runs(cube_of(values), trials=1000, seed=4).p_hsd)


# -- gold preferences ----------------------------------------------------------------------------------------

def test_gold_agreement_by_hand(tmp_path):
    # Two topics, three runs; m1 scores: topic 1: a .5, b .3, c .3; topic 2: a .1, b .4, c .2.
    values = np.zeros((3, 2, 1))
    values[:, 0, 0] = [0.5, 0.3, 0.3]
    values[:, 1, 0] = [0.1, 0.4, 0.2]
    cube = cube_of(values, runs=["dir/a.txt", "dir/b.txt", "dir/c.txt"], topics=["1", "2"])
    gold = tmp_path / "gold.txt"
    gold.write_text("1 a.txt b.txt a.txt\n"        # agrees (.5 > .3)
                    "1 b.txt c.txt c.txt\n"        # a tie (.3 = .3)
                    "\n"
                    "2 a.txt b.txt a.txt\n"        # disagrees (.1 < .4)
                    "2 dir/c.txt dir/b.txt dir/b.txt\n")   # agrees (.4 > .2)
    row = gold_agreement(cube, read_gold(str(gold))).iloc[0]
    assert (row.agree, row.disagree, row.ties, row.pairs) == (2, 1, 1, 4)
    assert row.tau == pytest.approx(0.25)
    # L from P = 4: (1 + sqrt(33)) / 2 = 3.37 <= 4 systems: no interval
    assert math.isnan(row.ci_low)


@pytest.mark.parametrize("text, message", [
    ("1 a b\n", "expected 4 fields, found 3"),
    ("1 a b c\n", "the winner 'c' is neither 'a' nor 'b'"),
    ("1 a a a\n", "compares run 'a' with itself"),
    ("1 a b a\n1 b a b\n", "repeats line 1"),
])
def test_gold_file_errors_name_the_line(tmp_path, text, message):
    gold = tmp_path / "gold.txt"
    gold.write_text(text)
    with pytest.raises(InputError, match=message) as error:
        read_gold(str(gold))
    assert error.value.source == str(gold) and error.value.line is not None


def test_gold_names_must_name_runs_and_topics(tmp_path):
    cube = cube_of(np.zeros((2, 1, 1)), runs=["x/a.txt", "y/a.txt"], topics=["7"])
    gold = tmp_path / "gold.txt"
    for text, message in [("8 x/a.txt y/a.txt x/a.txt\n", "topic '8' has no scores"),
                          ("7 a.txt y/a.txt y/a.txt\n", "'a.txt' is the file name of 2 runs"),
                          ("7 x/a.txt z y/a.txt\n", "the winner")]:
        gold.write_text(text)
        with pytest.raises(InputError, match=message):
            gold_agreement(cube, read_gold(str(gold)))


# -- cubes ------------------------------------------------------------------------------------------------------

def test_cube_from_a_frame_and_missing_topics():
    import pandas as pd

    frame = pd.DataFrame({"run": ["r1", "r1", "r2"], "runid": ["A", "A", "B"], "topic": ["10", "9", "9"],
                          "m": [0.5, 0.25, 0.75]}).set_index("run")
    with pytest.raises(UsageError, match="run r2 has no scores for topics 10"):
        cube_from_frame(frame)
    zero = cube_from_frame(frame, missing="zero")
    assert zero.topics == ("9", "10")                                # numeric ids by value
    assert zero.values[:, :, 0].tolist() == [[0.25, 0.5], [0.75, 0.0]]
    common = cube_from_frame(frame, missing="common")
    assert common.topics == ("9",) and common.values[:, 0, 0].tolist() == [0.25, 0.75]


def test_library_functions_take_evaluate_frames():
    frame = divaleval.evaluate(str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs"), ["alpha-nDCG@10", "ERR-IA@10"],
                               complete=True, warn=lambda message: None)
    cube = divaleval.score_cube(str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs"), ["alpha-nDCG@10", "ERR-IA@10"],
                                warn=lambda message: None)
    assert cube_from_frame(frame).values.tolist() == cube.values.tolist()
    means = divaleval.mean_rows(frame)
    assert cube.means().tolist() == means[["alpha-nDCG@10", "ERR-IA@10"]].to_numpy().tolist()
    tau = divaleval.rank_correlation(frame)
    assert list(tau.columns) == ["measure_a", "measure_b", "tau", "ci_low", "ci_high", "runs", "ties_a", "ties_b"]
    power = divaleval.discriminative_power(cube, trials=200, seed=1)
    assert set(power["method"]) == {"tukey", "bootstrap"} and len(power) == 4
    assert len(divaleval.asl_curves(cube, methods=["tukey"], trials=200)) == len(cube.runs) * (len(cube.runs) - 1)
    assert len(divaleval.metric_unanimity(cube)) == 2
    assert len(divaleval.compare(frame, trials=200)) == 2 * len(cube.runs) * (len(cube.runs) - 1) // 2


def test_p_values_do_not_depend_on_the_order_of_the_runs():
    values = np.random.default_rng(12).random((5, 10, 2))
    names = ["b", "d", "a", "e", "c"]
    forward = cube_of(values, runs=names)
    backward = cube_of(values[::-1], runs=names[::-1])

    def keyed(frame, columns):
        return {(r.measure, *sorted((r.run_a, r.run_b))): tuple(getattr(r, c) for c in columns)
                for r in frame.itertuples()}

    assert keyed(compare_runs(forward, trials=600, seed=2), ["p_hsd", "p_rand", "p_t"]) == \
        keyed(compare_runs(backward, trials=600, seed=2), ["p_hsd", "p_rand", "p_t"])
    first, second = (pair_significance(cube, trials=600, seed=2) for cube in (forward, backward))
    for method in ("tukey", "bootstrap"):
        assert keyed(first[first.method == method], ["p"]) == keyed(second[second.method == method], ["p"])


def unanimity_by_counting(values, k, reading="strict"):
    """MU of measure k, case by case as sec. 6.1 and its footnote 9 describe it (loops, no arrays), the others'
    unanimous improvement read strictly (every one >) or as a Pareto improvement (every one >=, one >)."""
    runs, topics, measures = values.shape
    others = [j for j in range(measures) if j != k]
    joint = mine = theirs = cases = 0.0
    for t in range(topics):
        for i in range(runs):
            for j in range(runs):
                if i == j:
                    continue
                cases += 1
                a, b = values[i, t, k], values[j, t, k]
                m = 1.0 if a > b else 0.5 if a == b else 0.0
                if reading == "strict":
                    improves = all(values[i, t, o] > values[j, t, o] for o in others)
                else:
                    improves = (all(values[i, t, o] >= values[j, t, o] for o in others)
                                and any(values[i, t, o] > values[j, t, o] for o in others))
                if improves:
                    M = 1.0
                elif all(values[i, t, o] == values[j, t, o] for o in others):
                    M = 0.5
                else:
                    M = 0.0
                joint += m * M
                mine += m
                theirs += M
    return math.log2((joint / cases) / ((mine / cases) * (theirs / cases)))


def test_metric_unanimity_equals_counting_case_by_case():
    rng = np.random.default_rng(13)
    values = np.round(rng.random((5, 6, 4)), 1)          # coarse scores: ties in m and in the others
    values[:, :, 1] = np.round(values[:, :, 0] + rng.normal(0, 0.1, (5, 6)), 1)
    values[:, 2, :] = 0.3                                  # a topic where every run ties under every measure
    for reading in ("strict", "pareto"):
        frame = metric_unanimity(cube_of(values), reading)
        for k in range(4):
            assert frame.mu[k] == pytest.approx(unanimity_by_counting(values, k, reading), rel=1e-12)


@pytest.mark.golden
def test_metric_unanimity_on_the_trec_2012_baselines():
    """ndeval's own per-topic scores of the eight TREC 2012 baselines (its 21 measures): under the strict
    reading 15 measures share one MU, 0.98584 (the audit's observation); the Pareto reading splits them."""
    from conftest import shared_path

    oracle = shared_path("oracle", "ndeval", "trec2012")
    files = [str(oracle / f"{system}-results-{cat}{kind}.c.traditional.csv") for system in ("ql", "rm")
             for cat in ("cata", "catb") for kind in ("", "-filtered")]
    cube = divaleval.read_score_cube(files)
    strict = metric_unanimity(cube, "strict")
    top = strict["mu"].max()
    assert round(top, 5) == 0.98584 and (strict["mu"] == top).sum() == 15
    tied = (strict["mu"] == top).to_numpy()
    pareto = metric_unanimity(cube, "pareto").set_index("measure")
    # The Pareto reading splits them by depth (ERR-IA@k and nERR-IA@k, alpha-DCG@k and alpha-nDCG@k rank
    # the runs of a topic alike, so they share an MU under either reading):
    assert pareto["mu"][tied].round(6).nunique() >= 4
    assert pareto.loc["alpha-nDCG@20", "mu"] > pareto.loc["alpha-nDCG@10", "mu"] > pareto.loc["alpha-nDCG@5", "mu"]
    assert pareto.loc["ERR-IA@10", "mu"] == pareto.loc["nERR-IA@10", "mu"]
    for k in (0, 14, 20):                                                     # the case-by-case count agrees
        assert pareto["mu"].iloc[k] == pytest.approx(unanimity_by_counting(cube.values, k, "pareto"), rel=1e-12)
