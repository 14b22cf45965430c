"""TOMA, CAM and MM: the paper's worked example and Table 3, its properties, and CLEF eHealth."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import divaleval
from conftest import run_cli, shared_path
from divaleval import load_aspects
from divaleval.measures.multiaspect.spaces import label_space, toma_weights
from divaleval.model import Aspect

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

# The paper's example (sec. 3.4): relevance nr, mr, fr, hr = 0..3; correctness nc, pc, c = 0, 1, 2,
# embedded 0, 1.5, 3. d1 = (mr, c), d2 = (hr, pc), d3 = (hr, nc).
DOCS = {"d1": (1, 2), "d2": (3, 1), "d3": (3, 0)}
RELEVANCE = Aspect("relevance", (0, 1, 2, 3))
CORRECTNESS = Aspect("correctness", (0, 1, 2), (0.0, 1.5, 3.0))

# Table 3, columns CAM, MM, EUCL, MANH, CHEB (AP with the harsh mapping / top half; NDCG).
TABLE3 = {
    "AP": {
        ("d1", "d2", "d3"): (0.7917, 0.3684, 1, 1, 0.5), ("d1", "d3", "d2"): (0.7917, 0.3684, 0.8333, 0.8333, 0.3333),
        ("d2", "d1", "d3"): (0.6667, 0.3125, 1, 1, 1), ("d2", "d3", "d1"): (0.6667, 0.25, 0.8333, 0.8333, 1),
        ("d3", "d1", "d2"): (0.6667, 0.3125, 0.5833, 0.5833, 0.3333), ("d3", "d2", "d1"): (0.6667, 0.25, 0.5833, 0.5833, 0.5),
        ("d1", "d2"): (0.6250, 0.25, 1, 1, 0.5), ("d1", "d3"): (0.6250, 0.25, 0.5, 0.5, 0),
        ("d2", "d1"): (0.5, 0.25, 1, 1, 1), ("d2", "d3"): (0.5, 0, 0.5, 0.5, 1),
        ("d3", "d1"): (0.5, 0.25, 0.25, 0.25, 0), ("d3", "d2"): (0.5, 0, 0.25, 0.25, 0.5),
        ("d1",): (0.5, 0, 0.5, 0.5, 0), ("d2",): (0.25, 0, 0.5, 0.5, 1), ("d3",): (0.25, 0, 0, 0, 0),
    },
    "nDCG": {
        ("d1", "d2", "d3"): (0.9073, 0.4489, 0.9367, 0.9711, 0.8597),
        ("d1", "d3", "d2"): (0.8824, 0.4386, 0.8917, 0.9404, 0.7602),
        ("d2", "d1", "d3"): (0.9056, 0.4516, 1, 1, 1), ("d2", "d3", "d1"): (0.8801, 0.4319, 0.9775, 0.9795, 0.9502),
        ("d3", "d1", "d2"): (0.8106, 0.3930, 0.8284, 0.8827, 0.6199),
        ("d3", "d2", "d1"): (0.8100, 0.3827, 0.8509, 0.8929, 0.6697),
        ("d1", "d2"): (0.7682, 0.3491, 0.8080, 0.8147, 0.8597), ("d1", "d3"): (0.6483, 0.3145, 0.5914, 0.6667, 0.3801),
        ("d2", "d1"): (0.7665, 0.3776, 0.8713, 0.8436, 1), ("d2", "d3"): (0.6437, 0.2679, 0.7630, 0.7449, 0.7602),
        ("d3", "d1"): (0.5765, 0.2801, 0.5281, 0.6089, 0.2398), ("d3", "d2"): (0.5735, 0.1897, 0.6364, 0.6583, 0.4796),
        ("d1",): (0.4728, 0.1491, 0.4290, 0.4693, 0.3801), ("d2",): (0.4682, 0.2258, 0.6006, 0.5475, 0.7602),
        ("d3",): (0.2781, 0, 0.2574, 0.3129, 0),
    },
}
# CAM and MM use per-aspect gains: for AP the paper's harsh mapping ({fr, hr} and c relevant), for
# NDCG hr 15, fr 10, mr 5 and c 10, pc 5.
ASPECT_GAINS = {"AP": ("0:0:1:1", "0:0:1"), "nDCG": ("0:5:10:15", "0:5:10")}
# Two MM cells of the paper's Table 3 contradict its own CAM column: for (d1,d2) and (d1,d3),
# CAM 0.6250 means AP(relevance) = 0.25 and AP(correctness) = 1 (d1 is the only correct document,
# at rank 1), so 1/(1/0.25 + 1/1) = 0.2, while the table prints 0.25. Every other MM cell is
# 1/sum_a(1/M_a); we print 0.2 there.
TABLE3_MM_ERRATA = {("d1", "d2"): 0.2, ("d1", "d3"): 0.2}


def example(tmp_path, measure):
    relevance, correctness = tmp_path / "rel.txt", tmp_path / "cor.txt"
    relevance.write_text("".join(f"t 0 {d} {r}\n" for d, (r, _) in DOCS.items()))
    correctness.write_text("".join(f"t 0 {d} {c}\n" for d, (_, c) in DOCS.items()))
    rel_gains, cor_gains = ASPECT_GAINS[measure]
    return load_aspects([f"relevance={relevance},labels=0:1:2:3,gains={rel_gains}",
                         f"correctness={correctness},labels=0:1:2,embed=0:1.5:3,gains={cor_gains}"])


def test_euclidean_class_order_of_table_1():
    weight, n = toma_weights([RELEVANCE, CORRECTNESS], label_space([RELEVANCE, CORRECTNESS], "paper"), "euclidean")
    by_weight = sorted(weight, key=weight.get, reverse=True)
    # (3,3) (2,3) (3,3/2) (2,3/2) (1,3) (1,3/2) (3,0) (2,0) (1,0) (0,0), in labels.
    assert by_weight == [(3, 2), (2, 2), (3, 1), (2, 1), (1, 2), (1, 1), (3, 0), (2, 0), (1, 0), (0, 0)]
    assert n == 10 and [weight[DOCS[d]] for d in ("d1", "d2", "d3")] == [5, 7, 3]
    cheb, n_cheb = toma_weights([RELEVANCE, CORRECTNESS], label_space([RELEVANCE, CORRECTNESS], "paper"), "chebyshev")
    assert n_cheb == 5 and [cheb[DOCS[d]] for d in ("d1", "d2", "d3")] == [1, 2, 0]


@pytest.mark.parametrize("measure", ["AP", "nDCG"])
def test_table_3(tmp_path, measure):
    qrels = example(tmp_path, measure)
    binary = ",binary=tophalf" if measure == "AP" else ""
    names = [f"CAM(m={measure})", f"MM(m={measure},form=table)"] + [
        f"TOMA(m={measure},dist={d},space=paper{binary})" for d in ("euclidean", "manhattan", "chebyshev")]
    lines = [f"t Q0 {d} {r} {10 - r} {'-'.join(ranking)}"
             for ranking in TABLE3[measure] for r, d in enumerate(ranking, 1)]
    for ranking, expected in TABLE3[measure].items():
        run = tmp_path / f"{'-'.join(ranking)}.txt"
        run.write_text("".join(line + "\n" for line in lines if line.endswith(" " + "-".join(ranking))))
        frame = divaleval.evaluate(qrels, str(run), measures=names, order="file", warn=lambda message: None)
        if measure == "AP" and ranking in TABLE3_MM_ERRATA:
            expected = (expected[0], TABLE3_MM_ERRATA[ranking], *expected[2:])
        got = ["%.4f" % v for v in frame.iloc[0, 2:]]
        assert got == ["%.4f" % v for v in expected], (ranking, got)


def test_mm_forms(tmp_path):
    # The paper's eq. 6 (the default) is the table's value times |A| = 2.
    qrels = example(tmp_path, "AP")
    run = tmp_path / "r.txt"
    run.write_text("t Q0 d1 1 3 r\nt Q0 d2 2 2 r\nt Q0 d3 3 1 r\n")
    frame = divaleval.evaluate(qrels, str(run), measures=["MM(m=AP)", "MM(m=AP,form=table)", "CAM(m=AP)"],
                               order="file", warn=lambda message: None)
    eq6, table, cam = frame.iloc[0, 2:]
    assert eq6 == pytest.approx(2 * table) and table == pytest.approx(1 / (1 / (7 / 12) + 1 / 1))
    assert cam == pytest.approx((7 / 12 + 1) / 2)


@pytest.mark.parametrize("dist", ["euclidean", "manhattan", "chebyshev"])
def test_ideal_ordering_scores_one_and_dominance(tmp_path, dist):
    rng = np.random.default_rng(1)
    aspects = [Aspect("a", (0, 1, 2, 3)), Aspect("b", (0, 1, 2), (0.0, 1.5, 3.0)), Aspect("c", (0, 1))]
    weight, _ = toma_weights(aspects, label_space(aspects), dist)
    # A tuple at least as good on every aspect never weighs less.
    for s, t in itertools.product(weight, repeat=2):
        if all(x >= y for x, y in zip(s, t)):
            assert weight[s] >= weight[t], (s, t)
    docs = {f"d{j}": tuple(int(rng.integers(0, len(a.labels))) for a in aspects) for j in range(12)}
    for j, aspect in enumerate(aspects):
        (tmp_path / f"{aspect.name}.txt").write_text("".join(f"1 0 {d} {labels[j]}\n" for d, labels in docs.items()))
    qrels = load_aspects([f"a={tmp_path / 'a.txt'},labels=0:1:2:3", f"b={tmp_path / 'b.txt'},labels=0:1:2,embed=0:1.5:3",
                          f"c={tmp_path / 'c.txt'},labels=0:1"])
    order = sorted(docs, key=lambda d: -weight[docs[d]])
    run = tmp_path / "run.txt"
    run.write_text("".join(f"1 Q0 {d} {r} {100 - r} ideal\n" for r, d in enumerate(order, 1)))
    names = [f"TOMA(m={m},dist={dist})" for m in ("nDCG", "AP", "ERR", "RBP", "Q")]
    frame = divaleval.evaluate(qrels, str(run), measures=names, order="file", warn=lambda message: None)
    normalised = frame.iloc[0, 2:].to_numpy(dtype=float)
    assert normalised[[0, 1, 4]] == pytest.approx([1.0, 1.0, 1.0], abs=1e-12)


def test_clef_ehealth_from_the_command_line():
    folder = shared_path("data", "multi-aspect", "clef-ehealth-2016")
    runs = sorted((folder / "runs").iterdir())
    aspects = ["--aspect", f"relevance={folder / 'task2.qrels'}",
               "--aspect", f"trust={folder / 'task2.qtrust'},bins=25:50:75",
               "--aspect", f"understandability={folder / 'task2.qunder'},bins=25:50:75"]
    result = run_cli([*aspects, "-m", "TOMA(m=nDCG)@10,CAM(m=nDCG)@10,MM(m=nDCG)@10,TOMA(m=AP)", "-n", *runs])
    assert result.returncode == 0, result.stderr
    rows = [line.split(",") for line in result.stdout.decode().splitlines()]
    assert rows[0][2:] == ["TOMA@10", "CAM@10", "MM@10", "TOMA(m=AP)"]
    assert len(rows) == 1 + len(runs)
    values = np.array([[float(v) for v in row[2:]] for row in rows[1:]])
    assert ((values >= 0) & (values <= 1)).all() and (values[:, 0] > 0).all()


def test_wide_file_explicit_space_and_aspect_weights(tmp_path):
    wide = tmp_path / "wide.txt"
    wide.write_text("".join(f"t 0 {d} {r} {c}\n" for d, (r, c) in DOCS.items()))
    run = tmp_path / "r.txt"
    run.write_text("t Q0 d1 1 3 r\nt Q0 d2 2 2 r\nt Q0 d3 3 1 r\n")
    per_file = example(tmp_path, "nDCG")
    from_wide = load_aspects([f"relevance={wide},column=1,labels=0:1:2:3,gains=0:5:10:15",
                              f"correctness={wide},column=2,labels=0:1:2,embed=0:1.5:3,gains=0:5:10"])
    paper = ";".join(f"{r}.{c}" for r, c in label_space([RELEVANCE, CORRECTNESS], "paper"))
    names = ["TOMA(space=paper)", f"TOMA(space={paper})", "CAM", "MM"]
    one = divaleval.evaluate(per_file, str(run), measures=names, order="file", warn=lambda message: None)
    two = divaleval.evaluate(from_wide, str(run), measures=names, order="file", warn=lambda message: None)
    assert one.iloc[0, 2:].tolist() == two.iloc[0, 2:].tolist()
    assert one.iloc[0, 2] == one.iloc[0, 3] == pytest.approx(0.9367, abs=5e-5)
    weighted = load_aspects([f"relevance={wide},column=1,labels=0:1:2:3,gains=0:5:10:15,weight=0.75",
                             f"correctness={wide},column=2,labels=0:1:2,gains=0:5:10,weight=0.25"])
    frame = divaleval.evaluate(weighted, str(run), measures=["CAM(m=nDCG)", "MM(m=nDCG)"], order="file",
                               warn=lambda message: None)
    rel = (5 + 15 / np.log2(3) + 15 / 2) / (15 + 15 / np.log2(3) + 5 / 2)  # correctness: nDCG 1
    assert frame.iloc[0, 2] == pytest.approx(0.75 * rel + 0.25 * 1.0)
    assert frame.iloc[0, 3] == pytest.approx(1.0 / (0.75 / rel + 0.25 / 1.0))


def test_tuples_outside_the_label_space_are_reported(tmp_path):
    qrels = example(tmp_path, "AP")
    run = tmp_path / "r.txt"
    run.write_text("t Q0 d1 1 3 r\n")
    result = run_cli(["--aspect", f"relevance={tmp_path / 'rel.txt'}", "--aspect", f"correctness={tmp_path / 'cor.txt'}",
                      "-m", "TOMA(space=3.2;1.0)", run])
    assert result.returncode == 2 and b"outside the label space" in result.stderr and b"Traceback" not in result.stderr
    del qrels


def test_a_measure_that_needs_a_cutoff(tmp_path):
    example(tmp_path, "AP")
    run = tmp_path / "r.txt"
    run.write_text("t Q0 d1 1 3 r\nt Q0 d2 2 2 r\n")
    aspects = ["--aspect", f"relevance={tmp_path / 'rel.txt'}", "--aspect", f"correctness={tmp_path / 'cor.txt'}"]
    bad = run_cli([*aspects, "-m", "CAM(m=Prec)", run])
    assert bad.returncode == 2 and b"needs a cutoff" in bad.stderr and b"Traceback" not in bad.stderr
    good = run_cli([*aspects, "-m", "CAM(m=Prec)@2", "-n", run])
    assert good.returncode == 0, good.stderr


def test_an_embedding_without_declared_labels_takes_the_labels_of_the_file(tmp_path):
    # Correctness holds every label 0, 1, 2 (d3, d2, d1); embed= alone used to be refused.
    example(tmp_path, "nDCG")
    relevance, correctness = tmp_path / "rel.txt", tmp_path / "cor.txt"
    run = tmp_path / "r.txt"
    run.write_text("t Q0 d1 1 3 r\nt Q0 d2 2 2 r\nt Q0 d3 3 1 r\n")
    found = load_aspects([f"relevance={relevance},labels=0:1:2:3", f"correctness={correctness},embed=0:1.5:3"])
    assert found.aspects[1].labels == (0, 1, 2) and found.aspects[1].embedding == (0.0, 1.5, 3.0)
    frame = divaleval.evaluate(found, str(run), measures=["TOMA(m=nDCG,space=paper)"], order="file",
                               warn=lambda message: None)
    assert "%.4f" % frame.iloc[0, 2] == "%.4f" % TABLE3["nDCG"][("d1", "d2", "d3")][2]  # EUCL 0.9367
    wrong = run_cli(["--aspect", f"relevance={relevance}", "--aspect", f"correctness={correctness},embed=0:3", run])
    assert wrong.returncode == 2 and b"embedding needs 3 values, one per label [0, 1, 2]" in wrong.stderr


def test_aspect_specifications_are_checked_before_any_file_is_read(tmp_path):
    run = tmp_path / "r.txt"
    run.write_text("t Q0 d1 1 3 r\n")
    twice = run_cli(["--aspect", f"a={tmp_path / 'missing1'}", "--aspect", f"a={tmp_path / 'missing2'}", run])
    assert twice.returncode == 2 and b"aspect names must be distinct: a given twice" in twice.stderr
    bad = run_cli(["--aspect", f"a={tmp_path / 'missing1'}", "--aspect", f"b={tmp_path / 'missing2'},bins=x", run])
    assert bad.returncode == 2 and b"bins='x' is not a list of numbers" in bad.stderr
    assert b"cannot open" not in twice.stderr + bad.stderr
