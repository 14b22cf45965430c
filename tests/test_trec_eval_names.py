"""The native command under trec_eval's measure names, against trec_eval 10.0's own per-topic output.

Each TREC 2012 Web track baseline run is scored natively (``divaleval.evaluate``) with trec_eval's
names (``num_ret``, ``Rprec``, ``recall``, ``success``, ``map_cut``, ``set_P``...), and every value
is compared per topic with what ``trec_eval -q -m all_trec`` printed on the same qrels and run
(../shared/oracle/trec_eval10/expected/2012-*-qall.out). trec_eval prints ``%.4f``: a value agrees
when it is within half a unit of the last digit. The reading rules agree on these files: grades
-2..4 (a negative grade: pooled, not judged, in both), ties by docno descending (the native
``--order score``), relevance from level 1 (trec_eval's -l 1, the native ``--rel-min 1``).
Judged@k has no line of its own there: trec_eval prints ``unj_k``, the unjudged share of the top k,
which is 1 - Judged@k where the run ranks k documents or more (compared there; with fewer, both divide
by k and neither counts the missing ones).
"""
from __future__ import annotations

from collections import defaultdict

import pytest

import divaleval
from divaleval.measures.core.aliases import trec_eval_name
from divaleval.measures import parse_measure

from conftest import shared_path

pytestmark = pytest.mark.golden

RUNS = ("ql/results-cata", "ql/results-catb", "ql/results-cata-filtered", "rm/results-catb-filtered")
# trec_eval's names as a user gives them to -m; each expands to the lines trec_eval prints for it.
NAMES = ("num_ret", "num_rel", "num_rel_ret", "Rprec", "map", "recip_rank", "P", "recall", "success", "map_cut",
         "set_P", "set_recall", "set_F")
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
            printed, transform = trec_eval_name(measure.definition.name, False, measure.cutoff), (lambda value: value)
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
            measure = parse_measure(column)
            name = trec_eval_name(measure.definition.name, False, measure.cutoff)
            ours = frame[column].mean()
            if name.startswith("num_"):  # trec_eval's "all" line of a count is the sum
                ours = frame[column].sum()
            assert abs(ours - float(means[name])) <= TOLERANCE, (run, name, ours, means[name])
