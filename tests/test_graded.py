"""Graded measures: values computed by hand from the definitions, and properties."""
from __future__ import annotations

import math

import numpy as np
import pytest

import divaleval
from conftest import DATA

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

TINY = DATA / "ntcireval" / "tiny"
LOG2 = math.log2


def scores(qrels, run, measures, **options):
    frame = divaleval.evaluate(str(qrels), str(run), measures=measures, warn=lambda message: None, **options)
    return frame.set_index("topic")


# tiny/ex.qrels, topic 0001, gains 1:3:7: d1 L3 = 7, d2 L2 = 3, d3 L1 = 1, d4 L2 = 3 (d5, d6 L0).
# RunA ranks d1, d5, d2, d7 (unjudged), d4, d3: gains 7, 0, 3, 0, 3, 1 at ranks 1..6.
# Ideal list 7, 3, 3, 1: R = 4, hg = 7, cumulative ideal gains 7, 10, 13, 14, 14, ...
RUN = [(1, 7), (3, 3), (5, 3), (6, 1)]        # (rank, gain) of the relevant documents
IDEAL = [7, 3, 3, 1]


def br(count, rank, cg, beta=1.0):
    ideal_cg = sum(IDEAL[:rank])
    return (count + beta * cg) / (rank + beta * ideal_cg)


def err_terms(ranked, hg=7):
    """(rank, gain, P_ERR) along a list of (rank, gain)."""
    survive, out = 1.0, []
    for rank, gain in ranked:
        stop = gain / (hg + 1)
        out.append((rank, gain, stop * survive))
        survive *= 1 - stop
    return out


IDEAL_RANKED = list(enumerate(IDEAL, start=1))
RUN_CG = [7, 10, 13, 14]
HAND = {
    "Prec@3": 2 / 3,
    "AP@10": (1 / 1 + 2 / 3 + 3 / 5 + 4 / 6) / 4,
    "AP@3": (1 / 1 + 2 / 3) / 3,
    "RR": 1.0,
    "Q@10": sum(br(c, r, cg) for c, (r, _), cg in zip(range(1, 5), RUN, RUN_CG)) / 4,
    "Q(beta=0.5)@10": sum(br(c, r, cg, 0.5) for c, (r, _), cg in zip(range(1, 5), RUN, RUN_CG)) / 4,
    "nDCG@10": sum(g / LOG2(r + 1) for r, g in RUN) / sum(g / LOG2(r + 1) for r, g in IDEAL_RANKED),
    "nDCG@2": (7 / 1) / (7 + 3 / LOG2(3)),
    "ERR@10": sum(p / r for r, _, p in err_terms(RUN)),
    "nERR@10": sum(p / r for r, _, p in err_terms(RUN)) / sum(p / r for r, _, p in err_terms(IDEAL_RANKED)),
    "EBR@10": sum(p * br(c, r, cg) for c, (r, _, p), cg in zip(range(1, 5), err_terms(RUN), RUN_CG)),
    "RBP@10": (1 - 0.95) * sum(0.95 ** (r - 1) * g / 7 for r, g in RUN),
    "nRBP(p=0.8)@10": sum(0.8 ** (r - 1) * g for r, g in RUN) / sum(0.8 ** (r - 1) * g for r, g in IDEAL_RANKED),
    "iRBU@10": sum(p * 0.99 ** r for r, _, p in err_terms(RUN)),
    "niRBU@10": sum(p * 0.99 ** r for r, _, p in err_terms(RUN)) / sum(p * 0.99 ** r for r, _, p in err_terms(IDEAL_RANKED)),
}


@pytest.mark.parametrize("name", list(HAND))
def test_adhoc_measures_by_hand(name):
    got = scores(TINY / "ex.qrels", TINY / "RunA", [name], gain="1:3:7", order="file")
    assert got.loc["0001", divaleval.parse_measure(name).name] == pytest.approx(HAND[name], abs=1e-12)


def test_matches_the_worked_values():
    # examples/README.md, ad hoc RunA @10, topic 0001: Q 0.8730, MSnDCG 0.9255, nERR 0.9866.
    got = scores(TINY / "ex.qrels", TINY / "RunA", ["Q@10", "nDCG@10", "nERR@10"], gain="1:3:7", order="file")
    assert ["%.4f" % v for v in got.loc["0001"].iloc[1:]] == ["0.8730", "0.9255", "0.9866"]


def test_global_gain_d_measures_by_hand():
    # ex.Dqrels topic 0001 with P = 0.5, 0.3, 0.2 and gains 2^L - 1: GG(d1) = .5*7 + .2*1 = 3.7,
    # GG(d2) = .5*1 + .3*3 = 1.4, GG(d4) = .2*3 = 0.6, GG(d3) = .3*1 = 0.3 (examples/README.md).
    # RunA: d1, d5, d2, d7, d4, d3 -> GG 3.7, 0, 1.4, 0, 0.6, 0.3; ideal 3.7, 1.4, 0.6, 0.3.
    got = scores(TINY / "ex.Dqrels", TINY / "RunA", ["D-nDCG@10", "I-rec@2", "D#-nDCG@10", "D#-nDCG(gamma=0.25)@10"],
                 iprob=str(TINY / "ex.Iprob"), order="file")
    run = 3.7 + 1.4 / LOG2(4) + 0.6 / LOG2(6) + 0.3 / LOG2(7)
    ideal = 3.7 + 1.4 / LOG2(3) + 0.6 / LOG2(4) + 0.3 / LOG2(5)
    row = got.loc["0001"]
    assert row["D-nDCG@10"] == pytest.approx(run / ideal, abs=1e-12)
    assert row["I-rec@2"] == pytest.approx(2 / 3)  # d1 covers intents 1 and 3
    assert row["D#-nDCG@10"] == pytest.approx(0.5 * 1 + 0.5 * run / ideal, abs=1e-12)
    assert row["D#-nDCG(gamma=0.25)@10"] == pytest.approx(0.25 + 0.75 * run / ideal, abs=1e-12)


def test_intent_aware_by_hand():
    # ex.Dqrels topic 0002: intent 4 (P = 0.1) has no relevant document, so the weights used sum to 0.9.
    # RunA ranks e3, e1, e9, e2: intent 1 {e1 L2, e2 L1} -> Prec@2 = 1/2; intent 2 {e3 L3} -> 1/2;
    # intent 3 {e2 L2, e4 L1} -> 0.
    got = scores(TINY / "ex.Dqrels", TINY / "RunA", ["IA-Prec@2", "IA-RR"], iprob=str(TINY / "ex.Iprob"), order="file")
    assert got.loc["0002", "IA-Prec@2"] == pytest.approx(0.4 * 0.5 + 0.3 * 0.5 + 0.2 * 0)
    assert got.loc["0002", "IA-RR"] == pytest.approx(0.4 * 1 / 2 + 0.3 * 1 / 1 + 0.2 * 1 / 4)


NORMALISED = ["nDCG@5", "Q@5", "nERR@5", "nEBR@5", "nRBP@5", "niRBU@5", "AP", "RR", "nDCG", "Q"]


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("seed", range(6))
def test_ideal_list_scores_one(tmp_path, seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{j}" for j in range(12)]
    levels = rng.integers(0, 4, len(docs))
    levels[0] = 3
    qrels = write(tmp_path / "q.txt", [f"7 {d} L{lvl}" for d, lvl in zip(docs, levels)])
    gains = 2.0 ** levels - 1
    order = [docs[j] for j in np.argsort(-gains, kind="stable")]
    run = write(tmp_path / "r.txt", [f"7 Q0 {d} {r} {100 - r} ideal" for r, d in enumerate(order, 1)])
    got = scores(qrels, run, NORMALISED, order="file")
    assert np.allclose(got.loc["7", NORMALISED].to_numpy(dtype=float), 1.0, atol=1e-12)
    # The same with global gains: the D-measures of the GG-ordered list are 1 too.
    dqrels = write(tmp_path / "dq.txt", [f"7 {1 + j % 3} {d} L{lvl}" for j, (d, lvl) in enumerate(zip(docs, levels))])
    got = scores(dqrels, run, ["D-nDCG@5", "D-nERR@5"], order="file")
    assert np.allclose(got.loc["7", ["D-nDCG@5", "D-nERR@5"]].to_numpy(dtype=float), 1.0, atol=1e-12)


def test_d_sharp_gamma_limits():
    names = ["D#-nDCG(gamma=0)@10", "D-nDCG@10", "D#-Q(gamma=1)@10", "I-rec@10", "D#-RBU(gamma=0)@10", "D-iRBU@10"]
    got = scores(TINY / "ex.Dqrels", TINY / "RunB", names, iprob=str(TINY / "ex.Iprob"), order="file")
    columns = [divaleval.parse_measure(n).name for n in names]
    for a, b in zip(columns[::2], columns[1::2]):
        assert np.allclose(got[a], got[b], atol=1e-15), (a, b)


def test_one_intent_with_probability_one_makes_ia_equal_the_measure(tmp_path):
    lines = (TINY / "ex.qrels").read_text().split()
    triples = [lines[j:j + 3] for j in range(0, len(lines), 3)]
    dqrels = write(tmp_path / "dq.txt", [f"{t} 5 {d} {lvl}" for t, d, lvl in triples])
    iprob = write(tmp_path / "p.txt", ["0001 5 1", "0002 5 1"])
    pairs = [("IA-nDCG@10", "nDCG@10"), ("IA-Q@5", "Q@5"), ("IA-nERR@3", "nERR@3"), ("IA-RBP@10", "RBP@10"),
             ("IA-AP", "AP"), ("IA-RR", "RR"), ("IA-Prec@4", "Prec@4"), ("IA-iRBU@10", "iRBU@10")]
    got = scores(dqrels, TINY / "RunB", [n for pair in pairs for n in pair], iprob=str(iprob), order="file",
                 topicwise="max")
    for ia, plain in pairs:
        assert np.allclose(got[ia], got[plain], atol=1e-15), ia


def test_topicwise_rules(tmp_path):
    # One document relevant to two intents at levels 4 and 3: sumlog gives floor(log2 8) = 3, max gives 4.
    qrels = write(tmp_path / "q.txt", ["1 1 a 4", "1 2 a 3", "1 1 b 1"])
    run = write(tmp_path / "r.txt", ["1 Q0 b 1 2 r", "1 Q0 a 2 1 r"])
    for rule, level_a in (("sumlog", 3), ("max", 4)):
        got = scores(qrels, run, ["nDCG@2"], topicwise=rule)
        gain_a, gain_b = 2 ** level_a - 1, 1
        expected = (gain_b + gain_a / LOG2(3)) / (gain_a + gain_b / LOG2(3))
        assert got.loc["1", "nDCG@2"] == pytest.approx(expected)


def test_gain_tables(tmp_path):
    qrels = write(tmp_path / "q.txt", ["1 a L2", "1 b L1", "1 c L5"])
    run = write(tmp_path / "r.txt", ["1 Q0 b 1 2 r", "1 Q0 a 2 1 r", "1 Q0 c 3 0 r"])
    for table, gains in (("linear", (2, 1, 5)), ("exp", (3, 1, 31)), ("1:3:7", (3, 1, 7))):
        got = scores(qrels, run, ["nDCG@3"], gain=table)
        a, b, c = gains
        ideal = sorted(gains, reverse=True)
        expected = (b + a / LOG2(3) + c / 2) / (ideal[0] + ideal[1] / LOG2(3) + ideal[2] / 2)
        assert got.loc["1", "nDCG@3"] == pytest.approx(expected), table


def test_a_relevant_level_without_gain(tmp_path):
    """A gain table that gives level 1 no gain: the document judged L1 is relevant (a hit) but has no gain, so
    the gain list is not the hits' own (b: 0, a: 3, c at L5 clipped to the table's last level: 3)."""
    qrels = write(tmp_path / "q.txt", ["1 a L2", "1 b L1", "1 c L5"])
    run = write(tmp_path / "r.txt", ["1 Q0 b 1 2 r", "1 Q0 a 2 1 r", "1 Q0 c 3 0 r"])
    got = scores(qrels, run, ["nDCG@3", "nDCG@2"], gain="0:3")
    assert got.loc["1", "nDCG@3"] == pytest.approx((3 / LOG2(3) + 3 / 2) / (3 + 3 / LOG2(3)))
    assert got.loc["1", "nDCG@2"] == pytest.approx((3 / LOG2(3)) / (3 + 3 / LOG2(3)))


def test_bad_gain_and_compat_options():
    from conftest import run_cli

    bad = run_cli(["--gain", "1:x", "-m", "nDCG@5", TINY / "ex.qrels", TINY / "RunA"])
    assert bad.returncode == 2 and b"gain table" in bad.stderr
    ambiguous = run_cli(["-m", "nrbp@5", TINY / "ex.qrels", TINY / "RunA"])
    assert ambiguous.returncode == 2 and b"ambiguous" in ambiguous.stderr
