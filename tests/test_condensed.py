"""Condensed lists (-J), bpref and the relevance threshold (--rel-min), against trec_eval's documented
definitions (worked by hand here) and ndeval's C code (pyndeval) on thresholded judgments.

trec_eval (form_res_rels.c, m_bpref.c): -M cuts the ranking first; -J then removes every document
without a judgment >= 0 (a negative judgment is "in the pool but unjudged"); -l L makes levels
below L non-relevant for the binary measures; bpref = (1/R) sum over the relevant retrieved
documents of 1 - min(n, R)/min(N, R) (1 when n = 0), n the judged non-relevant ones above,
N the judged non-relevant of the topic.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import divaleval
from conftest import NDEVAL_EXAMPLES
from divaleval.cli import main_group
from divaleval.errors import UsageError

QUIET = {"warn": lambda message: None}

# Ad hoc judgments of topic 1: a 1, b 0, c 2, d 0, e -2 (pooled, not judged), f 1.
QRELS = divaleval.Qrels.from_arrays(["1"] * 6, None, list("abcdef"), [1, 0, 2, 0, -2, 1])
# Run (in this order): x (unjudged), b, a, e, d, c, y (unjudged).
RUN = divaleval.RunTable.from_arrays(["1"] * 7, ["x", "b", "a", "e", "d", "c", "y"])


def scores(measures, qrels=QRELS, run=RUN, **options):
    return divaleval.evaluate(qrels, run, measures=measures, **QUIET, **options).iloc[0]


@pytest.mark.golden
def test_condensed_list_by_hand():
    # -J leaves b, a, d, c (e's only judgment is negative, x and y are unjudged). R = 3 (a, c, f).
    full = scores(["AP", "Prec@2", "RR", "nDCG@4"])
    condensed = scores(["AP", "Prec@2", "RR", "nDCG@4"], judged_only=True)
    assert full["AP"] == pytest.approx((1 / 3 + 2 / 6) / 3)          # a at 3, c at 6
    assert condensed["AP"] == pytest.approx((1 / 2 + 2 / 4) / 3)     # a at 2, c at 4
    assert full["Prec@2"] == 0 and condensed["Prec@2"] == 0.5
    assert full["RR"] == pytest.approx(1 / 3) and condensed["RR"] == 0.5
    # nDCG@4 with gains 2^L - 1: a 1, c 3, f 1; ideal 3, 1, 1.
    ideal = 3 + 1 / math.log2(3) + 1 / 2
    assert full["nDCG@4"] == pytest.approx((1 / 2) / ideal)
    assert condensed["nDCG@4"] == pytest.approx((1 / math.log2(3) + 3 / math.log2(5)) / ideal)


def test_depth_cuts_before_the_list_is_condensed():
    # trec_eval truncates to -M, then removes unjudged documents: -M 3 keeps x, b, a -> b, a.
    both = scores(["AP", "RR"], depth=3, judged_only=True)
    assert both["AP"] == pytest.approx((1 / 2) / 3) and both["RR"] == 0.5


def test_a_topic_left_empty_still_counts():
    qrels = divaleval.Qrels.from_arrays(["1", "2"], None, ["a", "b"], [1, 1])
    run = divaleval.RunTable.from_arrays(["1", "2", "2"], ["a", "z", "b"])
    frame = divaleval.evaluate(qrels, divaleval.RunTable.from_arrays(["1", "2"], ["a", "z"]), measures=["AP"],
                               judged_only=True, **QUIET)
    assert list(frame.topic) == ["1", "2"] and list(frame.AP) == [1.0, 0.0]   # topic 2 retrieved nothing judged
    assert list(divaleval.evaluate(qrels, run, measures=["AP"], judged_only=True, **QUIET).AP) == [1.0, 1.0]


@pytest.mark.golden
def test_bpref_by_hand():
    # R = 3 (a, c, f), N = 2 (b, d; e is not judged). a has 1 judged non-relevant above (b): 1 - 1/min(2, 3);
    # c has 2 (b, d): 1 - 2/2 = 0; f is not retrieved. bpref = (1/2 + 0 + 0)/3.
    assert scores(["bpref"])["bpref"] == pytest.approx(1 / 6, abs=1e-15)
    assert scores(["bpref"], judged_only=True)["bpref"] == pytest.approx(1 / 6, abs=1e-15)  # unjudged count for nothing
    # -l 2: R = 1 (c), N = 4 (a, b, d, f). c has b, a, d above: 1 - min(3, 1)/min(4, 1) = 0.
    assert scores(["bpref"], rel_min=2)["bpref"] == 0.0
    # N < R: R = 3 (a b c), N = 1 (d); run a, d, b, c: a 1, b 1 - 1/1, c 1 - 1/1 -> 1/3.
    qrels = divaleval.Qrels.from_arrays(["1"] * 4, None, list("abcd"), [1, 1, 1, 0])
    run = divaleval.RunTable.from_arrays(["1"] * 4, ["a", "d", "b", "c"])
    assert scores(["bpref"], qrels, run)["bpref"] == pytest.approx(1 / 3, abs=1e-15)
    # R > N's first R only: R = 1 (a), N = 3; run b, c, a: 1 - min(2, 1)/min(3, 1) = 0; run a first: 1.
    qrels = divaleval.Qrels.from_arrays(["1"] * 4, None, list("abcd"), [1, 0, 0, 0])
    assert scores(["bpref"], qrels, divaleval.RunTable.from_arrays(["1"] * 3, ["b", "c", "a"]))["bpref"] == 0.0
    assert scores(["bpref"], qrels, divaleval.RunTable.from_arrays(["1"] * 2, ["a", "b"]))["bpref"] == 1.0


def test_bpref_on_trec_qrels_file(tmp_path):
    # TREC's four columns (topic 0 docno level), two topics, scores deciding the order (ties by docno descending).
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 0\n1 0 e 0\n2 0 p 2\n2 0 q 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 u 1 9 r\n1 Q0 d 2 8 r\n1 Q0 a 3 7 r\n1 Q0 e 4 7 r\n1 Q0 c 5 6 r\n2 Q0 p 1 5 r\n")
    frame = divaleval.evaluate(str(qrels), str(run), measures=["bpref"], **QUIET)
    # Topic 1 ranked u, e, d, a, c (e before a: tie at 7, docno descending). R = 2, N = 3: a 1 - 2/2, c 1 - 2/2.
    assert list(frame.bpref) == [0.0, 1.0]
    assert divaleval.mean_rows(frame).bpref.item() == 0.5


@pytest.mark.golden
def test_rel_min_by_hand():
    # -l 2: only c is relevant (R = 1): AP = 1/6, RR = 1/6; graded nDCG keeps every level's gain.
    both = scores(["AP", "RR", "nDCG@6"], rel_min=2)
    assert both["AP"] == pytest.approx(1 / 6) and both["RR"] == pytest.approx(1 / 6)
    assert both["nDCG@6"] == scores(["nDCG@6"])["nDCG@6"]


def pyndeval_frame(qrels, run, **kwargs):
    pyndeval = pytest.importorskip("pyndeval")
    return pyndeval.ndeval(qrels, run, **kwargs)


@pytest.mark.parametrize("seed", range(6))
def test_rel_min_on_the_ndeval_set_is_ndeval_on_thresholded_judgments(seed):
    # ir_measures' rel=L: a level below L is non-relevant. Reference: ndeval's C code (pyndeval) on the judgments
    # with every level < L set to 0; divaleval with --rel-min L on the original ones.
    from test_pyndeval import canonical, random_case

    qrels, run = random_case(seed)
    level = 2 + seed % 2
    if not any(q[3] >= level for q in qrels):
        pytest.skip("no document reaches the threshold")
    thresholded = [(t, i, d, lv if lv >= level else min(lv, 0)) for t, i, d, lv in qrels]
    theirs = pyndeval_frame(thresholded, run)
    frame = pd.DataFrame(qrels, columns=["topic", "intent", "docno", "level"])
    runs = pd.DataFrame(run, columns=["topic", "docno", "score"])
    ours = divaleval.evaluate(divaleval.Qrels.from_frame(frame),
                              divaleval.RunTable.from_arrays(runs.topic, runs.docno, runs.score.to_numpy()),
                              measures=["ndeval"], rel_min=level, **QUIET).set_index("topic")
    for topic in ours.index:
        for name in ours.columns[1:]:
            expected = theirs[topic][canonical(name)]
            if np.isnan(expected):  # no relevant document at the threshold: divaleval prints 0
                assert ours.loc[topic, name] == 0.0
            else:
                assert ours.loc[topic, name] == pytest.approx(expected, abs=1e-9), (topic, name)


def test_rel_min_counts_only_the_intents_left_relevant():
    # Intent 1 has only a level-1 document: with --rel-min 2 it no longer counts (I-rec over 1 intent).
    qrels = divaleval.Qrels.from_arrays(["1"] * 3, ["1", "2", "2"], ["a", "b", "c"], [1, 2, 1])
    run = divaleval.RunTable.from_arrays(["1"] * 2, ["b", "a"])
    assert scores(["I-rec@1", "strec@1"], qrels, run).tolist()[2:] == [0.5, 0.5]
    assert scores(["I-rec@1", "strec@1"], qrels, run, rel_min=2).tolist()[2:] == [1.0, 1.0]
    assert scores(["IA-AP"], qrels, run, rel_min=2)["IA-AP"] == 1.0   # intent 2: b at rank 1, R = 1


def test_condensed_list_equals_a_run_without_its_unjudged_documents(tmp_path):
    # The definition itself, for every measure: -J on a run is the run with its unjudged lines deleted.
    qrels = NDEVAL_EXAMPLES / "qrels.txt"
    loaded = divaleval.load_qrels(str(qrels), **QUIET)
    lines = (NDEVAL_EXAMPLES / "runB.txt").read_text().splitlines()
    judged = {(loaded.topic_ids[t], docno.decode()) for t in range(loaded.n_topics)
              for docno in [loaded.docnos[int(k % len(loaded.docnos))].as_py()
                            for k in loaded.row_key[loaded.row_start[t]:loaded.row_start[t + 1]]]}
    kept = [line for line in lines if (line.split()[0], line.split()[2]) in judged]
    assert 0 < len(kept) < len(lines)
    condensed = tmp_path / "runB.condensed"
    condensed.write_text("\n".join(kept) + "\n")
    options = dict(measures=["all"], complete=True, **QUIET)
    one = divaleval.evaluate(loaded, str(NDEVAL_EXAMPLES / "runB.txt"), judged_only=True, **options)
    other = divaleval.evaluate(loaded, str(condensed), **options)
    assert np.array_equal(one.iloc[:, 2:].to_numpy(), other.iloc[:, 2:].to_numpy())


def test_command_line_options():
    runner = CliRunner()
    args = ["-f", "trec", "-m", "bpref,AP", str(NDEVAL_EXAMPLES / "qrels.txt"), str(NDEVAL_EXAMPLES / "runA.txt")]
    plain = runner.invoke(main_group, ["-q", *args])
    condensed = runner.invoke(main_group, ["-q", "-J", *args])
    strict = runner.invoke(main_group, ["-q", "--judged-only", "--rel-min", "2", *args])
    assert plain.exit_code == condensed.exit_code == strict.exit_code == 0
    assert plain.output != condensed.output != strict.output
    bad = runner.invoke(main_group, ["--rel-min", "0", *args])
    assert bad.exit_code == 2 and "rel-min" in bad.output
    with pytest.raises(UsageError):
        divaleval.make_settings(rel_min=0)


def test_topics_without_a_document_at_the_threshold_are_named():
    messages = []
    qrels = divaleval.Qrels.from_arrays(["1", "2"], None, ["a", "b"], [1, 3])
    run = divaleval.RunTable.from_arrays(["1", "2"], ["a", "b"])
    frame = divaleval.evaluate(qrels, run, measures=["AP", "nDCG"], rel_min=2, warn=messages.append)
    assert list(frame.AP) == [0.0, 1.0] and list(frame.nDCG) == [1.0, 1.0]
    assert messages == ["no document reaches level 2 (--rel-min) in topics 1: the binary measures score them 0"]
    divaleval.evaluate(qrels, run, measures=["nDCG"], rel_min=2, warn=messages.append)  # no binary measure: silent
    assert len(messages) == 1
