"""Judgments and runs in memory (divaleval/io/frames.py) give the values the files give; a bad row is an
error naming it; library warnings are Python warnings (DivalevalWarning), the command's stay on stderr."""
from __future__ import annotations

import collections
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import divaleval
from divaleval.errors import DivalevalWarning, InputError
from divaleval.io import RunTable

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"
QRELS, RUNS = SAMPLE / "qrels.txt", sorted((SAMPLE / "runs").glob("*.txt"))
MEASURES = ["alpha-nDCG@10", "nERR-IA@10", "NRBP", "MAP-IA", "D#-nDCG@10", "RBU@20", "I-rec@5", "AP", "nDCG@10"]
Qrel = collections.namedtuple("TrecQrel", "query_id doc_id relevance iteration")  # ir_datasets' fields
ScoredDoc = collections.namedtuple("GenericScoredDoc", "query_id doc_id score")


def qrels_lines() -> pd.DataFrame:
    return pd.read_csv(QRELS, sep=" ", header=None, names=["topic", "intent", "docno", "level"], dtype=str
                       ).astype({"level": int})


def run_lines(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep=" ", header=None, names=["topic", "q0", "docno", "rank", "score", "runid"],
                       dtype={"topic": str, "docno": str, "runid": str})


def values(frame: pd.DataFrame) -> list:
    return frame.reset_index(drop=True)[["topic", *MEASURES]].values.tolist()


@pytest.fixture(scope="module")
def from_files():
    return divaleval.evaluate(str(QRELS), str(RUNS[0]), MEASURES)


def qrels_forms():
    lines = qrels_lines()
    yield "divaleval", lines
    yield "ir_measures", lines.rename(columns={"topic": "query_id", "intent": "iteration", "docno": "doc_id",
                                               "level": "relevance"})
    yield "PyTerrier", lines.rename(columns={"topic": "qid", "intent": "iteration", "level": "label"})
    yield "namedtuples", [Qrel(t, d, lv, i) for t, i, d, lv in lines.itertuples(index=False)]
    yield "iterator", (Qrel(t, d, lv, i) for t, i, d, lv in lines.itertuples(index=False))


def run_forms():
    lines = run_lines(RUNS[0])
    yield "divaleval", lines[["topic", "docno", "score", "rank", "runid"]]
    yield "ir_measures", lines.rename(columns={"topic": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    # PyTerrier's results: 0-based ranks, an integer docid that is no document id
    yield "PyTerrier", pd.DataFrame({"qid": lines.topic, "docid": np.arange(len(lines)), "docno": lines.docno,
                                     "rank": lines["rank"] - 1, "score": lines.score})
    by_topic = {}
    for topic, docno, score in zip(lines.topic, lines.docno, lines.score):
        by_topic.setdefault(topic, {})[docno] = score
    yield "pytrec_eval dict", by_topic
    yield "namedtuples", [ScoredDoc(t, d, s) for t, d, s in zip(lines.topic, lines.docno, lines.score)]
    yield "iterator", (ScoredDoc(t, d, s) for t, d, s in zip(lines.topic, lines.docno, lines.score))


@pytest.mark.parametrize("form", [name for name, _ in qrels_forms()])
def test_qrels_in_memory_give_the_files_values(form, from_files):
    qrels = dict(qrels_forms())[form]
    assert values(divaleval.evaluate(qrels, str(RUNS[0]), MEASURES)) == values(from_files)


@pytest.mark.parametrize("form", [name for name, _ in run_forms()])
def test_runs_in_memory_give_the_files_values(form, from_files):
    run = dict(run_forms())[form]
    scored = divaleval.evaluate(str(QRELS), run, MEASURES)
    assert values(scored) == values(from_files)
    assert scored.index.unique().tolist() == (["bm25"] if form == "divaleval" else ["memory"])


def test_dicts_of_qrels_are_ad_hoc_judgments():
    lines = qrels_lines()
    adhoc = lines[lines.intent == "1"]
    as_dict = {}
    for topic, docno, level in zip(adhoc.topic, adhoc.docno, adhoc.level):
        as_dict.setdefault(topic, {})[docno] = level
    expected = divaleval.evaluate(adhoc.drop(columns="intent"), str(RUNS[0]), ["AP", "nDCG@10", "alpha-nDCG@10"])
    got = divaleval.evaluate(as_dict, str(RUNS[0]), ["AP", "nDCG@10", "alpha-nDCG@10"])
    assert got.values.tolist() == expected.values.tolist()


def test_several_runs_in_memory_keep_their_names():
    frames = {path.stem: run_lines(path) for path in RUNS}
    stacked = pd.concat(frames.values())  # one frame, a runid column: one run per runtag
    from_files = divaleval.evaluate(str(QRELS), [str(p) for p in RUNS], MEASURES)
    by_runid = divaleval.evaluate(str(QRELS), stacked, MEASURES)
    named = divaleval.evaluate(str(QRELS), {name: f.drop(columns="runid") for name, f in frames.items()}, MEASURES)
    listed = divaleval.evaluate(str(QRELS), [f.drop(columns="runid") for f in frames.values()], MEASURES)
    for scored in (by_runid, named, listed):
        assert values(scored) == values(from_files)
    assert by_runid.index.unique().tolist() == named.index.unique().tolist() == [p.stem for p in RUNS]
    assert listed.index.unique().tolist() == ["memory", "memory#2", "memory#3"]


def test_means_compare_and_risk_take_runs_in_memory():
    frames = {path.stem: run_lines(path).drop(columns="runid") for path in RUNS}
    cube = divaleval.score_cube(qrels_lines(), frames, ["alpha-nDCG@10"])
    compared = divaleval.compare(cube, trials=200)
    assert isinstance(compared, pd.DataFrame) and len(compared) == 3
    from_files = divaleval.risk(str(QRELS), [str(RUNS[1])], str(RUNS[0]), ["alpha-nDCG@10"])
    in_memory = divaleval.risk(qrels_lines(), {"diverse": frames["diverse"]}, frames["bm25"], ["alpha-nDCG@10"])
    assert in_memory[["URisk", "TRisk", "p"]].values.tolist() == from_files[["URisk", "TRisk", "p"]].values.tolist()


@pytest.mark.parametrize("run, message", [
    (pd.DataFrame({"qid": ["101", "101"], "docno": ["a", "b"], "score": [1.0, np.nan]}, index=["x", "y"]),
     r"memory: row 2 \(index 'y'\): score nan is not a number"),
    (pd.DataFrame({"qid": ["101", None], "docno": ["a", "b"], "score": [1.0, 2.0]}),
     r"memory: row 2 \(index 1\): topic is missing"),
    (pd.DataFrame({"qid": ["101", "101"], "docno": ["a", np.nan], "score": [1.0, 2.0]}),
     r"memory: row 2 \(index 1\): docno is missing"),
    (pd.DataFrame({"qid": ["101"], "docno": ["a"], "score": ["high"]}),
     r"memory: row 1 \(index 0\): score 'high' is not a number"),
    (pd.DataFrame({"qid": ["101"], "docid": [3], "score": [1.0]}),
     r"memory: the run frame has no docno or doc_id column \(its columns: qid, docid, score\)"),
    ({"101": {"a": 1.0, "b": float("nan")}}, r"memory: topic 101, docno b: score nan is not a number"),
    ([ScoredDoc("101", "a", 1.0), ScoredDoc("101", "b", None)], r"memory: item 2: score is missing"),
    # found when ranked, as a file's: its 1-based position stands for its line
    (pd.DataFrame({"qid": ["101", "101"], "docno": ["a", "a"], "score": [2.0, 1.0]}),
     r"memory:2: document a of topic 101 repeats line 1"),
])
def test_a_bad_run_row_is_named(run, message):
    with pytest.raises(InputError, match=message):
        divaleval.evaluate(str(QRELS), run, ["alpha-nDCG@10"])


@pytest.mark.parametrize("qrels, message", [
    (pd.DataFrame({"qid": ["101"], "docno": ["a"], "label": [1.5]}, index=[4]),
     r"row 1 \(index 4\): judgment 1.5 is not an integer"),
    ({"101": {"a": 1, "b": "x"}}, r"topic 101, docno b: judgment 'x' is not an integer"),
    ([Qrel("101", None, 1, "1")], r"item 1: docno is missing"),
    (pd.DataFrame({"query_id": ["101"], "doc_id": ["a"]}), r"the qrels frame has no level or relevance or label"),
])
def test_a_bad_qrels_row_is_named(qrels, message):
    with pytest.raises(InputError, match=message):
        divaleval.load_qrels(qrels)


def test_warnings_are_python_warnings_at_the_callers_line():
    run = run_lines(RUNS[0])
    run.loc[0, "topic"] = "999"
    with pytest.warns(DivalevalWarning, match="topics not in the qrels are ignored: 999") as caught:
        divaleval.evaluate(str(QRELS), run, ["alpha-nDCG@10"])
    assert {Path(w.filename).name for w in caught} == {Path(__file__).name}  # the user's line, not divaleval's
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warn=False: none at all
        divaleval.evaluate(str(QRELS), run, ["alpha-nDCG@10"], warn=False)
    messages = []
    divaleval.evaluate(str(QRELS), run, ["alpha-nDCG@10"], warn=messages.append)
    assert messages == ["bm25: topics not in the qrels are ignored: 999 (1 line)"]


def test_the_command_still_prints_warnings_on_stderr(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text(RUNS[0].read_text() + "999 Q0 doc-x 1 1.0 bm25\n")
    done = subprocess.run([sys.executable, "-m", "divaleval", "-m", "alpha-nDCG@10", str(QRELS), str(run)],
                          capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stderr == f"divaleval: warning: {run}: topics not in the qrels are ignored: 999 (1 line)\n"


def test_a_library_default_warning_in_the_command_prints_as_the_command_does(capsys):
    from divaleval.errors import emit_warning, show_on_stderr

    with show_on_stderr():
        emit_warning("one")
        emit_warning("one")  # every time, not once per place
    assert capsys.readouterr().err == "divaleval: warning: one\ndivaleval: warning: one\n"


def test_run_tables_from_arrays_are_left_as_they_are():
    table = RunTable.from_arrays(["101"], ["doc-101-001"], [1.0], runid="mine")
    assert divaleval.evaluate(str(QRELS), table, ["alpha-nDCG@10"]).index.tolist() == ["mine"]


def test_the_python_page_examples_print_what_it_shows(monkeypatch):
    """docs/python.md's examples, run as doctests from the repository's root."""
    import doctest

    pytest.importorskip("ir_measures")
    pytest.importorskip("pyterrier")
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DivalevalWarning)
        result = doctest.testfile(str(root / "docs" / "python.md"), module_relative=False, report=True,
                                  optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 30 and result.failed == 0


def test_infinite_scores_rank_first_and_last_as_in_a_run_file(tmp_path):
    # One topic, relevant documents r1 and r2 (AP's denominator 2). Scores inf, 1, -inf put r1 first, n second,
    # r2 third: AP = (1/1 + 2/3) / 2 = 5/6.
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["r1", "r2"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["r2", "n", "r1"], "score": [-np.inf, 1.0, np.inf]})
    in_memory = divaleval.evaluate(qrels, run, ["AP"])
    assert in_memory["AP"].iloc[0] == pytest.approx(5 / 6, rel=1e-15)
    (tmp_path / "qrels").write_text("1 0 r1 1\n1 0 r2 1\n")
    (tmp_path / "run").write_text("1 Q0 r2 1 -inf x\n1 Q0 n 2 1 x\n1 Q0 r1 3 inf x\n")
    from_file = divaleval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["AP"])
    assert from_file["AP"].iloc[0] == in_memory["AP"].iloc[0]
    scores = RunTable.from_arrays(["1"] * 3, ["r2", "n", "r1"], [-np.inf, 1.0, np.inf])
    assert divaleval.evaluate(qrels, scores, ["AP"])["AP"].iloc[0] == in_memory["AP"].iloc[0]
    with pytest.raises(InputError, match="memory:2: score nan is not a number"):
        RunTable.from_arrays(["1"] * 2, ["a", "b"], [1.0, np.nan])
