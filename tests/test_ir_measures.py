"""divaleval's ir_measures provider (divaleval/ir_measures.py) against ir_measures' pyndeval provider
(ndeval's C code: an independent reference), and divaleval's own measures against the command line.

Two flaws of ir_measures' pyndeval provider (0.4.3) shape the reference calls, and are not
reproduced: its invokers (one per rel, alpha, beta) share one iterator over the run, so only the
first invoker of a call sees it (the others' measures come out as 0): it is called once per
invocation here; and its judged_only path iterates that iterator as a dict of topics, so every
judged_only value comes out 0: judged_only is checked against pyndeval itself on the run filtered
to the judged documents, which is what that path means to do.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ir_measures = pytest.importorskip("ir_measures")
pyndeval = pytest.importorskip("pyndeval")

import divaleval  # noqa: E402
import divaleval.ir_measures as dm  # noqa: E402
from divaleval.compat.pyndeval import in_pyndeval_order  # noqa: E402
from divaleval.errors import DivalevalWarning, InputError  # noqa: E402
from divaleval.io import read_run  # noqa: E402
from ir_measures import (AP_IA, ERR_IA, NRBP, P_IA, StRecall, alpha_DCG, alpha_nDCG, nERR_IA,  # noqa: E402
                         nNRBP)

from conftest import shared_path  # noqa: E402

pytestmark = pytest.mark.golden
SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"
BASELINES = [f"{system}/results-{cat}{kind}.txt" for system in ("ql", "rm") for cat in ("cata", "catb")
             for kind in ("", "-filtered")]

# One list per invocation of pyndeval's provider (measures sharing rel, alpha and beta).
INVOCATIONS = [
    [alpha_nDCG @ 5, alpha_nDCG @ 10, alpha_nDCG @ 20, alpha_DCG @ 10, ERR_IA @ 5, ERR_IA @ 20, nERR_IA @ 10,
     nERR_IA @ 20, NRBP, nNRBP, AP_IA, P_IA @ 5, P_IA @ 20, StRecall @ 10, StRecall @ 20],
    [alpha_nDCG(alpha=0.8) @ 10, alpha_DCG(alpha=0.8) @ 20, nNRBP(alpha=0.8)],
    [NRBP(alpha=0.3, beta=0.8), nNRBP(alpha=0.3, beta=0.8)],
    [alpha_nDCG(rel=2) @ 20, ERR_IA(rel=2) @ 10, P_IA(rel=2) @ 20, AP_IA(rel=2), StRecall(rel=2) @ 5],
    [P_IA(rel=3) @ 20, nERR_IA(rel=3) @ 20],
]
# divaleval's own measures, with parameters, and the names divaleval's command line gives them.
OWN = {
    dm.D_sharp_nDCG @ 10: "D#-nDCG@10",
    dm.D_nDCG @ 20: "D-nDCG@20",
    dm.I_rec @ 10: "I-rec@10",
    dm.IA_nERR @ 10: "IA-nERR@10",
    dm.IA_Prec @ 5: "IA-Prec@5",
    dm.RBU @ 20: "RBU@20",
    dm.RBU(p=0.8, e=0.05) @ 10: "RBU(p=0.8,e=0.05)@10",
    dm.EU @ 20: "EU@20",
    dm.D_sharp_Q(gamma=0.3) @ 10: "D#-Q(gamma=0.3)@10",
    dm.wg_alpha_nDCG @ 20: "wg-alpha-nDCG@20",
    dm.niRBU @ 10: "niRBU@10",
    dm.S_RR: "S-RR@100%",
    dm.P_plus_Q_sharp @ 10: "P+Q#@10",
}


@pytest.fixture(scope="module")
def trec2012():
    data = shared_path("data", "trec-web", "2012")
    qrels = list(ir_measures.read_trec_qrels(str(data / "qrels.diversity.txt")))
    runs = {name: list(ir_measures.read_trec_run(str(data / "baseline-runs" / name))) for name in BASELINES}
    return data, qrels, runs


def per_topic(metrics) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


def quietly(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DivalevalWarning)
        return call(*args)


def test_the_provider_is_registered_and_used_by_default():
    assert ir_measures.providers.registry["divaleval"] is dm.provider
    names = [p.NAME for p in ir_measures.DefaultPipeline.providers]
    assert names.index("divaleval") == names.index("pyndeval") - 1  # ahead of pyndeval, behind the rest
    qrels = list(ir_measures.read_trec_qrels(str(SAMPLE / "qrels.txt")))
    assert isinstance(ir_measures.evaluator([alpha_nDCG @ 20, dm.RBU @ 20], qrels), dm.DivalevalEvaluator)
    assert dm.provider.supports(alpha_nDCG @ 50) and not dm.provider.supports(ir_measures.nDCG @ 10)


def test_shared_measures_equal_pyndeval_provider_on_trec2012_baselines(trec2012):
    _, qrels, runs = trec2012
    for number, measures in enumerate(INVOCATIONS):
        theirs = ir_measures.pyndeval.evaluator(measures, qrels)
        ours = quietly(dm.provider.evaluator, measures, qrels)
        for name in BASELINES if number == 0 else [BASELINES[number]]:  # (every run: the first set; a few: the rest)
            run = runs[name]
            expected = per_topic(theirs.iter_calc(run))
            got = per_topic(quietly(lambda: list(ours.iter_calc(run))))
            assert len(expected) == 50 * len(measures)
            assert got == expected, name  # to the last bit: same operations in the same order


def test_judged_only_equals_pyndeval_on_the_judged_documents(trec2012):
    _, qrels, runs = trec2012
    judged = {(q.query_id, q.doc_id) for q in qrels}
    subtopic_qrels = [(q.query_id, q.iteration, q.doc_id, q.relevance) for q in qrels]
    measures = {alpha_nDCG(judged_only=True) @ 20: "alpha-nDCG@20", AP_IA(judged_only=True): "MAP-IA",
                ERR_IA(judged_only=True) @ 10: "ERR-IA@10", P_IA(judged_only=True) @ 10: "P-IA@10"}
    reference = pyndeval.RelevanceEvaluator(subtopic_qrels, list(measures.values()))
    for name in BASELINES[:2]:
        kept = [(d.query_id, d.doc_id, d.score) for d in runs[name] if (d.query_id, d.doc_id) in judged]
        expected = {topic: values for topic, values in reference.evaluate(kept).items()}
        got = per_topic(quietly(dm.provider.iter_calc, list(measures), qrels, runs[name]))
        for (topic, measure), value in got.items():
            pyndeval_name = next(v for m, v in measures.items() if str(m) == measure)
            assert value == expected[topic][pyndeval_name] if topic in expected else value == 0.0, (topic, measure)


def test_own_measures_equal_the_command_line_on_trec2012_baselines(trec2012):
    data, qrels, runs = trec2012
    measures = list(OWN)
    evaluator = quietly(dm.provider.evaluator, measures, qrels)
    for name in BASELINES[::3]:
        got = per_topic(quietly(lambda: list(evaluator.iter_calc(runs[name]))))
        path = str(data / "baseline-runs" / name)
        frame = quietly(lambda: divaleval.evaluate(str(data / "qrels.diversity.txt"), path, list(OWN.values()),
                                                   complete=True))
        assert len(frame) == 50
        for measure, column in OWN.items():
            for topic, value in zip(frame.topic, frame[column]):
                assert got[(topic, str(measure))] == value, (name, topic, column)


def test_own_measures_as_the_command_line_prints_them(tmp_path):
    """ir_measures' mean of the provider's values, printed as the command prints its mean row."""
    from click.testing import CliRunner

    from divaleval.cli import main_group

    qrels = str(SAMPLE / "qrels.txt")
    run = str(SAMPLE / "runs" / "diverse.txt")
    names = ["D#-nDCG@10", "RBU@20", "I-rec@5", "EU@10"]
    printed = CliRunner().invoke(main_group, ["-f", "trec", "-m", ",".join(names), qrels, run])
    assert printed.exit_code == 0, printed.output
    means = {fields[0]: fields[2] for fields in (line.split() for line in printed.stdout.splitlines())
             if fields[1] == "all"}
    measures = [dm.D_sharp_nDCG @ 10, dm.RBU @ 20, dm.I_rec @ 5, dm.EU @ 10]
    ours = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    for measure, name in zip(measures, names):
        assert f"{ours[measure]:.4f}" == means[name]


def test_parameters_map_onto_divaleval_measures():
    for measure, name in [(alpha_nDCG(alpha=0.8) @ 30, "alpha-nDCG(alpha=0.8)@30"), (NRBP(beta=0.9), "NRBP(beta=0.9)"),
                          (AP_IA, "MAP-IA"), (StRecall @ 5, "strec@5"), (P_IA(rel=2) @ 10, "P-IA@10"),
                          (dm.RBU(p=0.8, scale="program") @ 10, "RBU(p=0.8,scale=program)@10"),
                          (dm.D_sharp_nDCG(gamma=0.3) @ 10, "D#-nDCG(gamma=0.3)@10"), (dm.S_RR, "S-RR@100%")]:
        assert dm.bound(measure) == divaleval.parse_measure(name)
    # ir_measures' names parse back to the same measures (PyTerrier passes metrics as text too).
    for measure in (dm.D_sharp_nDCG(gamma=0.3) @ 10, dm.RBU(p=0.8) @ 20, dm.I_rec @ 5, dm.S_RR):
        assert ir_measures.parse_measure(str(measure)) == measure
    assert str(dm.P_plus_Q_sharp @ 10) == "P_plus_Q_sharp@10" and dm.NAMES["P_plus_Q_sharp"] == "P+Q#"


def test_cutoffs_pyndeval_refuses(trec2012):
    """No cutoff is the whole ranking; cutoffs past 20 (pyndeval's cap) are divaleval's."""
    data, qrels, runs = trec2012
    run = runs[BASELINES[0]]
    got = per_topic(quietly(dm.provider.iter_calc, [alpha_nDCG @ 50, ERR_IA], qrels, run))
    # ranked as pyndeval ranks (ties by docno ascending), as the provider ranks ir_measures' measures
    ranked = in_pyndeval_order(read_run(str(data / "baseline-runs" / BASELINES[0])))
    frame = quietly(lambda: divaleval.evaluate(str(data / "qrels.diversity.txt"), ranked,
                                               ["alpha-nDCG@50", "ERR-IA@1000"], complete=True, order="rank"))
    # The baseline runs rank at most 1000 documents a topic: ERR-IA of the whole ranking is ERR-IA@1000.
    assert pd.DataFrame(run).groupby("query_id").size().max() <= 1000
    for topic, a50, err in zip(frame.topic, frame["alpha-nDCG@50"], frame["ERR-IA@1000"]):
        assert got[(topic, "alpha_nDCG@50")] == a50 and got[(topic, "ERR_IA")] == err


def test_run_and_qrels_forms_give_the_same_values():
    qrels_path, run_path = str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")
    measures = [alpha_nDCG @ 10, NRBP, dm.RBU @ 20, dm.D_sharp_nDCG @ 10]
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    run = list(ir_measures.read_trec_run(run_path))
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    qrels_frame, run_frame = pd.DataFrame(qrels), pd.DataFrame(run)
    run_dict = {}
    for doc in run:
        run_dict.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    for qrels_form in (lambda: qrels_frame, lambda: iter(qrels)):
        for run_form in (lambda: run_frame, lambda: run_dict, lambda: iter(run)):
            assert ir_measures.calc_aggregate(measures, qrels_form(), run_form()) == expected
    per_query = list(ir_measures.iter_calc(measures, qrels_frame, run_frame))
    assert len(per_query) == len(measures) * len({q.query_id for q in qrels})
    # The means are those of divaleval's library on the files (ties: none in bm25.txt).
    frame = divaleval.evaluate(qrels_path, run_path, ["alpha-nDCG@10", "NRBP", "RBU@20", "D#-nDCG@10"],
                               complete=True)
    assert [expected[m] for m in measures] == pytest.approx(
        [frame[c].mean() for c in ("alpha-nDCG@10", "NRBP", "RBU@20", "D#-nDCG@10")], rel=1e-15)


def test_topics_the_run_lacks_score_zero_and_an_empty_run_too():
    qrels = list(ir_measures.read_trec_qrels(str(SAMPLE / "qrels.txt")))
    topics = sorted({q.query_id for q in qrels})
    run = [d for d in ir_measures.read_trec_run(str(SAMPLE / "runs" / "bm25.txt")) if d.query_id == topics[0]]
    values = per_topic(ir_measures.iter_calc([alpha_nDCG @ 10, dm.RBU @ 20], qrels, run))
    assert values[(topics[0], "alpha_nDCG@10")] > 0
    assert all(values[(t, m)] == 0.0 for t in topics[1:] for m in ("alpha_nDCG@10", "RBU@20"))
    empty = per_topic(ir_measures.iter_calc([alpha_nDCG @ 10, dm.RBU @ 20], qrels, []))
    assert len(empty) == 2 * len(topics) and set(empty.values()) == {0.0}


def test_bad_run_names_the_row_and_warnings_are_python_warnings():
    qrels = list(ir_measures.read_trec_qrels(str(SAMPLE / "qrels.txt")))
    bad = pd.DataFrame({"query_id": ["101", "101"], "doc_id": ["a", "b"], "score": [1.0, np.nan]}, index=[7, 8])
    with pytest.raises(InputError, match=r"row 2 \(index 8\): score nan is not a number"):
        ir_measures.calc_aggregate([dm.RBU @ 20], qrels, bad)
    stray = pd.DataFrame({"query_id": ["101", "999"], "doc_id": ["doc-101-001", "x"], "score": [2.0, 1.0]})
    with pytest.warns(DivalevalWarning, match="topics not in the qrels are ignored: 999"):
        ir_measures.calc_aggregate([dm.RBU @ 20], qrels, stray)


def test_pyterrier_experiment_through_the_provider():
    """PyTerrier's Experiment on result frames (no index, no Java): the provider's values."""
    pt = pytest.importorskip("pyterrier")
    qrels = pd.DataFrame(ir_measures.read_trec_qrels(str(SAMPLE / "qrels.txt"))).rename(
        columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    results = {}
    for name in ("bm25", "diverse"):
        run = pd.DataFrame(ir_measures.read_trec_run(str(SAMPLE / "runs" / f"{name}.txt")))
        results[name] = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    topics = pd.DataFrame({"qid": sorted(qrels.qid.unique()), "query": "q"})
    # (PyTerrier reads metrics given as text as trec_eval names: ir_measures' names go as Measure objects)
    measures = [alpha_nDCG @ 20, dm.D_sharp_nDCG @ 10, ir_measures.parse_measure("RBU@20")]
    table = pt.Experiment(list(results.values()), topics, qrels, eval_metrics=measures, names=list(results))
    for name, frame in results.items():
        means = ir_measures.calc_aggregate([alpha_nDCG @ 20, dm.D_sharp_nDCG @ 10, dm.RBU @ 20],
                                           qrels.rename(columns={"qid": "query_id", "docno": "doc_id",
                                                                 "label": "relevance"}),
                                           frame.rename(columns={"qid": "query_id", "docno": "doc_id"}))
        row = table.set_index("name").loc[name]
        assert row["alpha_nDCG@20"] == means[alpha_nDCG @ 20]
        assert row["D_sharp_nDCG@10"] == means[dm.D_sharp_nDCG @ 10] and row["RBU@20"] == means[dm.RBU @ 20]
    # alpha_nDCG@20 is pyndeval's provider's too
    reference = ir_measures.pyndeval.calc_aggregate([alpha_nDCG @ 20], ir_measures.read_trec_qrels(
        str(SAMPLE / "qrels.txt")), ir_measures.read_trec_run(str(SAMPLE / "runs" / "bm25.txt")))
    assert table.set_index("name").loc["bm25", "alpha_nDCG@20"] == reference[alpha_nDCG @ 20]
