"""Values computed by hand from the definitions (docs/worked-examples.md, sec. 1), not by divaleval.

The mini example (tests/data/ndeval/examples/qrels_mini.txt, run_mini.txt):
intent 1 = {A}, intent 2 = {B, D}, intent 3 = {C}; the run ranks A, D, E
(unjudged), B. With alpha = 0.5 the novelty gains are 1, 1, 0, 0.5. ndeval's
greedy ideal: all four tie at 1, D wins (greatest docno); then A and C tie at 1,
C wins; then A (1); then B (0.5): ideal gains 1, 1, 1, 0.5.
"""
from __future__ import annotations

import math

import pytest

import divaleval
from conftest import NDEVAL_EXAMPLES as EX

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

LOG2 = math.log2


def scores(measures, qrels="qrels_mini.txt", run="run_mini.txt", **options):
    frame = divaleval.evaluate(str(EX / qrels), str(EX / run), measures=measures,
                               warn=lambda message: None, **options)
    return {name: frame[name].tolist() for name in frame.columns[2:]}


def ii_dcg(n, k, alpha=0.5):
    return sum(n * (1 - alpha) ** (r - 1) / LOG2(r + 1) for r in range(1, k + 1))


def ii_err(n, k, alpha=0.5):
    return sum(n * (1 - alpha) ** (r - 1) / r for r in range(1, k + 1))


RUN_DCG5 = 1 + 1 / LOG2(3) + 0.5 / LOG2(5)
IDEAL_DCG5 = 1 + 1 / LOG2(3) + 1 / LOG2(4) + 0.5 / LOG2(5)
HAND = {
    "ERR-IA@5": (1 + 1 / 2 + 0.5 / 4) / ii_err(3, 5),
    "ERR-IA@20": (1 + 1 / 2 + 0.5 / 4) / ii_err(3, 20),
    "nERR-IA@5": (1 + 1 / 2 + 0.5 / 4) / (1 + 1 / 2 + 1 / 3 + 0.5 / 4),
    "alpha-DCG@5": RUN_DCG5 / ii_dcg(3, 5),
    "alpha-nDCG@5": RUN_DCG5 / IDEAL_DCG5,
    "NRBP": (1 - 0.5 * 0.5) / 3 * (1 + 0.5 * 1 + 0.125 * 0.5),
    "nNRBP": (1 + 0.5 + 0.125 * 0.5) / (1 + 0.5 + 0.25 + 0.125 * 0.5),
    "MAP-IA": (1 / 1 + (1 / 2 + 2 / 4) / 2 + 0) / 3,
    "P-IA@5": 3 / (5 * 3),
    "strec@5": 2 / 3,
    "strec@1": 1 / 3,
}


@pytest.mark.parametrize("name", list(HAND))
def test_mini_example_by_hand(name):
    assert scores([name])[name] == [pytest.approx(HAND[name], abs=1e-12)]


def test_mini_example_matches_the_worked_values():
    # docs/worked-examples.md: ERR-IA@5 = 0.393343, nERR-IA@5 = 0.829787, nNRBP = 0.862069, MAP-IA = 0.5.
    got = scores(["ERR-IA@5", "nERR-IA@5", "nNRBP", "MAP-IA"])
    assert ["%.6f" % got[m][0] for m in got] == ["0.393343", "0.829787", "0.862069", "0.500000"]


def test_any_cutoff_and_parameters():
    # alpha = 0.8: gains 1, 1, 0, 0.2; greedy ideal D, C, A (all 1), then B (0.2).
    got = scores(["alpha-nDCG(alpha=0.8)@3", "ERR-IA@1", "alpha-DCG@30", "P-IA@2", "NRBP@2",
                  "MAP-IA@2", "nNRBP(beta=0.9)@3"])
    assert got["alpha-nDCG(alpha=0.8)@3"][0] == pytest.approx((1 + 1 / LOG2(3)) / (1 + 1 / LOG2(3) + 1 / 2))
    assert got["ERR-IA@1"][0] == pytest.approx(1 / 3)  # normalised at every cutoff, k = 1 too
    assert got["alpha-DCG@30"][0] == pytest.approx(RUN_DCG5 / ii_dcg(3, 30))
    assert got["P-IA@2"][0] == pytest.approx(2 / 6)
    assert got["NRBP@2"][0] == pytest.approx(0.75 / 3 * (1 + 0.5))
    assert got["MAP-IA@2"][0] == pytest.approx((1 + (1 / 2) / 2) / 3)
    beta = 0.9
    assert got["nNRBP(beta=0.9)@3"][0] == pytest.approx((1 + beta) / (1 + beta + beta ** 2))


def test_graded_and_negative_levels(tmp_path):
    # Levels >= 1 are relevant whatever the grade; 0 and -2 are judged non-relevant.
    graded = tmp_path / "graded.txt"
    graded.write_text("1 1 A 3\n1 2 B 2\n1 2 D 4\n1 3 C 1\n1 3 E -2\n1 4 E 0\n")
    frame = divaleval.evaluate(str(graded), str(EX / "run_mini.txt"), measures=list(HAND),
                               warn=lambda message: None)
    for name, value in HAND.items():
        assert frame[name].item() == pytest.approx(value, abs=1e-12), name


def test_intent_without_relevant_document_does_not_count():
    # qrels.txt topic 2: intents 0, 1, 2 have relevant documents, intent 5 only 0s.
    # runA ranks g(-), c(1,2), x(-), a(0), e(2), b(1): intents covered by rank 5 = 3 of 3.
    got = scores(["strec@2", "strec@5", "P-IA@5"], qrels="qrels.txt", run="runA.txt")
    assert got["strec@2"][1] == pytest.approx(2 / 3)
    assert got["strec@5"][1] == pytest.approx(1.0)
    assert got["P-IA@5"][1] == pytest.approx(4 / 15)


def test_ideal_beaten_values_above_one_are_kept():
    # ndeval edge E24: the greedy ideal is not optimal; normalised values exceed 1, unclamped.
    from conftest import NDEVAL_EDGE

    frame = divaleval.evaluate(str(NDEVAL_EDGE / "q_greedy.txt"), str(NDEVAL_EDGE / "r_greedy.txt"),
                               measures=["alpha-nDCG@5", "nERR-IA@5", "nNRBP"])
    assert ["%.6f" % v for v in frame.iloc[0, 2:]] == ["1.000941", "1.001171", "1.001504"]
