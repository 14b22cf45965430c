"""Intent types (NTCIR INTENT-2): DIN-, DIN#-measures, P+, P+Q and P+Q#, against NTCIREVAL.

References: NTCIREVAL's own DIN output for the upstream sample (its README.diversity
prints the DINnev lines of TRECRUN, topic 0001, cutoff 10); hand computations on
the upstream sample Dtest.DINprob / Dtest.Dqrels / TRECRUN (../shared/oracle/ntcireval/
examples/divtest), written out below; NTCIREVAL's per-intent P-plus and Q values
(the oracle's perintent tables), which DIN-NTCIR-PQeval combines into P+Q; and
NTCIREVAL's P-plus values of the D-measures and of the ad hoc measures.
"""
from __future__ import annotations

import csv
import math
from collections import defaultdict

import numpy as np
import pytest

import divaleval
from conftest import DATA, shared_path
from ntcireval_oracle import expected_values

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

TINY = DATA / "ntcireval" / "tiny"
TOLERANCE = 1e-4 + 1e-12  # NTCIREVAL prints 4 decimals
QUIET = {"warn": lambda message: None}


def r4(value: float) -> float:
    """printf("%.4f") read back: how NTCIREVAL's scripts pass values on."""
    return float(f"{value:.4f}")


def divtest():
    return shared_path("oracle", "ntcireval", "examples", "divtest")


def evaluate_divtest(measures, iprob="Dtest.DINprob", run="TRECRUN", **options):
    folder = divtest()
    return divaleval.evaluate(str(folder / "Dtest.Dqrels"), str(folder / run), measures=measures,
                              compat="ntcireval", iprob=str(folder / iprob), **QUIET, **options).set_index("topic")


# -- NTCIREVAL's own DIN output ------------------------------------------------------------

def test_ntcireval_readme_dinnev_lines():
    # NTCIREVAL's README.diversity, section 3.2: `DIN-NTCIR-eval Dtest.DINprob.tid test 10 l10` on TRECRUN
    # prints for topic 0001 (gcompute on dinlabel's gains, then DIN#): MSnDCG@0010 0.1117, Q@0010 0.0627,
    # ERR@0010 0.0958, nERR@0010 0.1578, RBP@0010 0.0352, EBR@0010 0.0944, I-rec@0010 0.6667,
    # DIN#-Q@0010 0.3647, DIN#-nDCG@0010 0.3892.
    expected = {"DIN-nDCG@10": 0.1117, "DIN-Q@10": 0.0627, "DIN-ERR@10": 0.0958, "DIN-nERR@10": 0.1578,
                "DIN-RBP@10": 0.0352, "DIN-EBR@10": 0.0944, "I-rec@10": 0.6667, "DIN#-Q@10": 0.3647,
                "DIN#-nDCG@10": 0.3892}
    frame = evaluate_divtest(list(expected))
    for name, value in expected.items():
        assert abs(frame.loc["0001", name] - value) <= TOLERANCE, name


# -- hand computations on the upstream sample --------------------------------------------------

# Dtest.DINprob: 0001: 1 nav .5714, 2 nav .2857, 3 inf .1429; 0002: 3 nav .1333, 4 nav .0667 (intents 1
# and 2 have no relevant document); 0003: 1 nav .5714, 2 nav .2857, 3 nav .1429. Every level is L1 (gain 1).
PROB = {"0001": {"1": .5714, "2": .2857, "3": .1429}, "0002": {"3": .1333, "4": .0667},
        "0003": {"1": .5714, "2": .2857, "3": .1429}}
NAV = {"0001": {"1", "2"}, "0002": {"3", "4"}, "0003": {"1", "2", "3"}}
# TRECRUN's top 10, rank -> intents of the document (the other ranks hold no relevant document).
TOP10 = {"0001": {3: {"2", "3"}, 4: {"2"}, 5: {"2", "3"}}, "0002": {2: {"4"}},
         "0003": {1: {"1"}, 2: {"1"}, 3: {"1"}, 6: {"1"}}}
# Relevant documents per set of intents (Dtest.Dqrels), which make the D-measures' ideal list.
GROUPS = {"0001": {("1", "3"): 2, ("2",): 13, ("2", "3"): 68, ("3",): 10}, "0002": {("3",): 3, ("4",): 7},
          "0003": {("1",): 110, ("1", "3"): 5, ("2",): 1, ("3",): 22}}


def test_hand_facts_hold_in_the_sample_files():
    # The constants above, recounted from the files by plain reading.
    folder = divtest()
    relevant = defaultdict(set)
    for line in open(folder / "Dtest.Dqrels"):
        topic, intent, docno, level = line.split()
        if level != "L0":
            assert level == "L1"
            relevant[topic, docno].add(intent)
    groups = defaultdict(lambda: defaultdict(int))
    for (topic, _), intents in relevant.items():
        groups[topic][tuple(sorted(intents))] += 1
    assert {t: dict(g) for t, g in groups.items()} == GROUPS
    top = defaultdict(list)
    for line in open(folder / "TRECRUN"):
        topic, _, docno, *_ = line.split()
        top[topic].append(docno)
    for topic, ranks in TOP10.items():
        found = {r + 1: relevant[topic, d] for r, d in enumerate(top[topic][:10]) if relevant.get((topic, d))}
        assert found == ranks
    for line in open(folder / "Dtest.DINprob"):
        topic, intent, prob, kind = line.split()
        if intent in PROB[topic]:
            assert float(prob) == PROB[topic][intent] and (kind == "nav") == (intent in NAV[topic])


def din_gains(topic):
    """GG' at ranks 1..10: informational intents always earn P(i); a navigational one only at its first document."""
    served, gains = set(), []
    for rank in range(1, 11):
        gain = 0.0
        for intent in sorted(TOP10[topic].get(rank, ())):
            if intent not in NAV[topic] or intent not in served:
                gain += PROB[topic][intent]
            served.add(intent)
        gains.append(gain)
    return gains


def ideal(topic):
    gg = [sum(PROB[topic][i] for i in intents) for intents, n in GROUPS[topic].items() for _ in range(n)]
    return sorted(gg, reverse=True)


def ms_ndcg(gains, best, k=10):
    dcg = sum(g / math.log2(r + 2) for r, g in enumerate(gains[:k]))
    return dcg / sum(g / math.log2(r + 2) for r, g in enumerate(best[:k]))


def q_at(gains, best, k=10):
    count = cumulative = ideal_cumulative = total = 0.0
    for r in range(1, k + 1):
        g = gains[r - 1] if r <= len(gains) else 0.0
        ideal_cumulative += best[r - 1] if r <= len(best) else 0.0
        cumulative += g
        if g > 0:
            count += 1
            total += (count + cumulative) / (r + ideal_cumulative)
    return total / min(k, len(best))


def p_plus(gains, best):
    top = max(gains)
    if top == 0:
        return 0.0
    rp = gains.index(top) + 1
    count = cumulative = ideal_cumulative = total = 0.0
    for r in range(1, rp + 1):
        g = gains[r - 1]
        ideal_cumulative += best[r - 1] if r <= len(best) else 0.0
        cumulative += g
        if g > 0:
            count += 1
            total += (count + cumulative) / (r + ideal_cumulative)
    return total / count


def hand_values(topic):
    gains = din_gains(topic)
    covered = set().union(*TOP10[topic].values())
    irec = r4(len(covered) / len(PROB[topic]))
    din_ndcg, din_q = r4(ms_ndcg(gains, ideal(topic))), r4(q_at(gains, ideal(topic)))
    pq = 0.0
    for intent, prob in PROB[topic].items():
        own = [1.0 if intent in TOP10[topic].get(r, ()) else 0.0 for r in range(1, 11)]
        best = [1.0] * sum(n for intents, n in GROUPS[topic].items() if intent in intents)
        pq += prob * r4(p_plus(own, best) if intent in NAV[topic] else q_at(own, best))
    pq = r4(pq)
    return {"I-rec@10": irec, "DIN-nDCG@10": din_ndcg, "DIN-Q@10": din_q,
            "DIN#-nDCG@10": r4(0.5 * irec + 0.5 * din_ndcg), "DIN#-Q@10": r4(0.5 * irec + 0.5 * din_q),
            "P+Q@10": pq, "P+Q#@10": r4(0.5 * irec + 0.5 * pq)}


def test_hand_computed_values_of_the_upstream_sample():
    # Topic 0001 by hand: GG' = .4286 (rank 3: intents 2 and 3 new), 0 (rank 4: nav intent 2 served),
    # .1429 (rank 5: inf intent 3 again); the ideal is 2 x .7143 then .4286. P+Q = .5714 x 0 (no document
    # for nav intent 1) + .2857 x P+_2 (rp = 3: BR(3) = 2/6) + .1429 x Q_3 ((2/6 + 4/10) / 10).
    expected = {topic: hand_values(topic) for topic in TOP10}
    assert expected["0001"]["DIN-nDCG@10"] == 0.1117 and expected["0001"]["DIN#-Q@10"] == 0.3647
    assert abs(expected["0001"]["P+Q@10"] - (.2857 * r4(2 / 6) + .1429 * r4((2 / 6 + 4 / 10) / 10))) < 1e-4
    names = list(expected["0001"])
    for run in ("TRECRUN", "TRECRUN2"):
        frame = evaluate_divtest(names, run=run)
        for topic, values in expected.items():
            for name, value in values.items():
                assert abs(frame.loc[topic, name] - value) <= TOLERANCE, (run, topic, name, value)
        means = divaleval.mean_rows(frame.reset_index())
        for name in names:  # NEV2mean: the mean of the 4-decimal values
            assert abs(means[name].item() - r4(sum(v[name] for v in expected.values()) / 3)) <= TOLERANCE


def test_without_types_every_measure_is_its_type_agnostic_form():
    # Dtest.Iprob (no 4th column): every intent informational, as DIN-splitqrels assumes. The DIN-measures then
    # match NTCIREVAL's D-measure values of the same sample, P+Q is IA-Q, P+Q# is 1/2 I-rec + 1/2 IA-Q.
    folder = divtest()
    mapping = {("MSnDCG", "D-NTCIR-eval"): "DIN-nDCG@{k}", ("Q", "D-NTCIR-eval"): "DIN-Q@{k}",
               ("nERR", "D-NTCIR-eval"): "DIN-nERR@{k}", ("ERR", "D-NTCIR-eval"): "DIN-ERR@{k}",
               ("RBP", "D-NTCIR-eval"): "DIN-RBP@{k}", ("EBR", "D-NTCIR-eval"): "DIN-EBR@{k}",
               ("iRBU", "D-NTCIR-eval"): "DIN-iRBU@{k}", ("D#-MSnDCG", "D-NTCIR-eval"): "DIN#-nDCG@{k}",
               ("D#-Q", "D-NTCIR-eval"): "DIN#-Q@{k}", ("D#-RBU", "D-NTCIR-eval"): "DIN#-RBU@{k}",
               ("IA-Q", "D-NTCIR-IAeval"): "P+Q@{k}", ("I-rec", "D-NTCIR-eval"): "I-rec@{k}"}
    expected = expected_values(folder / "expected" / "Dtest.cutoff10.tsv", mapping, 10)
    frame = evaluate_divtest(sorted({name for *_, name in expected} | {"P+Q#@10"}), iprob="Dtest.Iprob")
    for (run, topic, name), value in expected.items():
        if run == "TRECRUN":
            assert abs(frame.loc[topic, name] - value) <= TOLERANCE, (topic, name)
    for topic in TOP10:
        sharp = r4(0.5 * expected["TRECRUN", topic, "I-rec@10"] + 0.5 * expected["TRECRUN", topic, "P+Q@10"])
        assert abs(frame.loc[topic, "P+Q#@10"] - sharp) <= TOLERANCE


def test_types_change_nothing_in_the_type_agnostic_measures():
    names = ["D-nDCG@10", "D#-Q@10", "IA-Q@10", "I-rec@10"]
    assert evaluate_divtest(names).equals(evaluate_divtest(names, iprob="Dtest.Iprob"))


def test_native_din_equals_d_exactly_without_navigational_intents():
    folder = divtest()
    frame = divaleval.evaluate(str(folder / "Dtest.Dqrels"), str(folder / "TRECRUN"), iprob=str(folder / "Dtest.Iprob"),
                               measures=["DIN-nDCG@20", "D-nDCG@20", "DIN-nERR", "D-nERR", "P+Q@5", "IA-Q@5"], **QUIET)
    assert (frame["DIN-nDCG@20"] == frame["D-nDCG@20"]).all() and (frame["DIN-nERR"] == frame["D-nERR"]).all()
    assert (frame["P+Q@5"] == frame["IA-Q@5"]).all()


# -- P+ against NTCIREVAL's P-plus -----------------------------------------------------------------

def test_p_plus_of_the_d_and_ad_hoc_measures():
    # NTCIREVAL's gcompute prints P-plus on the list it is given: D-NTCIR-eval's is truncated at the cutoff (D-P+@k),
    # the ad hoc NTCIR-eval's is the whole list (P+).
    for cutoff in (10, 3):
        table = TINY / "expected" / f"ex.cutoff{cutoff}.tsv"
        d_values = expected_values(table, {("P-plus", "D-NTCIR-eval", "whole"): "D-P+@{k}"}, cutoff)
        adhoc = expected_values(table, {("P-plus", "NTCIR-eval-adhoc", "whole"): "P+"}, cutoff)
        assert d_values and adhoc
        for run in ("RunA", "RunB"):
            frame = divaleval.evaluate(str(TINY / "ex.Dqrels"), str(TINY / run), iprob=str(TINY / "ex.Iprob"),
                                       measures=[f"D-P+@{cutoff}"], compat="ntcireval", **QUIET).set_index("topic")
            adhoc_frame = divaleval.evaluate(str(TINY / "ex.qrels"), str(TINY / run), measures=["P+"], gain="1:3:7",
                                             compat="ntcireval", **QUIET).set_index("topic")
            for (name_run, topic, name), value in d_values.items():
                if name_run == run:
                    assert abs(frame.loc[topic, name] - value) <= TOLERANCE, (run, topic, name)
            for (name_run, topic, name), value in adhoc.items():
                if name_run == run:
                    assert abs(adhoc_frame.loc[topic, name] - value) <= TOLERANCE, (run, topic, name)


def test_p_plus_by_hand():
    # a L1, b L3, c L2 (gains 1, 7, 3); run x (unjudged), a, c, b. The largest gain, 7, is at rank 4 = rp.
    # Ideal 7, 3, 1: cg* = 7, 10, 11, 11. BR(2) = (1 + 1)/(2 + 10), BR(3) = (2 + 4)/(3 + 11), BR(4) = (3 + 11)/(4 + 11).
    qrels = divaleval.Qrels.from_arrays(["1"] * 3, None, ["a", "b", "c"], [1, 3, 2])
    run = divaleval.RunTable.from_arrays(["1"] * 4, ["x", "a", "c", "b"])
    frame = divaleval.evaluate(qrels, run, measures=["P+", "P+@3", "P+@1"], **QUIET)
    br2, br3, br4 = 2 / 12, 6 / 14, 14 / 15
    assert frame["P+"].item() == pytest.approx((br2 + br3 + br4) / 3, abs=1e-15)
    assert frame["P+@3"].item() == pytest.approx((br2 + br3) / 2, abs=1e-15)  # top 3: the largest gain is c's 3
    assert frame["P+@1"].item() == 0.0


# -- P+Q from NTCIREVAL's per-intent values ----------------------------------------------------------

def typed_iprob(source, target, navigational):
    """An iprob file with a 4th column: ``navigational(topic, intent)`` says nav, else inf."""
    lines = []
    for line in open(source):
        topic, intent, prob = line.split()[:3]
        lines.append(f"{topic} {intent} {prob} {'nav' if navigational(topic, intent) else 'inf'}\n")
    target.write_text("".join(lines))
    return target


def pq_from_per_intent(per_intent_table, types, irec):
    """DIN-NTCIR-PQeval's sum: P(i) x (P-plus_i if nav else Q@k_i) over the intents NTCIREVAL evaluated, printed
    %.4f; and NEVIAPQ2sharpnev's P+Q# = 1/2 I-rec + 1/2 P+Q, printed %.4f."""
    sums = defaultdict(float)
    with open(per_intent_table) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            nav = types(row["topic"], row["intent"])
            if (nav and row["measure"] == "P-plus") or (not nav and row["measure"].startswith("Q@")):
                sums[row["run"], row["topic"]] += float(row["prob"]) * float(row["value"])
    pq = {key: r4(value) for key, value in sums.items()}
    return pq, {key: r4(0.5 * irec[key] + 0.5 * value) for key, value in pq.items()}


@pytest.mark.parametrize("cutoff", [10, 3])
def test_tiny_p_plus_q(tmp_path, cutoff):
    types = lambda topic, intent: intent in ("1", "3")  # noqa: E731
    iprob = typed_iprob(TINY / "ex.Iprob", tmp_path / "ex.DINprob", types)
    irec = {(run, topic): value for (run, topic, _), value in
            expected_values(TINY / "expected" / f"ex.cutoff{cutoff}.tsv", {("I-rec", "D-NTCIR-eval"): "I"},
                            cutoff).items()}
    pq, sharp = pq_from_per_intent(TINY / "expected" / f"ex.perintent.cutoff{cutoff}.tsv", types, irec)
    assert len(pq) == 4
    for run in ("RunA", "RunB"):
        frame = divaleval.evaluate(str(TINY / "ex.Dqrels"), str(TINY / run), iprob=str(iprob), compat="ntcireval",
                                   measures=[f"P+Q@{cutoff}", f"P+Q#@{cutoff}"], **QUIET).set_index("topic")
        for (name_run, topic), value in pq.items():
            if name_run == run:
                assert abs(frame.loc[topic, f"P+Q@{cutoff}"] - value) <= TOLERANCE, (run, topic)
                assert abs(frame.loc[topic, f"P+Q#@{cutoff}"] - sharp[run, topic]) <= TOLERANCE, (run, topic)


@pytest.mark.slow
def test_trec2012_p_plus_q(tmp_path):
    # TREC 2012 has no intent types: subtopics with an odd number are called navigational here.
    oracle = shared_path("oracle", "ntcireval", "trec2012")
    runs_dir = shared_path("data", "trec-web", "2012", "baseline-runs")
    types = lambda topic, intent: int(intent) % 2 == 1  # noqa: E731
    iprob = typed_iprob(oracle / "trec2012.Iprob", tmp_path / "trec2012.DINprob", types)
    irec = {(run, topic): value for (run, topic, _), value in
            expected_values(oracle / "trec2012.cutoff10.tsv", {("I-rec", "D-NTCIR-eval"): "I"}, 10).items()}
    pq, sharp = pq_from_per_intent(oracle / "trec2012.perintent.cutoff10.tsv", types, irec)
    qrels = divaleval.load_qrels(str(oracle / "trec2012.Dqrels"), str(iprob), **QUIET)
    checked = 0
    for run, path in {"ql-cata": "ql/results-cata.txt", "rm-catb-filtered": "rm/results-catb-filtered.txt"}.items():
        frame = divaleval.evaluate(qrels, str(runs_dir / path), measures=["P+Q@10", "P+Q#@10"], compat="ntcireval",
                                   **QUIET).set_index("topic")
        for (name_run, topic), value in pq.items():
            if name_run == run:
                assert abs(frame.loc[topic, "P+Q@10"] - value) <= TOLERANCE, (run, topic)
                assert abs(frame.loc[topic, "P+Q#@10"] - sharp[run, topic]) <= TOLERANCE, (run, topic)
                checked += 1
    assert checked == 100


# -- repeated documents, as NTCIREVAL reads them ---------------------------------------------------

def test_a_repeated_document_serves_a_navigational_intent_once():
    # --compat ntcireval keeps a repeated docno at each of its ranks (dinlabel labels every line): its nav
    # share is earned at the first copy only, its inf share at both. Intent 1 nav (.6), 2 inf (.4); d relevant
    # to both (L1), e to intent 1. Run: d, d, e -> GG' = 1.0, .4, 0.
    qrels = divaleval.Qrels.from_arrays(["1"] * 3, ["1", "2", "1"], ["d", "d", "e"], [1, 1, 1])
    iprob = divaleval.io.IntentProbabilities("mem", np.array(["1", "1"], dtype=object), np.array(["1", "2"], dtype=object),
                                             np.array([.6, .4]), np.array(["nav", "inf"], dtype=object), np.array([1, 2]))
    run = divaleval.RunTable.from_arrays(["1"] * 3, ["d", "d", "e"])
    frame = divaleval.evaluate(qrels, run, measures=["DIN-nDCG@3", "D-nDCG@3"], compat="ntcireval", iprob=iprob,
                               **QUIET)
    best = [1.0, 0.6]  # the ideal: d (GG 1.0), e (.6)
    dcg = 1.0 + 0.4 / math.log2(3)
    assert abs(frame["DIN-nDCG@3"].item() - r4(dcg / (best[0] + best[1] / math.log2(3)))) <= TOLERANCE
    assert abs(frame["D-nDCG@3"].item() - r4((1.0 + 1.0 / math.log2(3) + 0.6 / 2) / (1.0 + 0.6 / math.log2(3)))) \
        <= TOLERANCE


def test_the_intent2_set_on_the_command_line():
    from click.testing import CliRunner

    from divaleval.cli import main_group

    folder = divtest()
    result = CliRunner().invoke(main_group, ["-q", "-m", "intent2", "--compat", "ntcireval", "--iprob",
                                             str(folder / "Dtest.DINprob"), str(folder / "Dtest.Dqrels"),
                                             str(folder / "TRECRUN")])
    assert result.exit_code == 0, result.output
    header, first = result.output.splitlines()[:2]
    assert header == "runid,topic,I-rec@10,D-nDCG@10,D#-nDCG@10,DIN-nDCG@10,DIN#-nDCG@10,P+Q@10,P+Q#@10"
    hand = hand_values("0001")
    # D-nDCG@10 and D#-nDCG@10 of topic 0001: NTCIREVAL's 0.2085 and 0.4376 (oracle divtest).
    assert first == ",".join(["TRECRUN", "0001", *(f"{v:.6f}" for v in (
        hand["I-rec@10"], 0.2085, 0.4376, hand["DIN-nDCG@10"], hand["DIN#-nDCG@10"], hand["P+Q@10"],
        hand["P+Q#@10"]))])
