"""Judgments and runs built in memory give what the same files give; the caller's objects stay as they were."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import divaleval
from conftest import DATA, NDEVAL_EXAMPLES as EX
from divaleval import InputError, Qrels, RunTable

MINI_QRELS = [("1", "1", "A", 1), ("1", "2", "B", 1), ("1", "2", "D", 1), ("1", "3", "C", 1)]
MINI_RANKING = ["A", "D", "E", "B"]  # run_mini.txt, best first


def golden_mini() -> dict[str, str]:
    """ndeval's row for run_mini (expected/run_mini.default.csv): measure -> printed value."""
    header, row = [line.split(",") for line in (EX / "expected" / "run_mini.default.csv").read_text().splitlines()[:2]]
    return dict(zip(header[2:], row[2:]))


def printed(frame: pd.DataFrame) -> dict[str, str]:
    return {name: "%.6f" % frame[name].item() for name in frame.columns if name not in ("runid", "topic")}


def quiet(*args, **kwargs) -> pd.DataFrame:
    return divaleval.evaluate(*args, warn=lambda message: None, **kwargs)


@pytest.mark.parametrize("columns", [("topic", "intent", "docno", "level"),
                                     ("query_id", "iteration", "doc_id", "relevance")])
def test_qrels_from_a_frame_and_a_ranked_run_from_arrays(columns):
    qrels = Qrels.from_frame(pd.DataFrame(MINI_QRELS, columns=columns))
    run = RunTable.from_arrays(["1"] * 4, MINI_RANKING, runid="mini")
    assert printed(quiet(qrels, run)) == golden_mini()


@pytest.mark.parametrize("given,order", [
    ("nothing", "score"), ("nothing", "rank"), ("nothing", "file"),  # ranked in the order given: every rule agrees
    ("ranks", "rank"), ("ranks", "score"),                            # the score order follows the ranks
    ("scores", "score"),
])
def test_a_run_from_arrays_under_each_order_rule(given, order):
    shuffled = [2, 0, 3, 1]  # entries out of order; their ranks or scores restore run_mini's ranking
    ranks = [j + 1 for j in shuffled]
    docnos = MINI_RANKING if given == "nothing" else [MINI_RANKING[j] for j in shuffled]
    extra = {"nothing": {}, "ranks": {"rank": ranks}, "scores": {"score": [10.0 - r for r in ranks]}}[given]
    run = RunTable.from_arrays([1, 1, 1, 1], docnos, runid="mini", **extra)
    qrels = Qrels.from_arrays(*zip(*MINI_QRELS))
    assert printed(quiet(qrels, run, order=order)) == golden_mini()


def test_ad_hoc_judgments_without_intents():
    qrels = Qrels.from_frame(pd.DataFrame({"topic": [1, 1, 1], "docno": ["a", "b", "c"], "level": [2, 0, 1]}))
    assert qrels.adhoc and qrels.intent_ids == [["0"]]
    run = RunTable.from_arrays([1, 1, 1], ["c", "a", "b"])
    # nDCG@2 with gains 2^L-1: (1 + 3/log2(3)) / (3 + 1/log2(3)), by hand.
    expected = (1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3))
    assert quiet(qrels, run, measures=["nDCG@2"])["nDCG@2"].item() == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("make,location,reason", [
    (lambda: Qrels.from_arrays([1, 1], [1, 2], ["a", "b"], [1, 1.5]), "<memory>:2: ", "judgment 1.5 is not an integer"),
    (lambda: Qrels.from_arrays([1, 1], [1, 2], ["a"], [1, 1]), "<memory>: ", "one entry each"),
    (lambda: Qrels.from_frame(pd.DataFrame({"topic": [1], "level": [1]})), "<memory>: ", "no docno or doc_id"),
    (lambda: RunTable.from_arrays([1, 1], ["a", "b"], score=[1.0, float("nan")]), "memory:2: ", "score nan is not a number"),
    (lambda: RunTable.from_arrays([1, 1], ["a", "b"], rank=[1, "x"], name="mine"), "mine:2: ", "rank 'x'"),
    (lambda: RunTable.from_arrays([1], ["a", "b"]), "memory: ", "one entry each"),
])
def test_bad_values_in_memory_name_their_position(make, location, reason):
    with pytest.raises(InputError) as caught:
        make()
    assert str(caught.value).startswith(location) and reason in str(caught.value)


def test_intent_probabilities_leave_the_loaded_qrels_unchanged():
    tiny = DATA / "ntcireval" / "tiny"
    qrels = divaleval.load_qrels(str(tiny / "ex.Dqrels"))
    weights = qrels.weights.copy()
    uniform = quiet(qrels, str(tiny / "RunA"), measures=["D-nDCG@10"])
    weighted = quiet(qrels, str(tiny / "RunA"), measures=["D-nDCG@10"], iprob=str(tiny / "ex.Iprob"))
    assert qrels.iprob is None and np.array_equal(qrels.weights, weights)
    assert not np.allclose(uniform["D-nDCG@10"], weighted["D-nDCG@10"])
    # The same call again gives the uniform values: nothing the first call derived was kept.
    assert quiet(qrels, str(tiny / "RunA"), measures=["D-nDCG@10"]).equals(uniform)
