"""ir_measures' names in the native command, against ir_measures' own values.

Each ir_measures name divaleval accepts must give what ir_measures computes under that name (through its
providers: pytrec_eval, which embeds trec_eval 9.0's C code, and its own for Judged), per topic, on two
TREC 2012 Web track baseline runs (from ../shared; skipped without it, or without ir_measures). The names
are resolved by divaleval's alias table and registry; a pair below says which family each one reaches,
and the values say it is the right quantity. Where ir_measures gives one of divaleval's own names
another meaning (AP@k, nDCG's gains, Judged@k, IPrec's rounding), the test shows where they part.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

import divaleval
from divaleval.measures import parse_measure

from conftest import shared_path

ir_measures = pytest.importorskip("ir_measures")
pytestmark = pytest.mark.golden

RUNS = ("ql/results-catb", "rm/results-catb-filtered")
QUIET = {"warn": lambda message: None}
LINEAR = {"gain": "linear"}  # ir_measures' (trec_eval's) nDCG takes the level as the gain

# ir_measures' name -> the measure divaleval resolves that same name to, and the options that make the same
# quantity; ir_measures' AP@k is divaleval's AP_cut@k, written so (DIVALEVAL_NAME), as AP@k is divaleval's own.
SAME = [
    ("AP", "AP", {}), ("MAP", "AP", {}),
    ("AP@10", "AP_cut@10", {}), ("MAP@10", "AP_cut@10", {}), ("AP@100", "AP_cut@100", {}),
    ("RR", "RR", {}), ("MRR", "RR", {}), ("RR@10", "RR@10", {}),
    ("P@10", "Prec@10", {}), ("P@20", "Prec@20", {}),
    ("R@10", "Recall@10", {}), ("R@100", "Recall@100", {}), ("SetR", "Recall", {}),
    ("Rprec", "R-Prec", {}), ("RPrec", "R-Prec", {}),
    ("NumRet", "NumRet", {}), ("NumRel", "NumRel", {}), ("NumRelRet", "NumRelRet", {}),
    ("SetP", "SetP", {}), ("SetF", "SetF", {}), ("Success@1", "Success@1", {}), ("Success@10", "Success@10", {}),
    ("infAP", "infAP", {}),
    ("nDCG", "nDCG", LINEAR), ("nDCG@10", "nDCG@10", LINEAR), ("nDCG@20", "nDCG@20", LINEAR),
    ("IPrec@0.0", "IPrec", {}), ("IPrec@1.0", "IPrec(recall=1.0)", {}),
]
DIVALEVAL_NAME = {"AP@10": "AP_cut@10", "AP@100": "AP_cut@100"}


def _theirs(name: str, qrels: Path, run: Path) -> dict[str, float]:
    measure = ir_measures.parse_measure(name)
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], ir_measures.read_trec_qrels(str(qrels)),
                                                                ir_measures.read_trec_run(str(run)))}


def _ours(name: str, qrels: Path, run: Path, **options) -> dict[str, float]:
    frame = divaleval.evaluate(str(qrels), str(run), [name], **options, **QUIET)
    return dict(zip(frame["topic"], frame[frame.columns[-1]]))


def _data() -> tuple[Path, list[Path]]:
    year = shared_path("data", "trec-web", "2012")
    return year / "qrels.adhoc.txt", [year / "baseline-runs" / f"{run}.txt" for run in RUNS]


@pytest.fixture(scope="module")
def both_values() -> dict[tuple[str, str], tuple[dict[str, float], dict[str, float]]]:
    """(run, ir_measures' name) -> (ir_measures' values, divaleval's) per topic: each tool called once a run
    (divaleval once a set of options)."""
    qrels, runs = _data()
    values = {}
    for run in runs:
        measures = [ir_measures.parse_measure(name) for name, _, _ in SAME]
        theirs: dict[str, dict[str, float]] = {}
        for m in ir_measures.iter_calc(measures, ir_measures.read_trec_qrels(str(qrels)),
                                       ir_measures.read_trec_run(str(run))):
            theirs.setdefault(str(m.measure), {})[m.query_id] = m.value
        for options in ({}, LINEAR):
            names = [name for name, _, given in SAME if given == options]
            frame = divaleval.evaluate(str(qrels), str(run), [DIVALEVAL_NAME.get(n, n) for n in names], **options,
                                       **QUIET)
            for name, (_, resolved, _) in ((n, next(p for p in SAME if p[0] == n)) for n in names):
                ours = dict(zip(frame["topic"], frame[resolved]))
                values[(run.name, name)] = (theirs[str(ir_measures.parse_measure(name))], ours)
    return values


@pytest.mark.parametrize("name,resolved,options", SAME, ids=[pair[0] for pair in SAME])
def test_ir_measures_names_give_ir_measures_values(name: str, resolved: str, options: dict, both_values) -> None:
    assert parse_measure(DIVALEVAL_NAME.get(name, name)).name == resolved
    for run in RUNS:
        theirs, ours = both_values[(Path(run).name + ".txt", name)]
        assert set(theirs) == set(ours) and len(ours) == 50
        for topic, value in theirs.items():
            assert ours[topic] == pytest.approx(value, abs=1e-12), (run, name, topic)


def test_where_ir_measures_gives_divaleval_names_another_meaning() -> None:
    # AP@k here is NTCIREVAL's (over min(k, R)), not ir_measures' (trec_eval's map_cut, over R); nDCG here
    # takes 2^L - 1 as the gain. Each differs on some topic, so a test of the pairs above could not pass
    # with AP@k or nDCG's default gains in their place.
    qrels, runs = _data()
    theirs = _theirs("AP@10", qrels, runs[0])
    ours = _ours("AP@10", qrels, runs[0])
    assert any(abs(ours[t] - v) > 1e-6 for t, v in theirs.items())
    assert parse_measure("AP@10").name == "AP@10"
    theirs, ours = _theirs("nDCG@10", qrels, runs[0]), _ours("nDCG@10", qrels, runs[0])
    assert any(abs(ours[t] - v) > 1e-6 for t, v in theirs.items())


def _without_ties(run: Path, out: Path) -> Path:
    """The run with distinct scores in the order divaleval and trec_eval give it (score descending, ties by
    docno descending): ir_measures' own Judged provider breaks ties by docno ascending."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for line in run.read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()
        by_topic.setdefault(topic, []).append((float(score), docno))
    with open(out, "w") as written:
        for topic, ranked in by_topic.items():
            ranked.sort(reverse=True)
            for i, (_, docno) in enumerate(ranked):
                written.write(f"{topic} Q0 {docno} {i + 1} {len(ranked) - i} tie-free\n")
    return out


def test_judged_where_the_definitions_meet(tmp_path: Path) -> None:
    # ir_measures' Judged@k counts every document of the qrels as judged (one graded -2 too) and divides by
    # min(k, documents ranked); divaleval's, like trec_eval's unj, counts levels >= 0 and divides by k. With
    # the negative grades left out of the qrels and runs ranking k documents or more (without ties, which
    # ir_measures' Judged breaks the other way), they are the same.
    qrels, runs = _data()
    lines = qrels.read_text().splitlines()
    kept = tmp_path / "qrels.nonnegative.txt"
    kept.write_text("".join(line + "\n" for line in lines if int(line.split()[3]) >= 0))
    assert any(int(line.split()[3]) < 0 for line in lines)  # there was something to leave out
    for run in (_without_ties(run, tmp_path / run.name) for run in runs):
        ranked = _ours("NumRet", kept, run)
        for k in (5, 10, 20):
            theirs, ours = _theirs(f"Judged@{k}", kept, run), _ours(f"Judged@{k}", kept, run)
            compared = [t for t in theirs if ranked[t] >= k]
            assert len(compared) >= 45
            for topic in compared:
                assert ours[topic] == pytest.approx(theirs[topic], abs=1e-12), (run.name, k, topic)
        # on the qrels as they are, the negative grades make them part
        theirs, ours = _theirs("Judged@10", qrels, run), _ours("Judged@10", qrels, run)
        assert any(abs(ours[t] - v) > 1e-6 for t, v in theirs.items())


def test_iprec_where_trec_eval_9_and_10_count_alike() -> None:
    # ir_measures' IPrec@x is trec_eval 9.0's iprec_at_recall: a recall level x stands for int(x R + 0.9)
    # relevant documents (the ceiling, but for a part of at most a tenth above a whole number; trec_eval's
    # 9.0 reference outputs in ../shared/oracle/trec_eval follow it), where 10.0 and divaleval's IPrec round
    # x R to the nearest. Per topic, the values agree wherever the two counts do, and some topics differ.
    qrels, runs = _data()
    relevant = _ours("NumRel", qrels, runs[0])
    parted = 0
    levels = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
    for run in runs:
        measures = [ir_measures.parse_measure(f"IPrec@{x}") for x in levels]
        computed = list(ir_measures.iter_calc(measures, ir_measures.read_trec_qrels(str(qrels)),
                                              ir_measures.read_trec_run(str(run))))
        frame = divaleval.evaluate(str(qrels), str(run), [f"IPrec@{x}" for x in levels], **QUIET)
        for x, measure in zip(levels, measures):
            theirs = {m.query_id: m.value for m in computed if m.measure == measure}
            ours = dict(zip(frame["topic"], frame[f"IPrec(recall={x})"]))
            for topic, value in theirs.items():
                r = relevant[topic]
                if int(x * r + 0.9) == math.floor(x * r + 0.5):
                    assert ours[topic] == pytest.approx(value, abs=1e-12), (run.name, x, topic)
                else:
                    parted += abs(ours[topic] - value) > 1e-9
    assert parted > 0
