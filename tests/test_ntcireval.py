"""NTCIREVAL's numbers (oracle/ntcireval), reproduced within 1e-4 with --compat ntcireval.

tiny/ is copied into tests/data; the upstream sample (divtest) and the TREC 2012
tables are read from ../shared and skipped where it is absent.
"""
from __future__ import annotations

import pytest

import divaleval
from conftest import DATA, run_cli, shared_path
from ntcireval_oracle import ADHOC, DIVERSITY, expected_means, expected_values

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

TINY = DATA / "ntcireval" / "tiny"
TOLERANCE = 1e-4 + 1e-12  # NTCIREVAL prints 4 decimals


def compare(qrels, runs: dict, mapping, cutoff, table, means_table=None, **options):
    expected = expected_values(table, mapping, cutoff)
    means = expected_means(means_table, mapping, cutoff) if means_table else {}
    assert expected, "no value to compare"
    names = sorted({m for (_, _, m) in expected})
    loaded = divaleval.load_qrels(str(qrels), options.pop("iprob", None), warn=lambda message: None)
    checked = 0
    for run_name, path in runs.items():
        frame = divaleval.evaluate(loaded, str(path), measures=names, compat="ntcireval",
                                   warn=lambda message: None, **options)
        mean = divaleval.mean_rows(frame)
        for (run, topic, name), value in expected.items():
            if run == run_name:
                got = frame.loc[frame.topic == topic, name].item()
                assert abs(got - value) <= TOLERANCE, (run, topic, name, value, got)
                checked += 1
        for (run, name), value in means.items():
            if run == run_name:
                assert abs(mean[name].item() - value) <= TOLERANCE, (run, name, value, mean[name].item())
    assert checked == len(expected)


@pytest.mark.parametrize("cutoff", [10, 3])
def test_tiny_diversity(cutoff):
    compare(TINY / "ex.Dqrels", {"RunA": TINY / "RunA", "RunB": TINY / "RunB"}, DIVERSITY, cutoff,
            TINY / "expected" / f"ex.cutoff{cutoff}.tsv", TINY / "expected" / f"ex.means.cutoff{cutoff}.tsv",
            iprob=str(TINY / "ex.Iprob"))


@pytest.mark.parametrize("cutoff", [10, 3])
def test_tiny_adhoc(cutoff):
    compare(TINY / "ex.qrels", {"RunA": TINY / "RunA", "RunB": TINY / "RunB"}, ADHOC, cutoff,
            TINY / "expected" / f"ex.cutoff{cutoff}.tsv", TINY / "expected" / f"ex.means.cutoff{cutoff}.tsv",
            gain="1:3:7")


def test_upstream_sample():
    folder = shared_path("oracle", "ntcireval", "examples", "divtest")
    mapping = {**DIVERSITY, **{(name, "D-NTCIR-IAeval"): pattern for (name, source), pattern in DIVERSITY.items()
                               if source == "D-NTCIR-IAeval-more"}}
    compare(folder / "Dtest.Dqrels", {"TRECRUN": folder / "TRECRUN", "TRECRUN2": folder / "TRECRUN2"}, mapping, 10,
            folder / "expected" / "Dtest.cutoff10.tsv", folder / "expected" / "Dtest.means.cutoff10.tsv",
            iprob=str(folder / "Dtest.Iprob"))


TREC2012_RUNS = {
    "ql-cata": "ql/results-cata.txt", "ql-catb": "ql/results-catb.txt", "rm-cata": "rm/results-cata.txt",
    "rm-catb": "rm/results-catb.txt", "ql-cata-filtered": "ql/results-cata-filtered.txt",
    "rm-catb-filtered": "rm/results-catb-filtered.txt",
}


@pytest.mark.parametrize("cutoff", [10, 20])
@pytest.mark.parametrize("kind", ["diversity", "adhoc"])
def test_trec2012(kind, cutoff):
    oracle = shared_path("oracle", "ntcireval", "trec2012")
    runs_dir = shared_path("data", "trec-web", "2012", "baseline-runs")
    runs = {name: runs_dir / path for name, path in TREC2012_RUNS.items()}
    if kind == "diversity":
        compare(oracle / "trec2012.Dqrels", runs, DIVERSITY, cutoff, oracle / f"trec2012.cutoff{cutoff}.tsv",
                oracle / f"trec2012.means.cutoff{cutoff}.tsv", iprob=str(oracle / "trec2012.Iprob"))
    else:
        compare(oracle / "trec2012.topicwise.qrels", runs, ADHOC, cutoff, oracle / f"trec2012.cutoff{cutoff}.tsv",
                oracle / f"trec2012.means.cutoff{cutoff}.tsv", gain="1:3:7:15:31")


def test_command_line_form():
    # The form of issue 4: --compat ntcireval --order file --iprob IPROB -m NAME ... QRELS RUN
    result = run_cli(["--compat", "ntcireval", "--order", "file", "--iprob", TINY / "ex.Iprob",
                      "-m", "D#-nDCG@10", "-m", "IA-nERR@10", "-m", "I-rec@10", TINY / "ex.Dqrels", TINY / "RunA"])
    assert result.returncode == 0, result.stderr
    rows = [line.split(",") for line in result.stdout.decode().splitlines()]
    assert rows[0] == ["runid", "topic", "D#-nDCG@10", "IA-nERR@10", "I-rec@10"]
    # examples/README.md, RunA: D#-nDCG@10 0.9727 / 0.9774, IA-nERR@10 0.6913 / 0.5480, I-rec@10 1 / 1.
    assert rows[1] == ["RunA", "0001", "0.972700", "0.691300", "1.000000"]
    assert rows[2] == ["RunA", "0002", "0.977400", "0.548000", "1.000000"]


def test_ntcir_preset_on_trec_and_ntcir_forms():
    # The TREC form (qrels.diversity.txt, -2 judgments, subtopics without relevant documents)
    # and the NTCIR form (Dqrels) give the same numbers.
    data = shared_path("data", "trec-web", "2012")
    oracle = shared_path("oracle", "ntcireval", "trec2012")
    run = data / "baseline-runs" / "ql" / "results-cata.txt"
    args = ["-m", "ntcir", "--iprob", oracle / "trec2012.Iprob", "--order", "file", "-q"]
    trec = run_cli([*args, data / "qrels.diversity.txt", run])
    ntcir = run_cli([*args, oracle / "trec2012.Dqrels", run])
    assert trec.returncode == ntcir.returncode == 0
    assert trec.stdout == ntcir.stdout
    header = trec.stdout.decode().splitlines()[0].split(",")[2:]
    assert header == [f"{m}@{k}" for k in (10, 20, 30) for m in ("I-rec", "D-nDCG", "D#-nDCG")]


# IA forms NTCIREVAL does not sum itself: sum_i P(i) M_i from its per-intent values (4 decimals each).
PER_INTENT = {"AP": "IA-AP@{k}", "Prec": "IA-Prec@{k}", "EBR": "IA-EBR@{k}", "RR": "IA-RR@{k}",
              "MSnDCG": "IA-nDCG@{k}", "Q": "IA-Q@{k}"}


def per_intent_sums(path, cutoff):
    import csv
    from collections import defaultdict

    sums = defaultdict(float)
    with open(path) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            name, _, at = row["measure"].partition("@")
            if name == "RR" and not at:  # the per-intent lists are truncated at the cutoff: RR@k
                at = "k"
            pattern = PER_INTENT.get(name)
            if pattern and at:
                sums[(row["run"], row["topic"], pattern.format(k=cutoff))] += float(row["prob"]) * float(row["value"])
    return sums


@pytest.mark.parametrize("cutoff", [10, 3])
def test_tiny_intent_aware_from_per_intent_values(cutoff):
    expected = per_intent_sums(TINY / "expected" / f"ex.perintent.cutoff{cutoff}.tsv", cutoff)
    names = sorted({name for (_, _, name) in expected})
    for run in ("RunA", "RunB"):
        frame = divaleval.evaluate(str(TINY / "ex.Dqrels"), str(TINY / run), measures=names, compat="ntcireval",
                                   iprob=str(TINY / "ex.Iprob"), warn=lambda message: None).set_index("topic")
        for (run_name, topic, name), value in expected.items():
            if run_name == run:
                assert abs(frame.loc[topic, name] - value) <= TOLERANCE, (run, topic, name)


def test_trec2012_intent_aware_from_per_intent_values():
    oracle = shared_path("oracle", "ntcireval", "trec2012")
    runs_dir = shared_path("data", "trec-web", "2012", "baseline-runs")
    qrels = divaleval.load_qrels(str(oracle / "trec2012.Dqrels"), str(oracle / "trec2012.Iprob"),
                                 warn=lambda message: None)
    expected = per_intent_sums(oracle / "trec2012.perintent.cutoff10.tsv", 10)
    names = sorted({name for (_, _, name) in expected})
    checked = 0
    for run, path in TREC2012_RUNS.items():
        frame = divaleval.evaluate(qrels, str(runs_dir / path), measures=names, compat="ntcireval",
                                   warn=lambda message: None).set_index("topic")
        for (run_name, topic, name), value in expected.items():
            if run_name == run:
                assert abs(frame.loc[topic, name] - value) <= TOLERANCE, (run, topic, name)
                checked += 1
    assert checked == len(expected) > 0


def test_run_gains_carry_four_decimals(tmp_path):
    """NTCIREVAL labels a run's documents with GG printed to 4 decimals (glabel) while its ideal list keeps
    the Grelv file's 6 digits: with P(i) = 0.035322 and the one relevant document (L1, gain 1) at rank 6,
    D-nDCG@10 = (0.0353 / log2(7)) / (0.035322 / log2(2)) = 0.355986... -> 0.3560, where the same gain on
    both sides gives 1 / log2(7) = 0.356207... -> 0.3562 (issue 25, found by a differential run)."""
    (tmp_path / "qrels").write_text("1 1 rel 1\n1 1 other 0\n")
    (tmp_path / "iprob").write_text("1 1 0.035322\n")
    (tmp_path / "run").write_text("".join(f"1 Q0 d{r} {r} {10 - r} tag\n" for r in range(1, 6))
                                  + "1 Q0 rel 6 4 tag\n")
    qrels = divaleval.load_qrels(str(tmp_path / "qrels"), str(tmp_path / "iprob"), warn=lambda message: None)
    ntcir = divaleval.evaluate(qrels, str(tmp_path / "run"), measures=["D-nDCG@10"], compat="ntcireval",
                               warn=lambda message: None)
    assert ntcir["D-nDCG@10"].item() == 0.3560
    native = divaleval.evaluate(qrels, str(tmp_path / "run"), measures=["D-nDCG@10"], warn=lambda message: None)
    assert native["D-nDCG@10"].item() == pytest.approx(1 / 2.807354922057604, abs=1e-12)  # log2(7)
