"""Results belong to a run file, not to its runtag: all eight TREC 2012 baselines are 'indri'."""
from __future__ import annotations

import json

import pytest

import divaleval
from conftest import NDEVAL_EXAMPLES as EX, run_cli, shared_path

RUNS = ("ql", "rm")


def baselines():
    data = shared_path("data", "trec-web", "2012")
    oracle = shared_path("oracle", "ndeval", "trec2012")
    paths = [data / "baseline-runs" / run / "results-cata.txt" for run in RUNS]
    expected = [(oracle / f"{run}-results-cata.c.traditional.csv").read_text() for run in RUNS]
    return data / "qrels-for-ndeval.txt", paths, expected


def oracle_means(text: str) -> dict[str, str]:
    """ndeval's amean row of one run: column -> printed value."""
    header, *rows = [line.split(",") for line in text.splitlines()]
    mean = next(row for row in rows if row[1] == "amean")
    return dict(zip(header[2:], mean[2:]))


def test_two_files_with_one_runtag_print_as_ndeval_prints_each():
    qrels, paths, expected = baselines()
    result = run_cli(["-c", qrels, *paths])
    assert result.returncode == 0, result.stderr
    # ndeval's own output for each run, one after the other (one header).
    assert result.stdout.decode() == expected[0] + expected[1].split("\n", 1)[1]
    stderr = result.stderr.decode()
    assert f"{paths[1]}: runtag 'indri' is also that of {paths[0]}" in stderr


@pytest.mark.parametrize("fmt", ["trec", "table", "json"])
def test_every_format_gives_two_results(fmt):
    qrels, paths, expected = baselines()
    result = run_cli(["-c", "-n", "-q", "-f", fmt, qrels, *paths])
    assert result.returncode == 0, result.stderr
    means = [oracle_means(text) for text in expected]
    assert means[0]["alpha-nDCG@20"] != means[1]["alpha-nDCG@20"]
    lines = result.stdout.decode().splitlines()
    if fmt == "json":
        records = [json.loads(line) for line in lines]
        assert [r["run"] for r in records] == [str(p) for p in paths]
        assert [r["runid"] for r in records] == ["indri", "indri"]
        got = [{name: "%.6f" % r[name] for name in means[0]} for r in records]
        assert got == means
    elif fmt == "trec":
        blocks = [line for line in lines if line.startswith("runid")]
        assert len(blocks) == 2 and all(line.endswith("\tindri") for line in blocks)
        values = [line.split("\t") for line in lines if line.startswith("alpha-nDCG@20 ")]
        assert [v[2] for v in values] == ["%.4f" % float(m["alpha-nDCG@20"]) for m in means]
    else:
        header = lines[0].split()
        rows = [line.split() for line in lines[2:]]
        column = header.index("alpha-nDCG@20")
        # The table names runs by their labels (labels.py): one runtag, so the files' distinguishing suffixes.
        assert [row[:2] for row in rows] == [["ql/results-cata.txt", "amean"], ["rm/results-cata.txt", "amean"]]
        assert [row[column] for row in rows] == ["%.4f" % float(m["alpha-nDCG@20"]) for m in means]


def test_library_frames_are_keyed_by_file():
    qrels, paths, expected = baselines()
    frame = divaleval.evaluate(str(qrels), [str(p) for p in paths], measures=["alpha-nDCG@20", "MAP-IA"],
                               complete=True, warn=lambda message: None)
    assert frame.index.name == "run"
    assert list(dict.fromkeys(frame.index)) == [str(p) for p in paths]
    assert set(frame.runid) == {"indri"}
    means = divaleval.mean_rows(frame)
    assert list(means.index) == [str(p) for p in paths]
    assert divaleval.mean_rows(frame.reset_index()).equals(means.reset_index())  # the key as a column
    for (_, row), text in zip(means.iterrows(), expected):
        oracle = oracle_means(text)
        assert "%.6f" % row["alpha-nDCG@20"] == oracle["alpha-nDCG@20"]
        assert "%.6f" % row["MAP-IA"] == oracle["MAP-IA"]


def test_one_file_given_twice_is_two_results_with_distinct_keys():
    run = EX / "runA.txt"
    frame = divaleval.evaluate(str(EX / "qrels.txt"), [str(run), str(run)], measures=["alpha-nDCG@20"],
                               warn=lambda message: None)
    assert list(dict.fromkeys(frame.index)) == [str(run), f"{run}#2"]
    assert len(divaleval.mean_rows(frame)) == 2
    result = run_cli([EX / "qrels.txt", run, run])
    assert b"is also that of" not in result.stderr  # the same run twice is not two runs sharing a tag
