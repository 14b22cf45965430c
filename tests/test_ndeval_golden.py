"""`divaleval ndeval` reproduces ndeval 4.5's output byte for byte.

Golden files: ../shared/oracle/ndeval (examples/ copied into tests/data;
trec2012/ read from ../shared, skipped where it is absent).
"""
from __future__ import annotations

import pytest

from conftest import NDEVAL_EXAMPLES, run_ndeval, shared_path

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

EX = NDEVAL_EXAMPLES
# Flags of each expected file, as ../shared/oracle/ndeval/README.md lists them.
EXAMPLE_FLAGS = {
    "default": [],
    "c": ["-c"],
    "traditional": ["-traditional"],
    "c.traditional": ["-c", "-traditional"],
    "alpha0.8.beta0.9": ["-alpha", "0.8", "-beta", "0.9"],
    "M10": ["-M", "10"],
    "baselineB.riskAlpha1": ["-baseline", EX / "runB.txt", "-riskAlpha", "1"],
    "c.baselineB": ["-c", "-baseline", EX / "runB.txt"],
}


def example_cases():
    for expected in sorted((EX / "expected").glob("*.csv")):
        stem = expected.stem
        if stem.endswith(".v1.3"):
            continue  # the 2009 version's narrower table: not what 4.5 prints
        stem = stem.removesuffix(".v4.4")  # 4.4 printed the same numbers
        run, flags = stem.split(".", 1)
        qrels = EX / ("qrels_mini.txt" if run == "run_mini" else "qrels.txt")
        yield pytest.param(EXAMPLE_FLAGS[flags], qrels, EX / f"{run}.txt", expected, id=expected.name)


@pytest.mark.parametrize("flags,qrels,run,expected", list(example_cases()))
def test_examples_byte_for_byte(flags, qrels, run, expected):
    status, out, err = run_ndeval([*flags, qrels, run])
    assert status == 0, err
    assert out == expected.read_text()


TREC2012_FLAGS = {
    "default": [],
    "traditional": ["-traditional"],
    "c.traditional": ["-c", "-traditional"],
    "c.traditional.alpha0.8.beta0.9": ["-c", "-traditional", "-alpha", "0.8", "-beta", "0.9"],
    "c.traditional.M10": ["-c", "-traditional", "-M", "10"],
}
TREC2012_RUNS = [f"{system}-results-{cat}" for system in ("ql", "rm")
                 for cat in ("cata", "catb", "cata-filtered", "catb-filtered")]


@pytest.mark.parametrize("flags", list(TREC2012_FLAGS))
@pytest.mark.parametrize("run", TREC2012_RUNS)
def test_trec2012_byte_for_byte(run, flags):
    expected = shared_path("oracle", "ndeval", "trec2012", f"{run}.{flags}.csv")
    data = shared_path("data", "trec-web", "2012")
    system, rest = run.split("-", 1)
    status, out, err = run_ndeval([*TREC2012_FLAGS[flags], data / "qrels-for-ndeval.txt",
                                   data / "baseline-runs" / system / f"{rest}.txt"])
    assert status == 0, err
    assert out == expected.read_text()


def test_trec2012_risk_sensitive_byte_for_byte():
    expected = shared_path("oracle", "ndeval", "trec2012",
                           "rm-results-cata.baseline-ql-cata.riskAlpha1.c.traditional.csv")
    data = shared_path("data", "trec-web", "2012")
    status, out, err = run_ndeval([
        "-c", "-traditional", "-baseline", data / "baseline-runs/ql/results-cata.txt", "-riskAlpha", "1",
        data / "qrels-for-ndeval.txt", data / "baseline-runs/rm/results-cata.txt",
    ])
    assert status == 0, err
    assert out == expected.read_text()


def test_every_trec2012_golden_file_is_covered():
    folder = shared_path("oracle", "ndeval", "trec2012")
    covered = {f"{run}.{flags}.csv" for run in TREC2012_RUNS for flags in TREC2012_FLAGS}
    covered.add("rm-results-cata.baseline-ql-cata.riskAlpha1.c.traditional.csv")
    assert {p.name for p in folder.glob("*.csv")} <= covered
