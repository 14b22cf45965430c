"""Risk-sensitive evaluation against a baseline (URisk, TRisk; Dinçer, Macdonald & Ounis 2014), for any measure.

References: ndeval's own -baseline/-riskAlpha output (the risk-adjusted differences and their mean,
oracle/ndeval), the paper's formulas worked by hand, and scipy's one-sample t-test for TRisk's
inferential reading (TRisk is the t statistic of the risk-adjusted differences, c - 1 degrees of freedom).
"""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import divaleval
from conftest import NDEVAL_EXAMPLES, run_ndeval, shared_path
from divaleval.cli import main_group
from divaleval.errors import UsageError

stats = pytest.importorskip("scipy.stats")
QUIET = {"warn": lambda message: None}


def ndeval_rows(path):
    """topic -> {measure: value} of an ndeval CSV (the amean row under "amean")."""
    with open(path) as handle:
        return {row["topic"]: {k: float(v) for k, v in row.items() if k not in ("runid", "topic")}
                for row in csv.DictReader(handle)}


def by_topic(results):
    """topic -> {measure: value} of one run's risk RunScores, with the mean, TRisk and p rows."""
    (scores,) = results
    rows = {t: dict(zip([m.name for m in scores.measures], row)) for t, row in zip(scores.topic_ids, scores.matrix)}
    rows["amean"] = dict(zip([m.name for m in scores.measures], scores.mean))
    for label, values in scores.summary_rows:
        rows[label] = dict(zip([m.name for m in scores.measures], values))
    return rows


def check_against_ndeval(ours, expected, topics):
    for topic in topics:
        for name, value in expected[topic].items():
            assert abs(ours[topic][name] - value) <= 5e-7 + 1e-12, (topic, name)   # ndeval prints %.6f


@pytest.mark.golden
def test_ndeval_example_with_every_qrels_topic():
    # ndeval -c -baseline runB.txt qrels.txt runA.txt (alpha 0, rank order): rows 1, 2, 3 and the mean over
    # the 4 qrels topics. divaleval -c scores the same topics (topic 5 is not in the qrels; topic 4 is 0 - 0).
    expected = ndeval_rows(NDEVAL_EXAMPLES / "expected" / "runA.c.baselineB.csv")
    ours = by_topic(divaleval.risk_runs(str(NDEVAL_EXAMPLES / "qrels.txt"), [str(NDEVAL_EXAMPLES / "runA.txt")],
                                        str(NDEVAL_EXAMPLES / "runB.txt"), "ndeval", complete=True, order="rank",
                                        **QUIET))
    check_against_ndeval(ours, expected, ["1", "2", "3", "amean"])
    assert all(value == 0 for value in ours["4"].values())


@pytest.mark.golden
@pytest.mark.slow
def test_trec2012_against_ndeval_and_scipy():
    # ndeval -c -traditional -baseline ql/results-cata.txt -riskAlpha 1 qrels rm/results-cata.txt (50 topics).
    oracle = shared_path("oracle", "ndeval", "trec2012", "rm-results-cata.baseline-ql-cata.riskAlpha1.c.traditional.csv")
    data = shared_path("data", "trec-web", "2012")
    expected = ndeval_rows(oracle)
    runs = data / "baseline-runs"
    ours = by_topic(divaleval.risk_runs(str(data / "qrels-for-ndeval.txt"), [str(runs / "rm" / "results-cata.txt")],
                                        str(runs / "ql" / "results-cata.txt"), "ndeval", risk_alpha=1.0,
                                        complete=True, **QUIET))
    topics = [t for t in expected if t != "amean"]
    assert len(topics) == 50
    check_against_ndeval(ours, expected, [*topics, "amean"])
    # TRisk = URisk / (s_z / sqrt(c)): the one-sample t statistic of the z, here of ndeval's printed z.
    for name in expected["amean"]:
        z = [expected[t][name] for t in topics]
        if np.ptp(z) == 0:
            continue
        test = stats.ttest_1samp(z, 0.0)
        assert ours["TRisk"][name] == pytest.approx(test.statistic, rel=1e-4, abs=1e-4), name
        assert ours["TRisk-p"][name] == pytest.approx(test.pvalue, rel=1e-3, abs=1e-5), name


def precision_case():
    """Five topics whose Prec@10 is chosen: each has ten relevant documents r0..r9; a run ranks k of them
    first, then non-relevant ones. Run: .5 .2 .3 .1 .6; baseline: .4 .3 .3 0 .2."""
    topics = [str(t) for t in range(1, 6)]
    qrels = divaleval.Qrels.from_arrays([t for t in topics for _ in range(10)], None,
                                        [f"r{j}" for _ in topics for j in range(10)], [1] * 50)

    def ranking(counts, runid):
        docs = [(t, f"r{j}" if j < k else f"n{j}") for t, k in zip(topics, counts) for j in range(10)]
        return divaleval.RunTable.from_arrays([t for t, _ in docs], [d for _, d in docs], runid=runid)

    return qrels, ranking([5, 2, 3, 1, 6], "run"), ranking([4, 3, 3, 0, 2], "base")


@pytest.mark.golden
def test_urisk_and_trisk_by_hand():
    qrels, run, base = precision_case()
    (scores,) = divaleval.risk_runs(qrels, [run], base, ["Prec@10"], risk_alpha=2.0, **QUIET)
    # d = .1 -.1 0 .1 .4; with alpha = 2 a loss weighs 3: z = .1 -.3 0 .1 .4.
    z = [0.1, -0.3, 0.0, 0.1, 0.4]
    assert scores.matrix[:, 0] == pytest.approx(z, abs=1e-15)
    urisk = sum(z) / 5                                                  # .06
    sd = math.sqrt(sum((v - urisk) ** 2 for v in z) / 4)                # sqrt(.252 / 4)
    trisk = urisk / (sd / math.sqrt(5))                                  # .5345
    assert scores.mean[0] == pytest.approx(0.06, abs=1e-15)
    rows = dict(scores.summary_rows)
    assert rows["TRisk"][0] == pytest.approx(trisk, rel=1e-12) and trisk == pytest.approx(0.534522, abs=1e-6)
    assert rows["TRisk-p"][0] == pytest.approx(stats.ttest_1samp(z, 0.0).pvalue, rel=1e-9)
    # alpha = 0: TRisk is the paired t-test of the run against the baseline.
    (plain,) = divaleval.risk_runs(qrels, [run], base, ["Prec@10"], **QUIET)
    paired = stats.ttest_rel([.5, .2, .3, .1, .6], [.4, .3, .3, 0, .2])
    assert dict(plain.summary_rows)["TRisk"][0] == pytest.approx(paired.statistic, rel=1e-9)


def test_summary_frame_and_edge_cases():
    qrels, run, base = precision_case()
    frame = divaleval.risk(qrels, [run, base], base, ["Prec@10", "Prec@5"], risk_alpha=1.0, **QUIET)
    assert list(frame.columns) == ["run", "runid", "baseline", "measure", "topics", "alpha", "URisk", "TRisk", "p"]
    against_itself = frame[frame.run == "base"]
    assert (against_itself.URisk == 0).all() and (against_itself.TRisk == 0).all() and (against_itself.p == 1).all()
    with pytest.raises(UsageError):
        list(divaleval.risk_runs(qrels, [run], base, ["Prec@10"], risk_alpha=-1.0, **QUIET))


def test_a_topic_the_baseline_lacks_counts_as_zero():
    qrels, run, _ = precision_case()
    partial = divaleval.RunTable.from_arrays(["1", "2"], ["r0", "r0"], runid="base")   # Prec@10 .1 .1, nothing else
    (scores,) = divaleval.risk_runs(qrels, [run], partial, ["Prec@10"], **QUIET)
    assert scores.matrix[:, 0] == pytest.approx([.4, .1, .3, .1, .6], abs=1e-15)


def test_command_line_output():
    args = ["-m", "alpha-nDCG@5,P-IA@5", "--baseline", str(NDEVAL_EXAMPLES / "runB.txt"), "--risk-alpha", "1",
            "--order", "rank", str(NDEVAL_EXAMPLES / "qrels.txt"), str(NDEVAL_EXAMPLES / "runA.txt")]
    result = CliRunner().invoke(main_group, ["-q", *args])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "runid,topic,alpha-nDCG@5,P-IA@5"
    assert [line.split(",")[1] for line in lines[1:]] == ["1", "2", "3", "amean", "TRisk", "TRisk-p"]
    # ndeval -baseline runB.txt -riskAlpha 1 prints the same risk-adjusted differences for topics 1-3.
    expected = ndeval_rows(NDEVAL_EXAMPLES / "expected" / "runA.baselineB.riskAlpha1.csv")
    for line in lines[1:4]:
        topic, values = line.split(",")[1], [float(v) for v in line.split(",")[2:]]
        assert values == [expected[topic]["alpha-nDCG@5"], expected[topic]["P-IA@5"]]
    records = [json.loads(line) for line in
               CliRunner().invoke(main_group, ["-q", "-f", "json", "-n", *args]).output.splitlines()]
    assert [r["topic"] for r in records] == ["amean", "TRisk", "TRisk-p"]
    lonely = CliRunner().invoke(main_group, ["--risk-alpha", "1", str(NDEVAL_EXAMPLES / "qrels.txt"),
                                             str(NDEVAL_EXAMPLES / "runA.txt")])
    assert lonely.exit_code == 2 and "--baseline" in lonely.output


def test_ndeval_drop_in_baseline_is_unchanged():
    status, out, _ = run_ndeval(["-baseline", NDEVAL_EXAMPLES / "runB.txt", "-riskAlpha", "1",
                                 NDEVAL_EXAMPLES / "qrels.txt", NDEVAL_EXAMPLES / "runA.txt"])
    assert status == 0
    assert out == (NDEVAL_EXAMPLES / "expected" / "runA.baselineB.riskAlpha1.csv").read_text()
