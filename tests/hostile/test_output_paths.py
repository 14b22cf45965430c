"""Hostile input, round 2 (issue 26, items 1, 2 and 6): output paths checked before any work, results never
lost to a failing figure, simulate-preferences sized before it starts, -j capped at the runs and the cores,
and every per-topic format divaleval prints read back by compare and meta --scores."""
from __future__ import annotations

import errno
import itertools
import json
import multiprocessing
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

import divaleval
from conftest import SAMPLE, run_cli
from divaleval import evaluator, placement
from divaleval.io.scores import read_scores
from divaleval.output import paths
from divaleval.output.paths import FIGURE, FILE, FOLDER, OutputPathError, check_output
from hostile import harness as h

QRELS = SAMPLE / "qrels.txt"
RUNS = SAMPLE / "runs"
RUN = RUNS / "bm25.txt"
RUN_FILES = sorted(RUNS.iterdir())
FEW = ["-q", "-B", "20", "-m", "alpha-nDCG@10,ERR-IA@10"]


# -- 1. every output path checked before any work ------------------------------------------------------

def _commands(output: str, missing_run: str) -> dict[str, list[str]]:
    """Each output option, with an input that does not exist: were anything read before the output path is
    checked, the error would name that input instead."""
    return {
        "compare --plot": ["compare", *FEW, "--plot", output, QRELS, RUNS, missing_run],
        "meta --plot": ["meta", *FEW, "--plot", output, QRELS, RUNS, missing_run],
        "meta --plot-tau": ["meta", *FEW, "--plot-tau", output, QRELS, RUNS, missing_run],
        "simulate-preferences -o": ["simulate-preferences", "--pool", missing_run, "-o", output, QRELS],
        "validate --fix": ["validate", "--topics", missing_run, "--fix", output, RUN],
    }


COMMANDS = list(_commands("x", "y"))


def _bad_outputs(tmp_path) -> dict[str, str]:
    """Paths that cannot be written, each a figure by its name. The test runs as root, whom chmod does not
    stop: a directory that cannot be written in is one under a regular FILE (ENOTDIR), which stops root too."""
    folder = tmp_path / "folder.png"
    folder.mkdir()
    regular = tmp_path / "regular"
    regular.write_text("a file, not a directory\n")
    return {
        "no such directory": (str(tmp_path / "missing" / "out.png"), "does not exist"),
        "a directory": (str(folder), "is a directory"),
        "under a regular file": (str(regular / "out.png"), "is not a directory"),
    }


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", ["no such directory", "a directory", "under a regular file"])
def test_an_output_path_that_cannot_be_written_is_refused_before_any_input_is_read(tmp_path, command, case):
    if command == "validate --fix" and case != "under a regular file":
        pytest.skip("--fix writes into a directory, made if missing (test_validate_fix_makes_its_directory)")
    output, reason = _bad_outputs(tmp_path)[case]
    option = command.split()[1]
    before = sorted(os.listdir(tmp_path))
    result = run_cli(_commands(output, str(tmp_path / "no-such-run.txt"))[command])
    stderr = result.stderr.decode()
    assert (result.returncode, result.stdout) == (2, b""), stderr
    assert stderr.startswith(f"divaleval: {option} {output}") and reason in stderr, stderr
    assert "Traceback" not in stderr and "no-such-run" not in stderr
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("command", COMMANDS)
def test_an_input_given_as_output_is_refused_and_left_as_it_was(tmp_path, command):
    qrels = tmp_path / "qrels.png"          # a figure's name, so that only being an input is wrong with it
    qrels.write_bytes(QRELS.read_bytes())
    argv = _commands(str(qrels), str(tmp_path / "no-such-run.txt"))[command]
    argv = [qrels if item == QRELS else item for item in argv]
    if command.startswith("validate"):
        argv[argv.index("--topics") + 1] = qrels   # the topic list is an input of validate
    if command.startswith("simulate"):
        argv[argv.index("--pool") + 1] = RUN
        argv.insert(1, "--force")                   # replacing is allowed, an input never
    result = run_cli(argv)
    stderr = result.stderr.decode()
    assert (result.returncode, result.stdout) == (2, b""), stderr
    assert f"{qrels} is an input: it will not be overwritten" in stderr, stderr
    assert qrels.read_bytes() == QRELS.read_bytes()


def test_a_run_in_an_input_directory_and_another_name_for_an_input_are_inputs(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for run in RUN_FILES:
        (runs / run.with_suffix(".png").name).write_bytes(run.read_bytes())
    linked = tmp_path / "linked.png"
    os.link(runs / "bm25.png", linked)      # a hard link: another name, the same file
    for target, shown in ((runs / "diverse.png", ""), (linked, f" (as {runs / 'bm25.png'})")):
        result = run_cli(["compare", *FEW, "--plot", target, QRELS, runs])
        assert result.returncode == 2
        assert f"--plot {target} is an input{shown}: it will not be overwritten" in result.stderr.decode()


def test_two_figures_to_one_file_are_refused(tmp_path):
    figure = tmp_path / "both.png"
    result = run_cli(["meta", *FEW, "--plot", figure, "--plot-tau", figure, QRELS, RUNS])
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode() == f"divaleval: --plot-tau {figure} is also the file of --plot: give each its own\n"


def test_an_unknown_figure_format_is_refused_and_the_known_are_matplotlibs():
    with pytest.raises(OutputPathError, match=r"--plot x\.gif: a figure is written as \.png, \.pdf, \.svg"):
        check_output("x.gif", "--plot", kind=FIGURE)
    backend_bases = pytest.importorskip("matplotlib.backend_bases")
    supported = backend_bases.FigureCanvasBase.get_supported_filetypes()
    assert {suffix.lstrip(".") for suffix in paths.FIGURE_SUFFIXES} <= set(supported)


def test_a_directory_that_cannot_be_written_in_is_refused(tmp_path, monkeypatch):
    """os.access says no to root only on a read-only file system; none is at hand, so it is made to say no."""
    real = os.access
    monkeypatch.setattr(paths.os, "access", lambda path, mode: False if str(path) == str(tmp_path) else real(path, mode))
    with pytest.raises(OutputPathError, match=f"-o {tmp_path}/out: cannot write in {tmp_path} "
                                              r"\(no permission, or a read-only file system\)"):
        check_output(str(tmp_path / "out"), "-o")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a directory whatever its mode")
def test_a_read_only_directory_is_refused_for_an_ordinary_user(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    result = run_cli(["compare", *FEW, "--plot", locked / "x.png", QRELS, RUNS])
    assert result.returncode == 2 and "cannot write in" in result.stderr.decode()


def test_folders_and_missing_parents(tmp_path):
    check_output(str(tmp_path / "new" / "deeper"), "--fix", kind=FOLDER)          # made when written
    check_output(str(tmp_path / "new" / "file.txt"), "--fix", kind=FILE, parents=True)
    with pytest.raises(OutputPathError, match="does not exist"):
        check_output(str(tmp_path / "new" / "file.txt"), "--fix")
    (tmp_path / "plain").write_text("x")
    with pytest.raises(OutputPathError, match="not a directory"):
        check_output(str(tmp_path / "plain"), "--fix", kind=FOLDER)
    with pytest.raises(OutputPathError, match="an empty path"):
        check_output("", "-o")


def test_validate_fix_makes_its_directory(tmp_path):
    target = tmp_path / "new" / "deeper" / "fixed.txt"
    assert run_cli(["validate", "--fix", target, RUN]).returncode == 0
    assert target.read_bytes() == RUN.read_bytes()


def test_validate_fix_into_a_folder_under_a_file_is_refused(tmp_path):
    regular = tmp_path / "regular"
    regular.write_text("x")
    result = run_cli(["validate", "--fix", f"{regular}/fixed/", RUNS])
    assert result.returncode == 2 and result.stdout == b""
    assert f"--fix {regular}/fixed/: {regular} is not a directory" in result.stderr.decode()


# -- results are never lost to a figure that fails to be written -----------------------------------------

def _disk_full(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("option", ["--plot", "--plot-tau"])
@pytest.mark.parametrize("command", ["compare", "meta"])
def test_a_figure_that_fails_to_be_written_loses_nothing_else(tmp_path, monkeypatch, command, option):
    pytest.importorskip("matplotlib")
    if command == "compare" and option == "--plot-tau":
        pytest.skip("compare draws one figure")
    monkeypatch.setattr("divaleval.output.plots.atomic_output", _disk_full)  # full once checked
    figure = tmp_path / "figure.png"
    args = [command, *FEW, "--seed", "3", str(QRELS), str(RUNS)]
    expected = h.invoke(h.NATIVE, args)
    outcome = h.invoke(h.NATIVE, [*args, option, str(figure)])
    h.check_sound(outcome)
    assert expected.status == 0 and outcome.status == 2
    assert outcome.stdout == expected.stdout                 # the report, whole, before the error
    assert outcome.stderr == f"divaleval: {figure}: cannot write: No space left on device\n"
    assert not figure.exists()


def test_simulate_preferences_output_that_fails_to_be_written_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr("divaleval.cli.simulate_preferences.atomic_output", _disk_full)
    target = tmp_path / "prefs.txt"
    outcome = h.invoke(h.NATIVE, ["simulate-preferences", "-o", str(target), str(QRELS)])
    h.check_sound(outcome)
    assert (outcome.status, outcome.stdout) == (2, b"")
    assert outcome.stderr == f"divaleval: -o {target}: cannot write: No space left on device\n"


# -- 2. simulate-preferences: its size worked out before it starts ------------------------------------------

def _qrels(tmp_path, topics: int, documents: int, docno=lambda d: f"d{d:04d}") -> str:
    path = tmp_path / "qrels.txt"
    with path.open("w") as handle:
        for topic in range(1, topics + 1):
            for d in range(documents):
                for intent in (1, 2, 3):
                    handle.write(f"{topic} {intent} {docno(d)} {(d * intent + topic) % 3 != 0:d}\n")
    return str(path)


@pytest.mark.parametrize("kind", ["both", "pairs", "triplets"])
@pytest.mark.parametrize("extra", [[], ["--pool", str(RUNS), "--pool-depth", "5"], ["--compat", "evalir"]])
def test_the_estimate_is_the_number_of_lines_and_bytes_written(kind, extra):
    """Exact in lines; in bytes too where every docno has one length (a winner's length is then known)."""
    result = run_cli(["simulate-preferences", "--kind", kind, *extra, QRELS])
    assert result.returncode == 0
    pool = [str(RUN) for RUN in RUN_FILES] if extra[:1] == ["--pool"] else []
    size = divaleval.simulate_preferences(str(QRELS), kind=kind, pool=pool, pool_depth=5).size
    assert (size.lines, size.bytes) == (result.stdout.count(b"\n"), len(result.stdout))


def test_with_docnos_of_many_lengths_lines_are_exact_and_bytes_close(tmp_path):
    qrels = _qrels(tmp_path, 3, 30, docno=lambda d: f"{d}" + "x" * (d % 17))
    for kind in ("pairs", "triplets"):
        written = run_cli(["simulate-preferences", "--kind", kind, qrels]).stdout
        size = divaleval.simulate_preferences(qrels, kind=kind).size
        assert size.lines == written.count(b"\n")
        assert abs(size.bytes - len(written)) < 0.02 * len(written)


def test_a_simulation_past_max_lines_is_refused_with_its_size_and_how_to_narrow_it(tmp_path):
    qrels = _qrels(tmp_path, 2, 40)
    size = divaleval.simulate_preferences(qrels).size
    target = tmp_path / "prefs.txt"
    result = run_cli(["simulate-preferences", "--max-lines", str(size.lines - 1), "-o", target, qrels])
    stderr = result.stderr.decode()
    assert (result.returncode, result.stdout) == (2, b""), stderr
    assert stderr.startswith(f"divaleval: simulate-preferences would write {size.lines:,} judgments (about ")
    for advice in (f"more than --max-lines {size.lines - 1}", "cube of the documents judged", "--pool RUN",
                   "--pool-depth", "--kind pairs", "--profiles", "0: no limit"):
        assert advice in stderr
    assert not target.exists() and os.listdir(tmp_path) == ["qrels.txt"]
    for limit in (size.lines, 0):   # at the limit, and without one
        assert run_cli(["simulate-preferences", "--max-lines", str(limit), qrels]).stdout.count(b"\n") == size.lines


def test_the_default_limit_refuses_the_trec_2012_qrels_at_once():
    from conftest import shared_path

    qrels = shared_path("data", "trec-web", "2012", "qrels-for-ndeval.txt")
    started = time.monotonic()
    result = run_cli(["simulate-preferences", qrels])
    assert result.returncode == 2 and result.stdout == b""
    assert "would write 65,482,985 judgments (about 7.4 GB), more than --max-lines 10000000" in result.stderr.decode()
    assert time.monotonic() - started < 30


def _with_a_terminal_for_stderr(argv: list) -> tuple[bytes, bytes]:
    """(stdout, what the terminal showed) of divaleval ARGV whose standard error is a terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "divaleval", *map(str, argv)], stdout=subprocess.PIPE,
                               stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    received = {leader: b"", process.stdout.fileno(): b""}
    open_ends = set(received)
    while open_ends:
        ready, _, _ = select.select(list(open_ends), [], [], 60)
        assert ready, "no output for a minute"
        for end in ready:
            try:
                chunk = os.read(end, 1 << 16)
            except OSError:   # the terminal's other end closed: the process is done with it
                chunk = b""
            if chunk:
                received[end] += chunk
            else:
                open_ends.discard(end)
    process.wait(60)
    os.close(leader)
    return received[process.stdout.fileno()], received[leader]


def test_simulate_preferences_shows_progress_on_a_terminal_only(tmp_path):
    qrels = _qrels(tmp_path, 2, 40)
    out, shown = _with_a_terminal_for_stderr(["simulate-preferences", qrels])
    piped = run_cli(["simulate-preferences", qrels])
    assert out == piped.stdout and piped.stderr == b""
    lines = out.count(b"\n")
    assert f"{lines}/{lines} judgments".encode() in shown and b"100%" in shown


# -- 2. -j: never more workers than runs or cores ---------------------------------------------------------

def test_jobs_are_capped_at_the_cores(monkeypatch):
    monkeypatch.setattr(placement.os, "cpu_count", lambda: 4)
    assert [placement.worker_processes(jobs) for jobs in (0, 1, 3, 4, 5, 1000)] == [4, 1, 3, 4, 4, 4]
    with placement.placed(1000) as place:
        assert place.jobs == 4


def test_the_pool_has_at_most_one_worker_per_run():
    workers, inputs = evaluator.pool_size(1000, iter(["a", "b", "c"]))
    assert (workers, list(inputs)) == (3, ["a", "b", "c"])
    workers, inputs = evaluator.pool_size(2, itertools.count())
    assert workers == 2 and list(itertools.islice(inputs, 4)) == [0, 1, 2, 3]


def test_j_1000_on_three_runs_starts_three_workers(monkeypatch):
    monkeypatch.setattr(placement.os, "cpu_count", lambda: 64)   # a big machine: the runs are the bound
    started = []
    real = multiprocessing.get_context

    class Recorded:
        def __init__(self, method):
            self.context = real(method)

        def Pool(self, processes, *args, **kwargs):
            started.append(processes)
            return self.context.Pool(processes, *args, **kwargs)

    monkeypatch.setattr(multiprocessing, "get_context", Recorded)  # (the evaluator imports it when it forks)
    many = divaleval.evaluate(str(QRELS), [str(run) for run in RUN_FILES], jobs=1000, warn=lambda m: None)
    one = divaleval.evaluate(str(QRELS), [str(run) for run in RUN_FILES], warn=lambda m: None)
    assert started == [3] and many.equals(one)


# -- 6. compare and meta --scores read every format divaleval prints ---------------------------------------

SCORES_MEASURES = "alpha-nDCG@10,ERR-IA@20,P-IA@10,MAP-IA"


def _printed(tmp_path, fmt: str, *options: str) -> str:
    path = tmp_path / f"scores.{fmt}"
    result = run_cli(["-c", "-q", "-f", fmt, "-m", SCORES_MEASURES, *options, QRELS, RUNS])
    assert result.returncode == 0
    path.write_bytes(result.stdout)
    return str(path)


def _rounded_json(tmp_path, digits: int) -> str:
    """The JSON scores as a format of ``digits`` decimals prints them, each run named by its runtag (as the
    CSV, trec and table formats name it)."""
    path = tmp_path / f"rounded{digits}.jsonl"
    with path.open("w") as handle:
        for line in open(_printed(tmp_path, "json")):
            record = json.loads(line)
            record["run"] = record["runid"]
            record.update((key, float(f"{value:.{digits}f}")) for key, value in record.items()
                          if key not in ("run", "runid", "topic"))
            handle.write(json.dumps(record) + "\n")
    return str(path)


COMPARISONS = [["compare", "-B", "500", "-f", "csv"], ["compare", "-B", "500"], ["meta", "-B", "200", "-s", "tau"]]


@pytest.mark.parametrize("command", COMPARISONS)
def test_json_scores_give_what_the_runs_give(tmp_path, command):
    from_runs = run_cli([*command, "-q", "-m", SCORES_MEASURES, QRELS, RUNS])
    from_scores = run_cli([*command, "-q", "--scores", _printed(tmp_path, "json")])
    assert from_runs.returncode == 0 and from_scores.stdout == from_runs.stdout


@pytest.mark.parametrize("fmt, digits", [("ndeval", 6), ("trec", 4), ("table", 4)])
@pytest.mark.parametrize("command", COMPARISONS)
def test_every_format_gives_what_its_printed_digits_give(tmp_path, command, fmt, digits):
    """The scores as printed, compared: the same report as from the runs' scores rounded to those digits."""
    expected = run_cli([*command, "-q", "--scores", _rounded_json(tmp_path, digits)])
    result = run_cli([*command, "--scores", _printed(tmp_path, fmt)])
    assert expected.returncode == 0 and result.returncode == 0
    assert result.stdout == expected.stdout
    warned = f"scores printed by -f {fmt} with 4 decimals are read as printed".encode()
    assert (warned in result.stderr) == (fmt != "ndeval")


@pytest.mark.parametrize("fmt", ["ndeval", "trec", "table", "json"])
def test_every_format_reads_back_the_same_runs_topics_and_values(tmp_path, fmt):
    exact = read_scores(_printed(tmp_path, "json"))
    table = read_scores(_printed(tmp_path, fmt), lambda message: None)
    assert table.runids == exact.runids and table.topic == exact.topic and table.measures == exact.measures
    assert abs(table.values - exact.values).max() <= (0 if fmt == "json" else 0.5e-4 if fmt != "ndeval" else 0.5e-6)


def test_two_runs_with_one_runtag_stay_two_in_trec_lines_and_tables(tmp_path):
    for fmt in ("trec", "table"):
        result = run_cli(["-c", "-q", "-f", fmt, "-m", "P-IA@10", QRELS, RUN, RUN])
        path = tmp_path / f"twice.{fmt}"
        path.write_bytes(result.stdout)
        # The table names runs by their labels (labels.py): with one runtag, the files' distinguishing suffixes.
        expected = ["bm25", "bm25#2"] if fmt == "trec" else ["bm25.txt", "bm25.txt#2"]
        assert read_scores(str(path), lambda message: None).runs == expected


@pytest.mark.parametrize("fmt", ["ndeval", "trec", "table", "json"])
def test_means_only_and_risk_output_are_refused_saying_why(tmp_path, fmt):
    means = run_cli(["compare", "-q", "--scores", _printed(tmp_path, fmt, "-n")])
    assert means.returncode == 2 and "holds no per-topic scores (only means? print them without -n)" \
        in means.stderr.decode()
    risk = run_cli(["compare", "-q", "--scores", _printed(tmp_path, fmt, "--baseline", str(RUN))])
    assert risk.returncode == 2 and "TRisk is a risk summary (divaleval --baseline)" in risk.stderr.decode()
    assert "Traceback" not in means.stderr.decode() + risk.stderr.decode()


NOT_AS_PRINTED = {  # what the file holds -> (line, message)
    "runid tag\n": (1, "not a score file: expected divaleval's per-topic output: ndeval's CSV (the default; a header "
                       "'runid,topic,...'), -f json, -f trec or -f table; print one with divaleval -c -f json"),
    "runid\tall\tx\nm\t1\t0.5\nm 1 0.5\n": (3, "expected 3 fields apart by tabs"),
    "runid\tall\tx\nm\t1\t0.5\nm\t1\t0.5\n": (3, "m of topic '1' repeats line 2"),
    "runid\tall\tx\nm\t1\t0.5\nm\t2\t0.5\nn\t2\t0.5\n": (4, "measure 'n' is not among those of the first topic"),
    "runid\tall\tx\nm\t1\t0.5\nn\t1\t0.5\nm\t2\t0.5\n": (4, "topic '2' of run 'x' has no n"),
    "runid\tall\tx\nm\t1\thigh\n": (2, "m 'high' is not a number"),
    "  runid    topic    m\n-------  -------  ---\n      x        1  0.5  9\n": (3, "expected 3 fields, found 4"),
}


@pytest.mark.parametrize("text", list(NOT_AS_PRINTED))
def test_trec_lines_and_tables_that_are_not_what_divaleval_prints_name_the_line(tmp_path, text):
    line, message = NOT_AS_PRINTED[text]
    path = tmp_path / "scores"
    path.write_text(text)
    outcome = h.invoke(h.NATIVE, ["compare", "-q", "--scores", str(path)])
    h.check_sound(outcome)
    assert (outcome.status, outcome.stdout) == (2, b"")
    assert outcome.stderr.startswith(f"divaleval: {path}:{line}: {message}"), outcome.describe()


# -- 6. -f table: written once every run is scored, with progress meanwhile; the others stream -----------------

def test_the_help_says_why_the_table_waits():
    text = " ".join(run_cli(["--help"]).stdout.decode().split())
    assert "table aligns every column to its widest value over all the runs, so it prints once the last is " \
           "scored (with a progress bar meanwhile, on a terminal)" in text


def test_a_table_shows_progress_on_a_terminal_while_it_waits():
    out, shown = _with_a_terminal_for_stderr(["-f", "table", QRELS, RUNS])
    assert out == run_cli(["-f", "table", QRELS, RUNS]).stdout
    assert b"3/3 runs" in shown and b"100%" in shown


@pytest.mark.parametrize("fmt, streams", [("ndeval", True), ("trec", True), ("json", True), ("table", False)])
def test_a_runs_rows_are_printed_before_the_next_run_is_read(tmp_path, fmt, streams):
    """The second run is a FIFO written only once the first run's rows are (or, for the table, are not) out."""
    fifo = tmp_path / "second.txt"
    os.mkfifo(fifo)
    process = subprocess.Popen([sys.executable, "-m", "divaleval", "-q", "-f", fmt, str(QRELS), str(RUN), str(fifo)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 20 if streams else 3)
        assert bool(ready) == streams
        first = b""
        while streams and not re.search(rb"amean|\tall\t[0-9]", first):  # the first run's mean: all out
            assert select.select([process.stdout], [], [], 20)[0], f"the first run's rows are not all out: {first}"
            first += os.read(process.stdout.fileno(), 1 << 20)
        assert b"diverse" not in first
        with open(fifo, "wb") as handle:
            handle.write((RUNS / "diverse.txt").read_bytes())
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    whole = run_cli(["-q", "-f", fmt, QRELS, RUN, RUNS / "diverse.txt"]).stdout
    assert (first + out).replace(str(fifo).encode(), b"") == \
        whole.replace(str(RUNS / "diverse.txt").encode(), b"")
