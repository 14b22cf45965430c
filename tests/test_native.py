"""The native command: same numbers as `divaleval ndeval -traditional`, and bulk input."""
from __future__ import annotations

import gzip
import shutil

import pytest

from conftest import NDEVAL_EXAMPLES as EX, SAMPLE, run_cli, run_ndeval, shared_path


def csv_rows(text: str) -> dict[str, list[str]]:
    """topic -> printed values of an ndeval-format CSV holding one run."""
    lines = text.splitlines()[1:]
    return {line.split(",")[1]: line.split(",")[2:] for line in lines}


def native_rows(args: list) -> dict[str, list[str]]:
    from click.testing import CliRunner

    from divaleval.cli import evaluate_command

    result = CliRunner().invoke(evaluate_command, ["-q", *[str(a) for a in args]])
    assert result.exit_code == 0, result.output
    return csv_rows(result.stdout)


def assert_same_numbers(native: dict, compat: dict) -> None:
    common = set(native) & set(compat)
    assert common, "no topic printed by both"
    for topic in common:
        assert native[topic] == compat[topic], topic


@pytest.mark.parametrize("native_flags,ndeval_flags", [
    ([], []),
    (["-c"], ["-c"]),
    (["-M", "10"], ["-M", "10"]),
    (["-m", "ndeval(alpha=0.8,beta=0.9)"], ["-alpha", "0.8", "-beta", "0.9"]),
])
@pytest.mark.parametrize("qrels,run", [("qrels.txt", "runA.txt"), ("qrels.txt", "runB.txt"),
                                       ("qrels_mini.txt", "run_mini.txt")])
def test_examples_match_ndeval_traditional(qrels, run, native_flags, ndeval_flags):
    if native_flags[:1] == ["-m"]:
        native_flags = ["-m", ",".join(
            f"{m}(alpha=0.8)@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)
        ) + ",NRBP(alpha=0.8,beta=0.9),nNRBP(alpha=0.8,beta=0.9),MAP-IA,"
          + ",".join(f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20))]
    _, compat, _ = run_ndeval(["-traditional", *ndeval_flags, EX / qrels, EX / run])
    assert_same_numbers(native_rows([*native_flags, EX / qrels, EX / run]), csv_rows(compat))


@pytest.mark.parametrize("run", ["ql/results-cata.txt", "rm/results-catb-filtered.txt"])
@pytest.mark.parametrize("flags", [["-c"], ["-c", "-M", "10"]])
def test_trec2012_matches_ndeval_traditional(run, flags):
    data = shared_path("data", "trec-web", "2012")
    qrels, path = data / "qrels-for-ndeval.txt", data / "baseline-runs" / run
    _, compat, _ = run_ndeval(["-traditional", *flags, qrels, path])
    assert_same_numbers(native_rows([*flags, qrels, path]), csv_rows(compat))


def test_rank_order_matches_ndeval_default():
    # --order rank is ndeval's default order.
    _, compat, _ = run_ndeval([EX / "qrels.txt", EX / "runB.txt"])
    assert_same_numbers(native_rows(["--order", "rank", EX / "qrels.txt", EX / "runB.txt"]), csv_rows(compat))


def test_many_runs_directories_gzip_and_stdin_in_one_call(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(EX / "runA.txt", folder / "a.txt")
    with gzip.open(folder / "b.txt.gz", "wb") as handle:
        handle.write((EX / "runB.txt").read_bytes())
    qrels_gz = tmp_path / "qrels.txt.gz"
    qrels_gz.write_bytes(gzip.compress((EX / "qrels.txt").read_bytes()))
    stdin_run = (EX / "runB.txt").read_bytes().replace(b" runB", b" runC")

    both = run_cli(["-c", qrels_gz, folder, "-", EX / "runA.txt"], stdin=stdin_run)
    assert both.returncode == 0, both.stderr
    out = both.stdout.decode()
    header, *rows = out.splitlines()
    assert header.startswith("runid,topic,ERR-IA@5,")
    assert [r.split(",")[0] for r in rows if r.split(",")[1] == "amean"] == ["runA", "runB", "runC", "runA"]

    single = {}
    for name in ("runA", "runB"):
        result = run_cli(["-c", EX / "qrels.txt", EX / f"{name}.txt"])
        single[name] = result.stdout.decode().splitlines()[1:]
    expected = single["runA"] + single["runB"] + [r.replace("runB,", "runC,", 1) for r in single["runB"]] \
        + single["runA"]
    assert rows == expected


def test_library_api_returns_per_topic_frame():
    import divaleval

    frame = divaleval.evaluate(str(EX / "qrels.txt"), [str(EX / "runA.txt"), str(EX / "runB.txt")],
                               measures=["alpha-nDCG@20", "MAP-IA"], warn=lambda message: None)
    assert list(frame.columns) == ["runid", "topic", "alpha-nDCG@20", "MAP-IA"]
    assert frame[frame.runid == "runA"].topic.tolist() == ["1", "2", "3"]
    assert not frame.isna().any().any()
    means = divaleval.mean_rows(frame)
    # runA's alpha-nDCG@20 mean as ndeval prints it (runA.traditional.csv: 0.556729).
    assert "%.6f" % means.loc[means.runid == "runA", "alpha-nDCG@20"].item() == "0.556729"


def test_demo_data_runs():
    result = run_cli(["-f", "table", SAMPLE / "qrels.txt", SAMPLE / "runs"])
    assert result.returncode == 0, result.stderr
    assert b"diverse" in result.stdout and b"amean" in result.stdout


@pytest.mark.parametrize("jobs", ["2", "3", "0"])
def test_jobs_give_byte_identical_output(jobs):
    args = ["-c", EX / "qrels.txt", EX / "runA.txt", EX / "runB.txt", SAMPLE / "runs", EX / "runA.txt"]
    one = run_cli(["-j", "1", *args])
    many = run_cli(["-j", jobs, *args])
    assert one.returncode == many.returncode == 0
    assert many.stdout == one.stdout and many.stderr == one.stderr


def test_jobs_report_a_bad_run_like_one_process(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 x r\n")
    one = run_cli(["-j", "1", EX / "qrels.txt", EX / "runB.txt", bad])
    many = run_cli(["-j", "2", EX / "qrels.txt", EX / "runB.txt", bad])
    assert one.returncode == many.returncode == 2
    assert many.stdout == one.stdout and many.stderr == one.stderr
    assert f"{bad}:1: score 'x'".encode() in many.stderr


def test_jobs_where_processes_are_spawned_not_forked(monkeypatch):
    # macOS and Windows start workers by spawning: the evaluator (measures, qrels, cached ideals) is pickled.
    import multiprocessing

    import divaleval

    args = (str(EX / "qrels.txt"), [str(EX / "runA.txt"), str(EX / "runB.txt")])
    kwargs = {"measures": ["all"], "warn": lambda message: None}
    one = divaleval.evaluate(*args, **kwargs)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    spawned = divaleval.evaluate(*args, jobs=2, **kwargs)
    assert spawned.equals(one)
