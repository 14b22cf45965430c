"""RBU and GAP: the authors' reference outputs, hand computations and relations."""
from __future__ import annotations

import csv
import math
from collections import defaultdict

import numpy as np
import pytest

import divaleval
from conftest import DATA, shared_path

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

TINY = DATA / "ntcireval" / "tiny"
RUNS = {"ql-cata": "ql/results-cata.txt", "ql-catb": "ql/results-catb.txt", "rm-cata": "rm/results-cata.txt",
        "rm-catb": "rm/results-catb.txt", "ql-cata-filtered": "ql/results-cata-filtered.txt",
        "rm-catb-filtered": "rm/results-catb-filtered.txt"}


def quiet(*args, **kwargs):
    return divaleval.evaluate(*args, warn=lambda message: None, **kwargs)


def test_rbu_reproduces_the_authors_program():
    table = shared_path("oracle", "rbu", "trec2012", "trec2012.rbu.tsv")
    iprob = shared_path("oracle", "ntcireval", "trec2012", "trec2012.Iprob")
    data = shared_path("data", "trec-web", "2012")
    expected = defaultdict(dict)
    with open(table) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            key = (row["topic"], int(row["k"]), row["p"], row["e"])
            expected[row["run"]][key] = (float(row["rbu_paper"]), float(row["value_full"]))
    settings = {key[1:] for rows in expected.values() for key in rows}
    names = [f"RBU(p={p},e={e}{scale})@{k}" for k, p, e in settings for scale in ("", ",scale=program")]
    qrels = divaleval.load_qrels(str(data / "qrels.diversity.txt"), str(iprob), warn=lambda message: None)
    checked = 0
    for run, path in RUNS.items():
        frame = quiet(qrels, str(data / "baseline-runs" / path), measures=names, order="file").set_index("topic")
        for (topic, k, p, e), (paper, program) in expected[run].items():
            paper_name = divaleval.parse_measure(f"RBU(p={p},e={e})@{k}").name
            program_name = divaleval.parse_measure(f"RBU(p={p},e={e},scale=program)@{k}").name
            assert frame.loc[topic, paper_name] == pytest.approx(paper, abs=1e-6)
            assert frame.loc[topic, program_name] == pytest.approx(program, abs=1e-6)
            checked += 1
    assert checked == 2700


def test_gap_reproduces_the_trec_session_script():
    folder = shared_path("oracle", "gap", "trec2012")
    runs = shared_path("data", "trec-web", "2012", "baseline-runs")
    qrels = divaleval.load_qrels(str(folder / "trec2012.topicwise.maxclip3.qrels"), warn=lambda message: None)
    expected = defaultdict(dict)
    with open(folder / "trec2012.gap.tsv") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            name = f"GAP@{row['k']}" if row["g"].startswith("1/3") else f"GAP(g=0.5:0.25:0.25)@{row['k']}"
            expected[row["run"]][(row["topic"], name)] = (float(row["GAP_full"]), int(row["k"]), float(row["AP_full"]))
    names = sorted({name for rows in expected.values() for (_, name) in rows}) + ["AP"]
    checked = 0
    for run, path in RUNS.items():
        frame = quiet(qrels, str(runs / path), measures=names, order="file").set_index("topic")
        for (topic, name), (value, k, ap) in expected[run].items():
            assert frame.loc[topic, name] == pytest.approx(value, abs=1e-6)
            if k == 1000:  # the script's AP on the full run is ordinary AP
                assert frame.loc[topic, "AP"] == pytest.approx(ap, abs=1e-12)
            checked += 1
    assert checked == 1800


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_rbu_by_hand(tmp_path):
    # Two intents, P = 0.6 / 0.4. Intent 1: a L2, b L1 (Lmax 2); intent 2: b L3 (Lmax 3).
    # r(a,1) = 3/4, r(b,1) = 1/4, r(b,2) = 7/8. Run: x (unjudged), a, b.
    qrels = write(tmp_path / "q.txt", ["1 1 a 2", "1 1 b 1", "1 2 b 3"])
    iprob = write(tmp_path / "p.txt", ["1 1 0.6", "1 2 0.4"])
    run = write(tmp_path / "r.txt", ["1 Q0 x 1 3 r", "1 Q0 a 2 2 r", "1 Q0 b 3 1 r"])
    p, e = 0.9, 0.05
    utility = p ** 2 * 0.6 * 0.75 + p ** 3 * (0.6 * 0.25 * (1 - 0.75) + 0.4 * 0.875)
    expected = utility - e * (p + p ** 2 + p ** 3)
    frame = quiet(str(qrels), str(run), measures=["RBU(p=0.9,e=0.05)", "RBU(p=0.9,e=0.05)@2",
                                                  "RBU(p=0.9,e=0.05,scale=program)"], iprob=str(iprob))
    row = frame.iloc[0]
    assert row.iloc[2] == pytest.approx(expected, abs=1e-12)
    assert row.iloc[3] == pytest.approx(p ** 2 * 0.6 * 0.75 - e * (p + p ** 2), abs=1e-12)
    assert row.iloc[4] == pytest.approx(expected * 0.1 / 0.9, abs=1e-12)


def test_rbu_relations():
    names = ["RBU(p=1,e=0)@3", "RBU(p=0.95,e=0)@10", "IA-iRBU(p=0.95)@10"]
    frame = quiet(str(TINY / "ex.Dqrels"), str(TINY / "RunB"), measures=names, iprob=str(TINY / "ex.Iprob"),
                  order="file").set_index("topic")
    frame.columns = ["runid", *names]
    # e = 0, p = 1: sum_i P(i) (1 - prod_{r<=k} (1 - r(d_r, i))). RunB 0001 top 3: d5 (L0), d6 (L0), d3:
    # d3 is L1 for intent 2 (Lmax 2): r = 1/4, so 0.3 * 1/4.
    assert frame.loc["0001", "RBU(p=1,e=0)@3"] == pytest.approx(0.3 * 0.25, abs=1e-12)
    # RunB 0002 top 3: e5 (L0), e4 (intent 3, L1 of Lmax 2: 1/4), e2 (intent 1 L1 of Lmax 2: 1/4;
    # intent 3 L2: 3/4): intent 1: 1/4; intent 3: 1 - (3/4)(1/4).
    assert frame.loc["0002", "RBU(p=1,e=0)@3"] == pytest.approx(0.4 * 0.25 + 0.2 * (1 - 0.75 * 0.25), abs=1e-12)
    assert np.allclose(frame["RBU(p=0.95,e=0)@10"], frame["IA-iRBU(p=0.95)@10"], atol=1e-15)


def test_gap_by_hand(tmp_path):
    # Grades a 3, b 2, c 1, d 0, f 3; run (runA): a, c, d, b, f, g (unjudged). docs/worked-examples.md, sec. 2,
    # works it out: 141/180.
    qrels = write(tmp_path / "q.txt", ["1 0 a 3", "1 0 b 2", "1 0 c 1", "1 0 d 0", "1 0 f 3"])
    run = write(tmp_path / "r.txt", [f"1 Q0 {d} {r} {10 - r} runA" for r, d in enumerate("acdbfg", 1)])
    G = {1: 1 / 3, 2: 2 / 3, 3: 1.0}
    grades = [3, 1, 0, 2, 3, 0]
    numerator = sum(sum(G[min(cm, cn)] for cm in grades[:n] if cm) / n
                    for n, cn in enumerate(grades, 1) if cn)
    expected = numerator / (1 * G[1] + 1 * G[2] + 2 * G[3])
    frame = quiet(str(qrels), str(run), measures=["GAP", "GAP(g=1)", "AP"])
    assert frame["GAP"].item() == pytest.approx(expected, abs=1e-12)
    # One grade (all thresholds at grade 1): GAP is AP.
    assert frame["GAP(g=1)"].item() == pytest.approx(frame["AP"].item(), abs=1e-15)


def test_gap_of_an_ideal_ordering_is_one(tmp_path):
    rng = np.random.default_rng(3)
    grades = rng.integers(0, 4, 15)
    grades[0] = 3
    qrels = write(tmp_path / "q.txt", [f"1 0 d{j} {g}" for j, g in enumerate(grades)])
    order = np.argsort(-grades, kind="stable")
    run = write(tmp_path / "r.txt", [f"1 Q0 d{j} {r} {100 - r} ideal" for r, j in enumerate(order, 1)])
    frame = quiet(str(qrels), str(run), measures=["GAP", "GAP(g=0.2:0.3:0.5)"])
    assert frame.iloc[0, 2:].tolist() == pytest.approx([1.0, 1.0], abs=1e-12)


def test_bad_parameters():
    from conftest import run_cli

    for bad, reason in (("GAP(g=0.5:0.4)", "sum to 1"), ("RBU(p=0)", "(0, 1]"), ("RBU(scale=jar)", "paper")):
        result = run_cli(["-m", bad, TINY / "ex.qrels", TINY / "RunA"])
        assert result.returncode == 2 and reason.encode() in result.stderr, bad


def test_on_trec_2014_with_the_ndeval_set():
    data = shared_path("data", "trec-web")
    from conftest import run_cli

    # The 2012 runs answer other topics than 2014's: with -c every 2014 topic prints (zero rows).
    result = run_cli(["-c", "-m", "ndeval", "-m", "RBU@20,GAP@20,D#-nDCG@20", data / "2014" / "qrels.all.txt",
                      data / "2012" / "baseline-runs" / "ql" / "results-cata.txt"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    header = lines[0].split(",")
    assert header[-3:] == ["RBU@20", "GAP@20", "D#-nDCG@20"] and "alpha-nDCG@20" in header
    assert len(lines) == 1 + 50 + 1 and b"topics not in the qrels are ignored" in result.stderr
    # And on the 2012 qrels, graded -2..4, the same call scores the same run.
    result = run_cli(["-q", "-m", "ndeval", "-m", "RBU@20,GAP@20,D#-nDCG@20", data / "2012" / "qrels.diversity.txt",
                      data / "2012" / "baseline-runs" / "ql" / "results-cata.txt"])
    mean = [float(v) for v in result.stdout.decode().splitlines()[-1].split(",")[2:]]
    assert result.returncode == 0 and all(not math.isnan(v) for v in mean) and mean[-1] > 0


# ex.Dqrels topic 0001, P = (.5, .3, .2); Lmax: intent 1 L3, intents 2 and 3 L2, so r(d, i):
# d1: i1 7/8, i3 1/4; d2: i1 1/8, i2 3/4; d4: i3 3/4; d3: i2 1/4.
# RunA: d1, d5 (L0), d2, d7 (unjudged), d4, d3 at ranks 1..6; alpha = 0.5.
TERMS = {1: 0.5 * 7 / 8 + 0.2 * 1 / 4,           # d1, nothing seen before
         3: 0.5 * 1 / 8 * 0.5 + 0.3 * 3 / 4,     # d2: intent 1 seen once
         5: 0.2 * 3 / 4 * 0.5,                   # d4: intent 3 seen once
         6: 0.3 * 1 / 4 * 0.5}                   # d3: intent 2 seen once


def aspect_scores(names):
    frame = quiet(str(TINY / "ex.Dqrels"), str(TINY / "RunA"), measures=names, iprob=str(TINY / "ex.Iprob"),
                  order="file").set_index("topic")
    frame.columns = ["runid", *names]
    return frame


def test_eu_ct_and_srr_by_hand():
    got = aspect_scores(["EU", "EU(e=0)@3", "CT@10", "CT(level=0.9)@10", "S-RR@100%"])
    eu = sum(term / (1 + math.log2(r)) for r, term in TERMS.items()) - 0.01 * 6
    assert got.loc["0001", "EU"] == pytest.approx(eu, abs=1e-12)
    assert got.loc["0001", "EU(e=0)@3"] == pytest.approx(TERMS[1] + TERMS[3] / (1 + math.log2(3)), abs=1e-12)
    assert got.loc["0001", "CT@10"] == pytest.approx(sum(term / r for r, term in TERMS.items()), abs=1e-12)
    # With a saturation level of 0.9, intent 1 is saturated after d1 (7/8 < 0.9: not yet) ... and after
    # d2 (7/8 + 1/8 = 1): d2 still counts for intent 1; later documents gain nothing from intent 1.
    assert got.loc["0001", "CT(level=0.9)@10"] == pytest.approx(sum(term / r for r, term in TERMS.items()), abs=1e-12)
    # d1 covers intents 1 and 3, d2 intent 2 at rank 3; topic 0002 (intent 4 has no relevant
    # document) is complete at rank 4 (e3, e1, e9, e2).
    assert got.loc["0001", "S-RR@100%"] == pytest.approx(1 / 3)
    assert got.loc["0002", "S-RR@100%"] == pytest.approx(1 / 4)


def test_cube_test_at_cutoffs_above_the_last_hit_by_hand(tmp_path):
    """CT at cutoffs that end above the ranking's last hit reads only the first hits (d1 at rank 1, d2 at rank
    3 within 4): the same terms; and a cutoff above every hit scores 0."""
    got = aspect_scores(["CT@2", "CT@4", "CT(level=0.9)@4"])
    assert got.loc["0001", "CT@2"] == pytest.approx(TERMS[1], abs=1e-12)
    assert got.loc["0001", "CT@4"] == pytest.approx(TERMS[1] + TERMS[3] / 3, abs=1e-12)
    assert got.loc["0001", "CT(level=0.9)@4"] == pytest.approx(TERMS[1] + TERMS[3] / 3, abs=1e-12)
    run = tmp_path / "run"  # d5 (L0) and d7 (unjudged) above d1
    run.write_text("".join(f"0001 Q0 {doc} {rank} {10 - rank} r\n" for rank, doc in enumerate(["d5", "d7", "d1"], 1)))
    frame = quiet(str(TINY / "ex.Dqrels"), str(run), measures=["CT@2", "CT@3"], iprob=str(TINY / "ex.Iprob"),
                  order="file").set_index("topic")
    assert frame.loc["0001", "CT@2"] == 0.0
    assert frame.loc["0001", "CT@3"] == pytest.approx(TERMS[1] / 3, abs=1e-12)
    frame = quiet(str(TINY / "ex.Dqrels"), str(run), measures=["CT@2"], iprob=str(TINY / "ex.Iprob"),
                  order="file").set_index("topic")
    assert frame.loc["0001", "CT@2"] == 0.0


def test_srr_is_zero_when_an_intent_is_never_covered(tmp_path):
    qrels = write(tmp_path / "q.txt", ["1 1 a 1", "1 2 b 1"])
    run = write(tmp_path / "r.txt", ["1 Q0 a 1 2 r", "1 Q0 c 2 1 r"])
    assert quiet(str(qrels), str(run), measures=["S-RR@100%"]).iloc[0, 2] == 0.0


def test_weighted_graded_alpha_ndcg_by_hand(tmp_path):
    # Intent 1 (P .7): a L2, b L1 -> r = 3/4, 1/4; intent 2 (P .3): b L1, its best -> r = 1/2.
    qrels = write(tmp_path / "q.txt", ["1 1 a 2", "1 1 b 1", "1 2 b 1"])
    iprob = write(tmp_path / "p.txt", ["1 1 0.7", "1 2 0.3"])
    run = write(tmp_path / "r.txt", ["1 Q0 b 1 2 r", "1 Q0 a 2 1 r"])
    run_dcg = (0.7 * 0.25 + 0.3 * 0.5) + 0.7 * 0.75 * 0.5 / math.log2(3)
    ideal_dcg = 0.7 * 0.75 + (0.7 * 0.25 * 0.5 + 0.3 * 0.5) / math.log2(3)  # greedy: a (0.525) before b
    frame = quiet(str(qrels), str(run), measures=["wg-alpha-nDCG@2"], iprob=str(iprob))
    assert frame.iloc[0, 2] == pytest.approx(run_dcg / ideal_dcg, abs=1e-12)


def test_weighted_graded_alpha_ndcg_is_alpha_ndcg_on_binary_uniform_qrels():
    from conftest import NDEVAL_EXAMPLES as EX

    # qrels.txt topics 2 and 3 are binary; topic 1 is graded (levels 2 and 3), so it differs.
    frame = quiet(str(EX / "qrels.txt"), str(EX / "runB.txt"),
                  measures=["alpha-nDCG@5", "wg-alpha-nDCG@5", "alpha-nDCG(alpha=0.8)@20",
                            "wg-alpha-nDCG(alpha=0.8)@20"]).set_index("topic")
    for topic in ("2", "3"):
        row = frame.loc[topic].iloc[1:].to_numpy(dtype=float)
        assert row[0] == pytest.approx(row[1], abs=1e-12) and row[2] == pytest.approx(row[3], abs=1e-12)
    assert frame.loc["1"].iloc[1] != pytest.approx(frame.loc["1"].iloc[2], abs=1e-6)
