"""Preference judgments and nPrf (Chandar & Carterette 2013): hand computations, evalIR's outputs,
the simulated path, properties, the readers and the commands."""
from __future__ import annotations

import csv
import gzip
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import divaleval
from conftest import DATA, run_cli, shared_path
from divaleval.errors import InputError, UsageError
from divaleval.io.preferences import (
    NEITHER, NONE_OF_THREE, PREFER_A, PREFER_B, PreferenceTable, read_preferences, read_profiles,
)
from divaleval.model import JudgedDocuments

EVALIR = DATA / "evalir"

# Hand example 1 (topic 1). Pairwise: a is shown 3 times and preferred twice, U(a) = 2/3; b shown 4
# times (the -2 counts), preferred once, U(b) = 1/4; c shown 3 times, preferred once, U(c) = 1/3.
# Triplets: U(c|a) = 2/2 = 1, U(b|a) = 0; U(a|b) = 1, U(c|b) = 0; U(b|c) = 1, U(a|c) = 0.
HAND = """\
1 u1 a b a
1 u1 a c a
1 u1 b c c
1 u2 a b b
1 u2 b c -2
1 u1 a b c c
1 u2 a b c c
1 u1 b a c a
1 u1 c a b b
"""
# Greedy ideal, F = avg: a (2/3); then U(c|a) = 1 beats U(b|a) = 0: c (1); then b: avg(U(b|a), U(b|c)) = 1/2.
# F = min: the same order, b at rank 3 gets min(0, 1) = 0.
# Run a b c: U = 2/3, U(b|a) = 0, F(U(c|a), U(c|b)) = avg(1, 0) = 1/2 or min(1, 0) = 0.


def cli(args: list) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    from click.testing import CliRunner

    from divaleval.cli import main_group

    result = CliRunner().invoke(main_group, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def run_of(ranking: list[str], topic: str = "1", runid: str = "r") -> divaleval.RunTable:
    """The ranking in its order, with positive scores (evalIR leaves out scores <= 0)."""
    return divaleval.RunTable.from_arrays([topic] * len(ranking), ranking, score=range(len(ranking), 0, -1),
                                          runid=runid)


def scores(judgments, ranking: list[str], measures: list[str], topic: str = "1", compat: str | None = None) -> dict:
    """{measure: value} of one ranking for one topic (judgments: a file path or loaded qrels)."""
    qrels = judgments if isinstance(judgments, JudgedDocuments) else divaleval.load_preferences(str(judgments), compat)
    frame = divaleval.evaluate(qrels, run_of(ranking, topic), measures, compat=compat, warn=lambda m: None)
    row = frame[frame["topic"] == topic].iloc[0]
    return {m: float(row[divaleval.parse_measure(m).name]) for m in measures}


# -- hand computations --------------------------------------------------------------


@pytest.mark.golden
def test_hand_example_rbp(tmp_path):
    path = write(tmp_path, "prefs", HAND)
    got = scores(path, ["a", "b", "c"], ["nPrf@1", "nPrf@2", "nPrf@3", "nPrf(f=min)@3"])
    # P = 1/2, 1/4, 1/8. K=2: run (2/3)/2 + (2/3)/4 = 1/2; ideal (2/3)/2 + (5/3)/4 = 3/4.
    assert got["nPrf@1"] == pytest.approx(1.0)
    assert got["nPrf@2"] == pytest.approx((1 / 2) / (3 / 4))
    # K=3, avg: run cumulative 2/3, 2/3, 7/6 -> 31/48; ideal 2/3, 5/3, 13/6 -> 49/48.
    assert got["nPrf@3"] == pytest.approx(31 / 49)
    # K=3, min: run 2/3, 2/3, 2/3 -> 28/48; ideal 2/3, 5/3, 5/3 -> 46/48.
    assert got["nPrf(f=min)@3"] == pytest.approx(28 / 46)


@pytest.mark.golden
def test_hand_example_every_stopping_distribution(tmp_path):
    path = write(tmp_path, "prefs", HAND)
    run_c = [2 / 3, 2 / 3, 7 / 6]      # cumulative utilities of a b c (F = avg)
    ideal_c = [2 / 3, 5 / 3, 13 / 6]
    dcg = [1 / math.log2(k + 1) - 1 / math.log2(k + 2) for k in (1, 2, 3)]
    rr = [1 / 2, 1 / 6, 1 / 12]

    def ratio(p):
        return sum(x * y for x, y in zip(p, run_c)) / sum(x * y for x, y in zip(p, ideal_c))

    got = scores(path, ["a", "b", "c"], ["nPrf(p=dcg)@3", "nPrf(p=rr)@3", "nPrf(p=none)@3",
                                         "nPrf(theta=0.2)@3", "nPrf(tail=stop)@2"])
    assert got["nPrf(p=dcg)@3"] == pytest.approx(ratio(dcg))
    assert got["nPrf(p=rr)@3"] == pytest.approx(13 / 19)         # (24 + 8 + 7)/72 over (24 + 20 + 13)/72
    assert got["nPrf(p=none)@3"] == pytest.approx(5 / 9)         # (2/3 + 2/3 + 7/6) / (2/3 + 5/3 + 13/6)
    assert got["nPrf(theta=0.2)@3"] == pytest.approx(ratio([0.2, 0.8 * 0.2, 0.64 * 0.2]))
    # tail=stop, K=2: the mass beyond rank 2 (1/4) joins rank 2: run 1/2 + (2/3)/4, ideal 3/4 + (5/3)/4.
    assert got["nPrf(tail=stop)@2"] == pytest.approx((2 / 3) / (7 / 6))


def test_missing_conditional_judgments(tmp_path):
    # Topic 2: pairwise x > y, y > z, x > z: U(x) = 1, U(y) = 1/2, U(z) = 0. One triplet, given x: y > z.
    path = write(tmp_path, "prefs", "2 u x y x\n2 u y z y\n2 u x z x\n2 u x y z y\n")
    measures = ["nPrf@3", "nPrf(missing=zero)@3", "nPrf@2"]
    # Ideal: x (1), y (U(y|x) = 1), z (avg(U(z|x) = 0, U(z|y) undefined -> U(z) = 0) = 0): cumulative 1, 2, 2.
    # Run z y x: U(z) = 0; U(y|z) undefined -> U(y) = 1/2 (or 0); F(U(x|z), U(x|y)) undefined -> U(x) = 1 (or 0).
    got = scores(path, ["z", "y", "x"], measures, topic="2")
    assert got["nPrf@3"] == pytest.approx((0 / 2 + (1 / 2) / 4 + (3 / 2) / 8) / (1 / 2 + 2 / 4 + 2 / 8))
    assert got["nPrf(missing=zero)@3"] == 0.0
    # An unjudged document: q x -> U(q) = 0, U(x|q) undefined -> U(x) = 1: (0 + 1/4) / (1/2 + 2/4).
    got = scores(path, ["q", "x"], measures, topic="2")
    assert got["nPrf@2"] == pytest.approx(0.25)


def test_a_file_of_triplets_estimates_u_of_d_from_them(tmp_path):
    # No pairwise judgment: U(d) counts the triplets, the given document ignored: U(a) = U(b) = 1/2, U(c) = 0.
    # Conditional: U(b|a) = 1, U(a|b) = 1, everything else 0. Greedy: b (tie with a: greatest docno), a, c:
    # utilities 1/2, 1, 0. Run c b a: U(c) = 0, U(b|c) = 0, avg(U(a|c), U(a|b)) = 1/2.
    path = write(tmp_path, "prefs", "1 u a b c b\n1 u b a c a\n1 u c a b -2\n")
    got = scores(path, ["c", "b", "a"], ["nPrf@3"])
    assert got["nPrf@3"] == pytest.approx((1 / 2 / 8) / (1 / 2 / 2 + 3 / 2 / 4 + 3 / 2 / 8))
    assert scores(path, ["b", "a", "c"], ["nPrf@3"])["nPrf@3"] == pytest.approx(1.0)
    assert scores(path, ["a", "b", "c"], ["nPrf@3"])["nPrf@3"] == pytest.approx(1.0)


@pytest.mark.golden
def test_hand_example_under_evalir_conventions(tmp_path):
    # Smoothed: U = preferred / (shown + 2). U(a) = 2/5, U(b) = 1/6; U(c|a) = 2/4 is the largest entry.
    path = write(tmp_path, "prefs", HAND)
    got = scores(path, ["a", "b"], ["nPrf@1", "nPrf@2", "nPrf(f=min)@2"], compat="evalir")
    assert got["nPrf@1"] == pytest.approx((2 / 5) / (2 / 4))
    # Rank 2 takes F over U(b) and U(b|a) = 0/(2+2): avg 1/12, min 0. Score: sum_k sum_{i<=k} P(i) U_i;
    # ideal: the two largest entries, 1/2 and 2/5.
    ideal = 2 * (1 / 2) * (1 / 2) + (1 / 4) * (2 / 5)
    assert got["nPrf@2"] == pytest.approx((2 * (1 / 2) * (2 / 5) + (1 / 4) / 12) / ideal)
    assert got["nPrf(f=min)@2"] == pytest.approx((2 * (1 / 2) * (2 / 5)) / ideal)


def test_a_topic_where_nothing_was_preferred_is_undefined(tmp_path):
    path = write(tmp_path, "prefs", "1 u a b a\n3 u a b -2\n")
    warnings = []
    frame = divaleval.evaluate(divaleval.load_preferences(str(path)), run_of(["a", "b"], "3"), ["nPrf@2"],
                               warn=warnings.append)
    assert float(frame["nPrf@2"].iloc[0]) == 0.0
    assert any("without any relevant document" in w for w in warnings)


# -- evalIR's outputs (compat mode) ---------------------------------------------------------


def evalir_name(column: str, cutoff: str) -> str:
    stopping, f = column.split("_")
    params = [f"p={stopping.lower()}"] + (["f=min"] if f == "min" else [])
    return f"nPrf({','.join(params)})@{cutoff}"


@pytest.mark.golden
def test_evalir_expected_values():
    rows = list(csv.reader(open(EVALIR / "expected.csv")))
    header, rows = rows[0], rows[1:]
    measures = sorted({evalir_name(c, r[-1]) for r in rows for c in header[2:-1]})
    qrels = divaleval.load_preferences(str(EVALIR / "toy.triplet.qrels"), "evalir")
    frame = divaleval.evaluate(qrels, [str(EVALIR / "runX"), str(EVALIR / "runY")], measures, compat="evalir",
                               warn=lambda m: None)
    checked = 0
    for row in rows:
        got = frame[(frame["runid"] == row[0]) & (frame["topic"] == row[1])].iloc[0]
        for column, expected in zip(header[2:-1], row[2:-1]):
            name = divaleval.parse_measure(evalir_name(column, row[-1])).name
            assert f"{float(got[name]):.6f}" == f"{float(expected):.6f}", (row[0], row[1], name)
            checked += 1
    assert checked == 160


def test_evalir_blank_lines_repeat_the_judgment_above(tmp_path):
    table = read_preferences(str(EVALIR / "toy.triplet.qrels"), blank_lines="repeat")
    assert len(table) == 402 and list(table.line[-3:]) == [400, 400, 400]
    assert len(read_preferences(str(EVALIR / "toy.triplet.qrels"))) == 400
    # Without the repeats, topic 4's averages at K = 10 differ from evalIR's (e.g. 0.697603 for 0.697747).
    qrels = divaleval.load_preferences(str(EVALIR / "toy.triplet.qrels"))  # native reading
    frame = divaleval.evaluate(qrels, str(EVALIR / "runX"), ["nPrf(p=none)@10"], compat="evalir", warn=lambda m: None)
    assert f"{float(frame[frame['topic'] == '4']['nPrf(p=none)@10'].iloc[0]):.6f}" != "0.697747"


@pytest.mark.golden
def test_evalir_simulated_path(tmp_path):
    # The oracle README: toy.div.qrels topic 1, ties alphabetical, run a b c g e f d h i j.
    out = tmp_path / "simulated"
    result = run_cli(["simulate-preferences", "--compat", "evalir", "--ties", "alphabetical", "-o", out,
                      EVALIR / "toy.div.qrels"])
    assert result.returncode == 0, result.stderr
    qrels = divaleval.load_preferences(str(out), "evalir")
    run = run_of(list("abcgefdhij"))
    cutoffs = (1, 2, 3, 5, 10)
    frame = divaleval.evaluate(qrels, run, [f"nPrf@{k}" for k in cutoffs] + [f"nPrf(f=min)@{k}" for k in cutoffs],
                               compat="evalir", warn=lambda m: None)
    row = frame[frame["topic"] == "1"].iloc[0]
    assert [round(float(row[f"nPrf@{k}"]), 6) for k in cutoffs] == [1, .894231, .828125, .774511, .737496]
    assert [round(float(row[f"nPrf(f=min)@{k}"]), 6) for k in cutoffs] == [1, .846154, .761364, .690977, .642378]


def test_evalir_drops_run_lines_with_scores_at_most_zero(tmp_path):
    path = write(tmp_path, "prefs", HAND)
    run = write(tmp_path, "run", "1 Q0 b 1 0 r\n1 Q0 a 2 -1 r\n1 Q0 c 3 2 r\n")
    # Only c remains: U(c) = 1/(3+2), over the largest entry U(c|a) = 2/(2+2).
    frame = divaleval.evaluate(divaleval.load_preferences(str(path), "evalir"), str(run), ["nPrf@1"],
                               compat="evalir", warn=lambda m: None)
    assert float(frame["nPrf@1"].iloc[0]) == pytest.approx((1 / 5) / (2 / 4))


# -- properties -----------------------------------------------------------------------------


def reference(judgments, ranking, cutoff, p, theta, f, missing):
    """nPrf@K straight from the paper's definitions, with dictionaries (an independent implementation)."""
    pairs = [j for j in judgments if j[0] is None]
    unconditional = pairs or [(None, a, b, w) for _, a, b, w in judgments]
    shown, wins, cshown, cwins = Counter(), Counter(), Counter(), Counter()
    for _, a, b, w in unconditional:
        shown[a] += 1
        shown[b] += 1
        wins[w] += 1
    for g, a, b, w in judgments:
        if g is not None:
            cshown[g, a] += 1
            cshown[g, b] += 1
            cwins[g, w] += 1

    def u(d):
        return wins[d] / shown[d] if shown[d] else 0.0

    def uc(d, g):
        if cshown[g, d]:
            return cwins[g, d] / cshown[g, d]
        return u(d) if missing == "unconditional" else 0.0

    def utility(d, above):
        if not above:
            return u(d)
        values = [uc(d, g) for g in above]
        return sum(values) / len(values) if f == "avg" else min(values)

    def prf(utilities):
        total, seen = 0.0, 0.0
        for k in range(1, cutoff + 1):
            seen += utilities[k - 1] if k <= len(utilities) else 0.0
            weight = {"rbp": (1 - theta) ** (k - 1) * theta, "dcg": 1 / math.log2(k + 1) - 1 / math.log2(k + 2),
                      "rr": 1 / (k * (k + 1)), "none": 1.0}[p]
            total += weight * seen
        return total

    run = [utility(d, ranking[:i]) for i, d in enumerate(ranking[:cutoff])]
    candidates = sorted({d for _, a, b, _ in judgments for d in (a, b)})
    ideal, placed = [], []
    while len(placed) < min(cutoff, len(candidates)):
        best = max((utility(d, placed), d) for d in candidates if d not in placed)  # ties: greatest docno
        ideal.append(best[0])
        placed.append(best[1])
    return prf(run), prf(ideal), placed


DOCS = list("abcdef")


@st.composite
def judgment_sets(draw):
    count = draw(st.integers(1, 14))
    out = []
    for _ in range(count):
        a, b = draw(st.lists(st.sampled_from(DOCS), min_size=2, max_size=2, unique=True))
        g = draw(st.one_of(st.none(), st.sampled_from([d for d in DOCS if d not in (a, b)])))
        w = draw(st.sampled_from([a, b, None]))
        out.append((g, a, b, w))
    return out


def table_of(judgments) -> PreferenceTable:
    return PreferenceTable.from_arrays(["1"] * len(judgments), ["u"] * len(judgments),
                                       [g or "" for g, *_ in judgments], [a for _, a, _, _ in judgments],
                                       [b for _, _, b, _ in judgments], [w or "-2" for *_, w in judgments])


MEASURE_CHOICES = st.tuples(st.integers(1, 7), st.sampled_from(["rbp", "dcg", "rr", "none"]),
                            st.sampled_from([0.5, 0.2, 0.9]), st.sampled_from(["avg", "min"]),
                            st.sampled_from(["unconditional", "zero"]))


def measure_name(cutoff, p, theta, f, missing):
    theta_text = f",theta={theta}" if p == "rbp" else ""
    return f"nPrf(p={p}{theta_text},f={f},missing={missing})@{cutoff}"


@settings(max_examples=60, deadline=None)
@given(judgment_sets(), st.permutations(DOCS + ["z"]), MEASURE_CHOICES)
def test_agrees_with_the_definitions_and_the_greedy_ranking_scores_one(judgments, ranking, choice):
    cutoff, p, theta, f, missing = choice
    qrels = divaleval.load_preferences(table_of(judgments))
    run_value, ideal_value, ideal_ranking = reference(judgments, ranking, cutoff, p, theta, f, missing)
    name = measure_name(cutoff, p, theta, f, missing)
    got = scores(qrels, ranking, [name])[name]
    assert got == pytest.approx(run_value / ideal_value if ideal_value > 0 else 0.0, rel=1e-9, abs=1e-12)
    if ideal_value > 0:
        assert scores(qrels, ideal_ranking, [name])[name] == pytest.approx(1.0, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.permutations(DOCS), st.integers(2, 6), st.integers(1, 3), st.sampled_from(["pairs", "triplets", "both"]),
       MEASURE_CHOICES)
def test_a_ranking_each_of_whose_documents_is_preferred_to_the_next_beats_its_reverse(order, n, assessors, kind,
                                                                                      choice):
    order = order[:n]
    judgments = []
    for _ in range(assessors):
        for i in range(n):
            for j in range(i + 1, n):
                if kind != "triplets":
                    judgments.append((None, order[i], order[j], order[i]))
                if kind != "pairs":
                    judgments += [(g, order[i], order[j], order[i]) for g in order if g not in (order[i], order[j])]
    if not judgments:
        return
    qrels = divaleval.load_preferences(table_of(judgments))
    name = measure_name(*choice)
    forward = scores(qrels, order, [name])[name]
    backward = scores(qrels, order[::-1], [name])[name]
    assert forward >= backward - 1e-12
    assert forward == pytest.approx(1.0)  # the order is also the greedy ideal's


# -- readers ----------------------------------------------------------------------------------


def test_reader_reads_both_kinds_and_the_neither_outcomes(tmp_path):
    path = write(tmp_path, "prefs", "1 u a b b\n\n1\tv g a b -3\n2 u x y -2\n")
    table = read_preferences(str(path))
    assert list(table.given) == ["", "g", ""]
    assert list(table.outcome) == [PREFER_B, NONE_OF_THREE, NEITHER]
    assert list(table.line) == [1, 3, 4]
    gz = tmp_path / "prefs.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert list(read_preferences(str(gz)).outcome) == list(table.outcome)


def test_plain_and_irregular_spacing_read_alike(tmp_path):
    # Single spaces: each width is read by the fast reader; a tab sends the file to the careful one.
    plain = "\n1 u a b a\n1 u g a b b\n\n2 v x y -2\n1 u g a b -3"
    tables = [read_preferences(str(write(tmp_path, name, text)))
              for name, text in (("plain", plain), ("tabbed", plain.replace("1 u g", "1\tu g")))]
    for table in tables:
        assert list(table.line) == [2, 3, 5, 6]
        assert list(table.given) == ["", "g", "", "g"] and list(table.topic) == ["1", "1", "2", "1"]
        assert list(table.outcome) == [PREFER_A, PREFER_B, NEITHER, NONE_OF_THREE]
    with pytest.raises(InputError, match=r"plain2:3: winner 'c'"):
        read_preferences(str(write(tmp_path, "plain2", "1 u a b a\n1 u g a b b\n1 u g a b c\n")))


@pytest.mark.parametrize("text, line, reason", [
    ("1 u a b a\n1 u a b\n", 2, "expected 5 fields, found 4"),
    ("1 u a b a\n1 u g a b a x\n", 2, "expected 6 fields, found 7"),
    ("1 u a b a\n1 u a b c\n", 2, "winner 'c' is neither docA (a) nor docB (b)"),
    ("1 u a a a\n", 1, "same document a"),
    ("1 u g a g g\n", 1, "given document g is also one of the two compared"),
    ("1 u a b -3\n", 1, "-3 (none of the three) needs a triplet"),
])
def test_reader_names_the_bad_line(tmp_path, text, line, reason):
    path = write(tmp_path, "prefs", text)
    with pytest.raises(InputError) as caught:
        read_preferences(str(path))
    assert caught.value.line == line and reason in caught.value.reason
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_reader_refuses_an_empty_file(tmp_path):
    with pytest.raises(InputError, match="no judgments"):
        read_preferences(str(write(tmp_path, "prefs", "\n\n")))


def test_profiles_reader(tmp_path):
    profiles = read_profiles(str(write(tmp_path, "profiles", "1 A 1 2\n\n1 A 3\n1 B 2\n")))
    assert list(zip(profiles.profile, profiles.intent, profiles.line)) == [
        ("A", "1", 1), ("A", "2", 1), ("A", "3", 3), ("B", "2", 4)]
    with pytest.raises(InputError, match=r"profiles:2: expected at least 3 fields, found 2"):
        read_profiles(str(write(tmp_path, "profiles", "1 A 1\n1 B\n")))


# -- the measure's usage ---------------------------------------------------------------------


def test_usage_errors():
    with pytest.raises(UsageError, match="needs a cutoff"):
        divaleval.parse_measure("nPrf")
    with pytest.raises(UsageError, match="theta is the stopping probability of p=rbp"):
        divaleval.parse_measure("nPrf(p=rr,theta=0.3)@5")
    with pytest.raises(UsageError, match="tail=stop needs a stopping distribution"):
        divaleval.parse_measure("nPrf(p=none,tail=stop)@5")
    with pytest.raises(UsageError, match=r"theta=1.5.*\(0, 1\]"):
        divaleval.parse_measure("nPrf(theta=1.5)@5")
    assert divaleval.parse_measure("nPrf(p=rbp,theta=0.5,f=avg)@10").name == "nPrf@10"


def test_nprf_needs_preference_judgments_and_they_fit_no_other_measure(tmp_path):
    qrels = divaleval.Qrels.from_arrays(["1"], ["1"], ["a"], [1])
    with pytest.raises(UsageError, match="needs preference judgments: give them with --prefs FILE"):
        divaleval.evaluate(qrels, run_of(["a"]), ["nPrf@5"])
    prefs = divaleval.load_preferences(str(write(tmp_path, "prefs", HAND)))
    with pytest.raises(UsageError, match="needs intentwise qrels, not preference judgments"):
        divaleval.evaluate(prefs, run_of(["a"]), ["alpha-nDCG@5"])


def test_command_line(tmp_path):
    prefs = write(tmp_path, "prefs", HAND)
    run = write(tmp_path, "run", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n")
    result = run_cli(["--prefs", prefs, "-m", "nPrf@3", "-f", "trec", run])
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines()[1].split("\t")[2] == f"{31 / 49:.4f}"
    status, out, _ = cli(["--prefs", prefs, "-q", run, run])  # default measures, two runs
    assert status == 0 and out.splitlines()[0] == "runid,topic,nPrf@5,nPrf@10,nPrf@20" and len(out.splitlines()) == 5
    bad = write(tmp_path, "bad", "1 u a b a\n1 u a b x\n")
    status, _, err = cli(["--prefs", bad, run])
    assert status == 2 and f"{bad}:2: winner 'x'" in err
    status, _, err = cli(["--prefs", prefs, "--aspect", f"rel={prefs}", run])
    assert status == 2 and "--aspect and --prefs" in err
    status, _, err = cli(["-m", "nPrf@5", EVALIR / "toy.div.qrels", run])
    assert status == 2 and "needs preference judgments" in err


# -- simulated preferences ------------------------------------------------------------------

# Topic 1: intents 1, 2, 3; a is relevant to 1 and 2, b to 1, c to 3, d to none.
SIM_QRELS = "1 1 a 1\n1 2 a 1\n1 1 b 1\n1 3 c 2\n1 0 d 0\n1 1 d 0\n"


def simulate(tmp_path, *args: str, qrels: str = SIM_QRELS) -> list[str]:
    path = write(tmp_path, "qrels", qrels)
    status, out, err = cli(["simulate-preferences", *args, path])
    assert status == 0, err
    return out.splitlines()


def test_simulation_by_hand(tmp_path):
    # Pairwise: a (2 intents) beats b and c (1 each); b and c tie: alphabetical, b. d (no intent) is not judged.
    # Given a: b adds nothing new, c adds intent 3: c. Given b: a adds 2, c adds 3: tie, a. Given c: a (2) > b (1).
    assert simulate(tmp_path, "--ties", "alphabetical") == [
        "1 TREC a b a", "1 TREC a c a", "1 TREC b c b",
        "1 TREC a b c c", "1 TREC b a c a", "1 TREC c a b a"]
    # evalIR's rule: a covered intent counts 0.5: given b, a scores 1.5 against c's 1.
    assert simulate(tmp_path, "--ties", "alphabetical", "--compat", "evalir", "--kind", "triplets") == [
        "1 TREC a b c c", "1 TREC b a c a", "1 TREC c a b a"]


def test_simulation_with_profiles_and_seeded_ties(tmp_path):
    profiles = write(tmp_path, "profiles", "1 P1 3\n1 P2 1 3\n2 P1 1\n1 P3 9\n")
    lines = simulate(tmp_path, "--profiles", str(profiles), "--kind", "pairs", "--ties", "alphabetical")
    # P1 = {3}: only c is relevant, nothing to compare. P2 = {1, 3}: a, b, c one intent each: all ties.
    assert lines == ["1 P2 a b a", "1 P2 a c a", "1 P2 b c b"]
    seeded = [simulate(tmp_path, "--profiles", str(profiles), "--seed", str(s)) for s in (1, 1, 2, 3, 4, 5)]
    assert seeded[0] == seeded[1]
    assert len({tuple(s) for s in seeded}) > 1  # 9 fair coins: five seeds all alike would be a broken coin
    shuffled = SIM_QRELS.splitlines()
    random.Random(0).shuffle(shuffled)
    assert simulate(tmp_path, "--profiles", str(profiles), "--seed", "1", qrels="\n".join(shuffled) + "\n") \
        == seeded[0]


def test_simulation_warns_about_profiles_that_do_not_fit(tmp_path):
    qrels = write(tmp_path, "qrels", SIM_QRELS + "2 1 x 1\n2 1 y 1\n")
    profiles = write(tmp_path, "profiles", "1 P 1 9\n7 P 1\n")
    status, _, err = cli(["simulate-preferences", "--profiles", profiles, qrels])
    assert status == 0
    assert "topics not in the qrels are ignored: 7" in err
    assert "1/P/9" in err and "topics without a profile get no judgments: 2" in err


def test_simulation_pool(tmp_path):
    run = write(tmp_path, "run", "1 Q0 c 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n")
    # Only c and a are in the first 2 documents: one pair, and no triplet (no third document).
    assert simulate(tmp_path, "--pool", str(run), "--pool-depth", "2") == ["1 TREC a c a"]


def test_simulation_output_file(tmp_path):
    qrels = write(tmp_path, "qrels", SIM_QRELS)
    out = tmp_path / "prefs"
    assert cli(["simulate-preferences", "-o", out, qrels])[0] == 0
    assert len(out.read_text().splitlines()) == 6
    status, _, err = cli(["simulate-preferences", "-o", out, qrels])
    assert status == 2 and "exists" in err
    status, _, err = cli(["simulate-preferences", "--force", "-o", qrels, qrels])
    assert status == 2 and "is an input" in err
    assert qrels.read_text() == SIM_QRELS
    assert cli(["simulate-preferences", "--force", "--seed", "3", "-o", out, qrels])[0] == 0
    bad = write(tmp_path, "bad", "1 1 a x\n")
    status, _, err = cli(["simulate-preferences", "-o", tmp_path / "new", bad])
    assert status == 2 and f"{bad}:1:" in err
    assert not (tmp_path / "new").exists() and not list(tmp_path.glob(".divaleval-*"))


@pytest.mark.slow
def test_trec_2012_pool_is_judged_and_scored():
    qrels = shared_path("data", "trec-web", "2012", "qrels-for-ndeval.txt")
    runs = shared_path("data", "trec-web", "2012", "baseline-runs")
    tables = list(divaleval.simulate_preferences(str(qrels), pool=[str(runs / "ql"), str(runs / "rm")],
                                                 pool_depth=20, warn=lambda m: None))
    judgments = sum(len(t) for t in tables)
    # Every judged pair once per given document: n (n - 1) / 2 pairs and n (n - 1)(n - 2) / 2 triplets per topic.
    sizes = [len({*t.doc_a, *t.doc_b}) for t in tables]
    assert judgments == sum(n * (n - 1) // 2 + n * (n - 1) * (n - 2) // 2 for n in sizes)
    table = PreferenceTable(*(["<sim>"] + [np.concatenate([getattr(t, f) for t in tables])
                                           for f in ("topic", "assessor", "given", "doc_a", "doc_b", "outcome",
                                                     "line")]))
    frame = divaleval.evaluate(divaleval.load_preferences(table), [str(runs / "ql"), str(runs / "rm")],
                               ["nPrf@20", "nPrf(f=min)@20"], warn=lambda m: None)
    assert len(frame) == 8 * len(tables)  # every run, every judged topic
    assert (frame[["nPrf@20", "nPrf(f=min)@20"]].to_numpy() >= 0).all()
