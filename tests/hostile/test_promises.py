"""The promises of docs/bad-input.md about bad input (its table, and its lines on exit status and writing),
each with a test named after it (issue 26, item 7).

A promise that other hostile tests already check word for word is named here by importing that test under
the promise's name; the others are checked here, on every command where the page makes them.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from conftest import NDEVAL_EXAMPLES as EX, run_cli, sigint_as_a_terminal_sends_it
from hostile import harness as h
# Promises of the table in docs/bad-input.md that earlier hostile tests check as the page words them.
from hostile.test_native_errors import test_bad_run as test_promise_a_line_with_too_few_fields_is_an_error_naming_it
from hostile.test_native_errors import test_dedupe_keeps_the_first_ranked_copy as \
    test_promise_dedupe_keeps_a_runs_first_ranked_copy
from hostile.test_native_input import (
    test_a_cutoff_past_every_ranking_costs_nothing_more as test_promise_a_cutoff_far_past_any_ranking_costs_nothing,
    test_a_file_that_is_no_run_stops_everything_before_anything_is_printed as
    test_promise_the_first_100_lines_of_every_run_are_read_before_anything_is_printed,
    test_a_judgment_of_twenty_digits_is_out_of_range as test_promise_a_judgment_out_of_16_bits_is_an_error,
    test_a_reader_that_goes_away_ends_the_command_quietly as test_promise_stdout_closed_early_ends_by_sigpipe,
    test_any_ascii_whitespace_separates_fields as test_promise_any_ascii_whitespace_separates_fields,
    test_crlf_bom_indentation_blank_lines_and_no_final_newline as
    test_promise_crlf_a_bom_blank_lines_and_no_final_newline_are_accepted,
    test_cutoffs_out_of_range_are_usage_errors as test_promise_cutoffs_above_a_billion_are_usage_errors,
    test_invalid_utf8_in_ids_is_kept_byte_for_byte as test_promise_bytes_that_are_not_utf8_are_kept_byte_for_byte,
    test_named_pipes_process_substitution_and_dev_stdin as test_promise_pipes_fifos_and_dev_stdin_are_read_once,
    test_numbers_are_plain_ascii as test_promise_a_number_that_is_not_plain_ascii_is_an_error,
    test_ranks_beyond_64_bits_matter_only_to_the_rank_order as test_promise_a_rank_beyond_64_bits_is_accepted,
    test_skip_bad_also_skips_a_run_bad_past_its_first_lines as test_promise_skip_bad_skips_a_bad_run_with_a_warning,
    test_standard_input_can_feed_one_input_only as test_promise_standard_input_named_twice_is_an_error,
    test_trailing_fields_of_a_run_line_are_ignored_with_one_warning as
    test_promise_fields_past_the_sixth_are_ignored_with_one_warning,
)
from hostile.test_round2 import (
    test_a_normaliser_that_would_sum_minutes_of_ranks_is_refused_when_parsed as
    test_promise_alpha_0_cutoffs_past_ten_million_are_usage_errors,
    test_a_topic_written_with_leading_zeros_is_another_topic_and_the_warning_says_so as
    test_promise_a_topic_written_otherwise_is_named_with_the_qrels_topic,
    test_archives_are_named_not_read as test_promise_a_zip_or_7z_archive_is_named_not_read,
    test_ctrl_c_while_writing_leaves_no_partial_output_file as
    test_promise_ctrl_c_never_leaves_a_file_half_written,
)
from hostile.test_commands_properties import (
    test_axioms_refuse_work_that_would_take_hours as test_promise_work_no_one_could_wait_for_is_a_usage_error,
    test_output_paths as test_promise_a_bad_output_path_is_refused_before_any_work,
)
from hostile.test_output_paths import (
    test_a_figure_that_fails_to_be_written_loses_nothing_else as
    test_promise_a_figure_that_fails_after_the_work_loses_nothing_printed,
    test_a_simulation_past_max_lines_is_refused_with_its_size_and_how_to_narrow_it as
    test_promise_simulate_preferences_past_max_lines_is_refused_before_starting,
    test_j_1000_on_three_runs_starts_three_workers as test_promise_j_above_the_cores_or_runs_starts_no_more_workers,
    test_every_format_gives_what_its_printed_digits_give as test_promise_scores_in_trec_or_table_form_are_read_as_printed,
)

QRELS = EX / "qrels.txt"
RUN_A, RUN_B = EX / "runA.txt", EX / "runB.txt"
BAD_RUN = b"1 Q0 d01 1 2.5 r\n1 Q0 d02 2\n"  # line 2: four fields

# One bad file given to every command that reads files: the command line ({bad} is the bad file) and the
# exit status docs/bad-input.md gives for it.
EVERY_COMMAND = {
    "evaluate": (["{qrels}", "{bad}"], 2),
    "ndeval drop-in": (["ndeval", "-traditional", "{qrels}", "{bad}"], 1),  # ndeval's own status
    "compare": (["compare", "-q", "-B", "10", "{qrels}", "{run}", "{bad}"], 2),
    "meta": (["meta", "-q", "-B", "10", "-m", "alpha-nDCG@5,ERR-IA@5", "{qrels}", "{run}", "{bad}"], 2),
    "validate": (["validate", "--topics", "{qrels}", "--max-docs", "x", "{bad}"], 2),
    "simulate-preferences": (["simulate-preferences", "--pool", "{bad}", "{qrels}"], 2),
}


def command_line(tmp_path: Path, name: str) -> tuple[list[str], int, str]:
    args, status = EVERY_COMMAND[name]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(BAD_RUN)
    return [a.format(qrels=QRELS, run=RUN_A, bad=bad) for a in args], status, str(bad)


@pytest.mark.parametrize("name", list(EVERY_COMMAND))
def test_promise_never_a_traceback(tmp_path, name):
    """"Never a traceback": the real command, on a bad file, whatever the command."""
    args, _, _ = command_line(tmp_path, name)
    result = run_cli(args)
    assert b"Traceback" not in result.stderr and result.stderr, result.stderr


@pytest.mark.parametrize("name", list(EVERY_COMMAND))
def test_promise_exit_status_0_or_2(tmp_path, name):
    """"Exit status is 0 on success and 2 on a bad option or input" (the drop-in: ndeval's 1; validate: 1 for a
    run with problems, docs/commands/validate.md)."""
    args, status, _ = command_line(tmp_path, name)
    assert h.invoke(h.NATIVE, args).status == status
    good = [a.replace(str(tmp_path / "bad.txt"), str(RUN_B)) for a in args if a not in ("--max-docs", "x")]
    assert h.invoke(h.NATIVE, good).status == (1 if name == "validate" else 0)  # runB.txt has rank gaps: 1
    assert h.invoke(h.NATIVE, ["validate", RUN_A]).status == 0


@pytest.mark.parametrize("name", ["evaluate", "compare", "meta", "simulate-preferences"])
def test_promise_errors_name_file_and_line_and_nothing_goes_to_stdout(tmp_path, name):
    """"A message `divaleval: FILE:LINE: reason` on standard error, nothing further on standard output"."""
    args, _, bad = command_line(tmp_path, name)
    outcome = h.invoke(h.NATIVE, args)
    h.check_sound(outcome)
    assert outcome.status == 2 and outcome.stdout == b"", outcome.describe()
    assert outcome.stderr.splitlines()[-1].startswith(f"divaleval: {bad}:2: "), outcome.describe()


def test_promise_a_whole_file_problem_names_the_file(tmp_path):
    """"`FILE:` for a whole-file problem": a missing file, a folder, an empty run."""
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    (tmp_path / "folder").mkdir()
    for path, reason in ((tmp_path / "missing.txt", "cannot open"), (tmp_path / "folder", "directory holds no run "
                         "files"), (empty, "run file holds no results")):
        outcome = h.invoke(h.NATIVE, [QRELS, path])
        assert outcome.status == 2 and outcome.stdout == b"", outcome.describe()
        assert outcome.stderr.startswith(f"divaleval: {path}: {reason}"), outcome.describe()


def test_promise_never_a_hang(tmp_path):
    """"Never a hang": standard input that stays open is a wait for its writer, not a hang of ours; one that
    is closed, or empty, ends at once."""
    for stdin in (b"", BAD_RUN, b"\x00" * 100_000):
        outcome = h.invoke(h.NATIVE, [QRELS, "-"], stdin=stdin)
        h.check_sound(outcome)  # under harness.TIME_LIMIT
        assert outcome.status == 2, outcome.describe()
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "divaleval", str(QRELS), "-"], input=b"\x00" * 100_000,
                            capture_output=True, timeout=60)
    assert result.returncode == 2 and time.monotonic() - start < 30, result.stderr


def test_promise_never_a_made_up_number(tmp_path):
    """"Never a made-up number": a run that shares no topic with the qrels prints no mean over zero topics;
    with -c every qrels topic scores 0, as asked."""
    run = tmp_path / "run.txt"
    run.write_bytes(b"99 Q0 d01 1 1.0 r\n")
    outcome = h.invoke(h.NATIVE, [QRELS, run])
    assert outcome.status == 2 and outcome.stdout == b"", outcome.describe()
    assert outcome.stderr.startswith(f"divaleval: {run}: no topic of the run is in the qrels"), outcome.describe()
    outcome = h.invoke(h.NATIVE, ["-c", "-m", "ERR-IA@5", QRELS, run])
    assert outcome.status == 0
    assert {line.split(",")[2] for line in outcome.stdout.decode().splitlines()[1:]} == {"0.000000"}


@pytest.mark.parametrize("writer", ["compare --plot", "meta --plot", "simulate-preferences -o --force",
                                    "validate --fix"])
def test_promise_no_input_is_ever_written(tmp_path, writer):
    """"No input is ever written": every option that writes a file, pointed at an input, is refused, and the
    input is unchanged."""
    scores = tmp_path / "scores.png"  # a score file whose name a figure could have
    scores.write_bytes(h.invoke(h.NATIVE, ["-q", "-m", "ERR-IA@5,P-IA@5", QRELS, RUN_A, RUN_B]).stdout)
    run = tmp_path / "run.txt"
    run.write_bytes(RUN_A.read_bytes())
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS.read_bytes())
    argv = {
        "compare --plot": ["compare", "-q", "-B", "10", "--scores", scores, "--plot", scores],
        "meta --plot": ["meta", "-q", "-B", "10", "--scores", scores, "--plot", scores],
        "simulate-preferences -o --force": ["simulate-preferences", "-o", qrels, "--force", qrels],
        "validate --fix": ["validate", "--fix", run, run],
    }[writer]
    before = {path: path.read_bytes() for path in (scores, run, qrels)}
    outcome = h.invoke(h.NATIVE, argv)
    h.check_sound(outcome)
    assert outcome.status == 2 and "input" in outcome.stderr, outcome.describe()
    assert {path: path.read_bytes() for path in before} == before
    assert sorted(os.listdir(tmp_path)) == ["qrels.txt", "run.txt", "scores.png"]


def test_promise_ctrl_c_exits_130_and_says_interrupted(tmp_path):
    """"Ctrl-C: `divaleval: interrupted` on standard error and exit status 130", here in compare, reading its
    qrels from standard input (which stays open)."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    process = subprocess.Popen([sys.executable, "-m", "divaleval", "compare", "-q", "-", str(RUN_A), str(RUN_B)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               preexec_fn=sigint_as_a_terminal_sends_it)
    process.stdin.write(QRELS.read_bytes()[:50])
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("divaleval-*.input")):  # the copy of standard input being written
        assert process.poll() is None and time.monotonic() < deadline, "never got there"
        time.sleep(0.005)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, b"", b"divaleval: interrupted\n")


COMPRESSORS = {"gzip": lambda data: gzip.compress(data, mtime=0), "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("name", list(COMPRESSORS))
def test_promise_compressed_input_is_read_by_its_first_bytes(tmp_path, name):
    """"gzip, bzip2, xz, zstd or lz4 data (a file with any name, or standard input): recognised by its first
    bytes"; "cut short or corrupt: `FILE: cannot decompress bzip2 data: ...`"."""
    expected = h.invoke(h.NATIVE, [QRELS, RUN_A]).stdout
    packed = COMPRESSORS[name](RUN_A.read_bytes())
    run = tmp_path / "run.txt"
    run.write_bytes(packed)
    assert h.invoke(h.NATIVE, [QRELS, run]).stdout == expected
    assert h.invoke(h.NATIVE, [QRELS, "-"], stdin=packed).stdout == expected
    run.write_bytes(packed[: len(packed) // 2])
    outcome = h.invoke(h.NATIVE, [QRELS, run])
    assert outcome.status == 2 and outcome.stdout == b""
    assert outcome.stderr.startswith(f"divaleval: {run}: cannot decompress {name} data"), outcome.describe()


def test_promise_a_run_directory_holds_its_visible_files_only(tmp_path):
    """"A folder among the runs: every regular file in it, by name; dotfiles and subfolders are skipped"."""
    runs = tmp_path / "runs"
    (runs / "sub").mkdir(parents=True)
    (runs / "b.txt").write_bytes(RUN_B.read_bytes())
    (runs / "a.txt").write_bytes(RUN_A.read_bytes())
    (runs / ".hidden.txt").write_bytes(b"not a run\n")
    (runs / "sub" / "c.txt").write_bytes(b"not a run either\n")
    outcome = h.invoke(h.NATIVE, ["-n", QRELS, runs])
    assert outcome.status == 0, outcome.describe()
    assert [line.split(",")[0] for line in outcome.stdout.decode().splitlines()[1:]] == ["runA", "runB"]


def test_promise_unknown_run_topics_are_named_with_their_lines(tmp_path):
    """"Run topics the qrels lack ... accepted, each named in a warning" (with the lines it loses)."""
    run = tmp_path / "run.txt"
    run.write_bytes(RUN_A.read_bytes() + b"77 Q0 a 1 1 r\n77 Q0 b 2 1 r\n")
    outcome = h.invoke(h.NATIVE, [QRELS, run])
    assert outcome.status == 0 and outcome.stdout == h.invoke(h.NATIVE, [QRELS, RUN_A]).stdout
    assert outcome.stderr == (f"divaleval: warning: {run}: topics not in the qrels are ignored: "
                              "5 (3 lines), 77 (2 lines)\n")


def test_promise_repeated_qrels_lines_are_named_by_both_lines(tmp_path):
    """"A repeated `(topic, intent, docno)` in qrels ...: error naming both lines"."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"1 1 d1 1\n1 2 d1 0\n1 1 d1 0\n")
    outcome = h.invoke(h.NATIVE, [qrels, RUN_A])
    assert outcome.status == 2 and outcome.stdout == b""
    assert outcome.stderr.startswith(f"divaleval: {qrels}:3: ") and "repeats line 1" in outcome.stderr


def test_promise_a_zip_is_not_read_from_standard_input_either(tmp_path):
    path = tmp_path / "run.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(RUN_A, "runA.txt")
    outcome = h.invoke(h.NATIVE, [QRELS, "-"], stdin=path.read_bytes())
    assert outcome.status == 2 and outcome.stderr.startswith("divaleval: <stdin>: a zip archive"), outcome.describe()
