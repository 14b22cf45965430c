"""The native command under trec_eval's measure names, against trec_eval 10.0's own per-topic output.

Each TREC 2012 Web track baseline run is scored natively (``divaleval.evaluate``) with trec_eval's
names (``num_ret``, ``Rprec``, ``recall``, ``success``, ``map_cut``, ``set_P``...), and every value
is compared per topic with what ``trec_eval -q -m all_trec`` printed on the same qrels and run
(../shared/oracle/trec_eval10/expected/2012-*-qall.out). trec_eval prints ``%.4f``: a value agrees
when it is within half a unit of the last digit. The reading rules agree on these files: grades
-2..4 (a negative grade: pooled, not judged, in both), ties by docno descending (the native
``--order score``), relevance from level 1 (trec_eval's -l 1, the native ``--rel-min 1``).
Judged@k has no line of its own there: trec_eval prints ``unj_k``, the unjudged share of the top k
(divaleval's Unjudged@k, compared on every topic), which is 1 - Judged@k where the run ranks k documents
or more (compared there; with fewer, both divide by k and neither counts the missing ones).
iprec_at_recall (IPrec, at trec_eval's eleven recall levels) and infAP are compared per topic too;
gm_map (GMAP) only has the "all" line, the geometric mean over topics that its family declares as its
aggregation: every run's summary lines, from the command's own output, are compared with trec_eval's.
"""
from __future__ import annotations

from collections import defaultdict

import pytest

import divaleval
from divaleval.measures import parse_measure
from divaleval.output.writers import trec_eval_printed_name

from conftest import shared_path

pytestmark = pytest.mark.golden

RUNS = ("ql/results-cata", "ql/results-catb", "ql/results-cata-filtered", "rm/results-catb-filtered")
# trec_eval's names as a user gives them to -m; each expands to the lines trec_eval prints for it.
NAMES = ("num_ret", "num_rel", "num_rel_ret", "Rprec", "map", "recip_rank", "P", "recall", "success", "map_cut",
         "set_P", "set_recall", "set_F", "iprec_at_recall", "infAP", "unj")
JUDGED_CUTOFFS = (5, 10, 20)
TOLERANCE = 5e-5 + 1e-12


def _printed(path) -> dict[str, dict[str, float]]:
    """trec_eval's -q output: measure -> topic -> value (the per-topic lines only)."""
    values: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        name, topic, value = (field.strip() for field in line.split("\t"))
        if topic != "all" and name != "relstring":
            values[name][topic] = float(value)
    return values


@pytest.mark.parametrize("run", RUNS)
def test_trec_eval_names_per_topic(run: str) -> None:
    data = shared_path("data", "trec-web", "2012")
    stem = run.replace("/", "")
    expected = _printed(shared_path("oracle", "trec_eval10", "expected", f"2012-{stem}-qall.out"))
    judged = [f"Judged@{k}" for k in JUDGED_CUTOFFS]
    frame = divaleval.evaluate(str(data / "qrels.adhoc.txt"), str(data / "baseline-runs" / f"{run}.txt"),
                               [*NAMES, *judged], warn=lambda message: None)
    lengths = divaleval.evaluate(str(data / "qrels.adhoc.txt"), str(data / "baseline-runs" / f"{run}.txt"),
                                 ["num_ret"], warn=lambda message: None)
    ranked = dict(zip(lengths["topic"], lengths["NumRet"]))
    compared = 0
    for column in frame.columns.drop(["runid", "topic"]):
        measure = parse_measure(column)
        if column in judged:
            printed, transform = f"unj_{measure.cutoff}", (lambda value: 1.0 - value)
        else:
            printed, transform = trec_eval_printed_name(column), (lambda value: value)
        theirs = expected[printed]
        ours = dict(zip(frame["topic"], frame[column]))
        assert set(ours) == set(theirs), printed
        for topic, value in ours.items():
            if column in judged and ranked[topic] < measure.cutoff:
                continue
            assert abs(transform(value) - theirs[topic]) <= TOLERANCE, (printed, topic, value, theirs[topic])
            compared += 1
    assert compared >= 45 * (len(frame.columns) - 2)


def test_names_reach_one_definition_each() -> None:
    # A trec_eval name and the divaleval name with parameters are the same measure.
    same = {"Rprec": "R-Prec", "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet",
            "recall.10": "Recall@10", "R@10": "Recall@10", "set_recall": "Recall", "SetR": "Recall",
            "success.10": "Success@10", "map_cut.10": "AP_cut@10", "set_P": "SetP", "set_F": "SetF",
            "MRR": "RR", "Judged@10": "Judged@10"}
    for given, canonical in same.items():
        assert parse_measure(given).name == canonical, given
    assert parse_measure("AP_cut@10") != parse_measure("AP@10")  # map_cut divides by R, AP@k by min(k, R)


def test_trec_format_prints_trec_eval_names() -> None:
    # -f trec prints trec_eval's name of a measure that has one (changed on purpose: it printed Prec@5);
    # a measure with no trec_eval name, or at other parameters, keeps its own.
    import io

    from divaleval.output.writers import TrecWriter

    names = ["Prec@5", "nDCG@10", "nDCG", "AP", "RR", "AP_cut@10", "Recall@10", "Recall", "Success@1", "R-Prec",
             "NumRet", "NumRel", "NumRelRet", "SetP", "SetF", "SetF(beta=0.5)", "Judged@10", "alpha-nDCG@20",
             "AP@10"]
    printed = TrecWriter(io.StringIO(), names).printed
    assert printed == ["P_5", "ndcg_cut_10", "ndcg", "map", "recip_rank", "map_cut_10", "recall_10", "set_recall",
                       "success_1", "Rprec", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_F",
                       "SetF(beta=0.5)", "Judged@10", "alpha-nDCG@20", "AP@10"]


def test_trec_eval_names_with_a_relevance_threshold() -> None:
    # trec_eval -l 2 is the native --rel-min 2: its means (the -l2all output prints no topic) on each run.
    data = shared_path("data", "trec-web", "2012")
    for run in RUNS:
        printed = shared_path("oracle", "trec_eval10", "expected", f"2012-{run.replace('/', '')}-l2all.out")
        means = {name.strip(): value for name, topic, value in
                 (line.split("\t") for line in printed.read_text().splitlines()) if topic == "all"}
        frame = divaleval.evaluate(str(data / "qrels.adhoc.txt"), str(data / "baseline-runs" / f"{run}.txt"),
                                   list(NAMES), rel_min=2, warn=lambda message: None)
        for column in frame.columns.drop(["runid", "topic"]):
            name = trec_eval_printed_name(column)
            ours = frame[column].mean()
            if name.startswith("num_"):  # trec_eval's "all" line of a count is the sum
                ours = frame[column].sum()
            assert abs(ours - float(means[name])) <= TOLERANCE, (run, name, ours, means[name])


def _summary_lines(path) -> dict[str, str]:
    """trec_eval's "all" lines: printed name -> value as printed (runid left out)."""
    lines = (line.split("\t") for line in path.read_text().splitlines())
    return {name.strip(): value for name, topic, value in lines if topic == "all" and name.strip() != "runid"}


@pytest.mark.parametrize("suffix,options", [("qall", []), ("l2all", ["--rel-min", "2"]), ("Jall", ["-J"])])
def test_summary_lines_of_the_command(suffix: str, options: list[str]) -> None:
    # The command's own -f trec output, "all" lines: the means (GMAP's the geometric mean its family declares,
    # the counts' their sums, printed as integers), as printed, against trec_eval's summary lines (-q -m all_trec; -l 2 or -J -m all_trec) on every run.
    from conftest import run_cli

    data = shared_path("data", "trec-web", "2012")
    names = ["num_ret", "num_rel", "num_rel_ret", "gm_map", "map", "Rprec", "recip_rank", "iprec_at_recall", "infAP", "unj", "P", "recall", "map_cut",
             "success", "set_P", "set_recall", "set_F"]
    for run in RUNS:
        expected = _summary_lines(shared_path("oracle", "trec_eval10", "expected",
                                              f"2012-{run.replace('/', '')}-{suffix}.out"))
        done = run_cli(["-f", "trec", *options, "-m", ",".join(names),
                        str(data / "qrels.adhoc.txt"), str(data / "baseline-runs" / f"{run}.txt")])
        assert done.returncode == 0, done.stderr
        printed = done.stdout.decode().splitlines()
        ours = {name.strip(): value for name, topic, value in (line.split("\t") for line in printed)
                if topic == "all" and name.strip() != "runid"}
        assert "gm_map" in ours and len(ours) == 3 + 4 + 11 + 1 + 3 + 3 * 9 + 3 + 3, sorted(ours)
        for name, value in ours.items():
            assert value == expected[name], (run, name, value, expected[name])


def test_gmap_summary_by_hand() -> None:
    # GMAP per topic is AP; its summary is exp(mean(log(max(AP, 0.00001)))), a topic with AP 0 counting as
    # 0.00001. Two topics, R = 1 each: the relevant document at rank 2 (AP 1/2), and none ranked (AP 0).
    import math

    import pandas as pd

    qrels = divaleval.Qrels.from_frame(pd.DataFrame({"topic": ["1", "2"], "docno": ["a", "b"], "level": [1, 1]}))
    ranked = pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["x", "a", "y"], "score": [2.0, 1.0, 1.0]})
    run = divaleval.RunTable.from_arrays(ranked.topic, ranked.docno, ranked.score.to_numpy())
    frame = divaleval.evaluate(qrels, run, ["GMAP", "AP"], warn=lambda message: None)
    assert list(frame["GMAP"]) == [0.5, 0.0] == list(frame["AP"])
    means = divaleval.mean_rows(frame)
    assert means["GMAP"].iloc[0] == pytest.approx(math.sqrt(0.5 * 0.00001), rel=1e-12)
    assert means["AP"].iloc[0] == pytest.approx(0.25, rel=1e-12)
    scores = next(divaleval.score_runs(qrels, run, ["AP", "GMAP"], warn=lambda message: None))
    assert scores.mean == pytest.approx([0.25, math.sqrt(0.5 * 0.00001)], rel=1e-12)
