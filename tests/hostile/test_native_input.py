"""Hostile input to the native command (issue 16): every case ends with the right number, or a clear
`FILE:LINE: reason` and exit status 2; never a traceback, a hang, or a silently wrong number.

Most cases run in-process (click's runner) for speed; what depends on the real process (pipes,
process substitution, SIGPIPE) runs the installed command.
"""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from conftest import NDEVAL_EXAMPLES as EX, run_cli

QRELS = EX / "qrels.txt"
RUN = EX / "runA.txt"


def invoke(args: list, stdin: bytes | None = None):
    from divaleval.cli import main_group

    result = CliRunner().invoke(main_group, [str(a) for a in args], input=stdin)
    assert "Traceback" not in result.stderr and not isinstance(result.exception, (AssertionError, TypeError,
                                                                                   ValueError, MemoryError))
    return result


def write(tmp_path, name: str, content: bytes):
    path = tmp_path / name
    path.write_bytes(content)
    return path


def fails(result, where: str, reason: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert f"divaleval: {where}" in result.stderr and reason in result.stderr, result.stderr


# -- numbers: plain ASCII only ----------------------------------------------------------

@pytest.mark.parametrize("line,reason", [
    (b"1 Q0 d01 1 1_000 r\n", "score '1_000' is not a number"),             # Python reads 1000, C's atof 1
    ("1 Q0 d01 1 \u0669\u0669 r\n".encode(), "is not a number"),            # Arabic-Indic digits
    (b"1 Q0 d01 1 99.25abc r\n", "score '99.25abc' is not a number"),
    (b"1 Q0 d01 1 0x10 r\n", "score '0x10' is not a number"),
    (b"1 Q0 d01 1 nan r\n", "score 'nan' is not a number"),
    (b"1 Q0 d01 0x10 2 r\n", "rank '0x10' is not an integer"),              # Arrow's own parser reads 16
    (b"1 Q0 d01 1_0 2 r\n", "rank '1_0' is not an integer"),               # not rank 10
    ("1 Q0 d01 \u0661 2 r\n".encode(), "is not an integer"),
])
def test_numbers_are_plain_ascii(tmp_path, line, reason):
    run = write(tmp_path, "r.txt", line)
    fails(invoke([QRELS, run]), f"{run}:1:", reason)


def test_plain_numbers_in_every_ascii_spelling_are_read(tmp_path):
    spelled = write(tmp_path, "a.txt", b"1 Q0 d01 +1 +3.0e0 r\n1 Q0 d02 02 .5 r\n1 Q0 d03 3 -inf r\n")
    plain = write(tmp_path, "b.txt", b"1 Q0 d01 1 3 r\n1 Q0 d02 2 0.5 r\n1 Q0 d03 3 -1000 r\n")
    assert invoke(["-q", QRELS, spelled]).stdout == invoke(["-q", QRELS, plain]).stdout


def test_a_judgment_of_twenty_digits_is_out_of_range(tmp_path):
    qrels = write(tmp_path, "q.txt", b"1 1 d01 1\n1 2 d02 99999999999999999999\n")
    fails(invoke([qrels, RUN]), f"{qrels}:2:", "judgment 99999999999999999999 is out of range [-32768, 32767]")


def test_ranks_beyond_64_bits_matter_only_to_the_rank_order(tmp_path):
    for rank in (b"99999999999999999999", b"9223372036854775808", b"-18446744073709551616"):
        run = write(tmp_path, "r.txt", b"1 Q0 d01 " + rank + b" 2 r\n1 Q0 d02 1 1 r\n")
        plain = write(tmp_path, "p.txt", b"1 Q0 d01 7 2 r\n1 Q0 d02 1 1 r\n")
        assert invoke(["-q", QRELS, run]).stdout == invoke(["-q", QRELS, plain]).stdout
        fails(invoke(["--order", "rank", QRELS, run]), f"{run}:1:", "rank is out of range")


# -- separators, encodings, line ends -------------------------------------------------

@pytest.mark.parametrize("separator", [b"\t", b"  ", b"\v", b"\f", b" \t\v "])
def test_any_ascii_whitespace_separates_fields(tmp_path, separator):
    lines = RUN.read_bytes().splitlines()
    odd = write(tmp_path, "r.txt", b"\n".join(separator.join(line.split()) for line in lines) + b"\n")
    assert invoke(["-q", QRELS, odd]).stdout == invoke(["-q", QRELS, RUN]).stdout


def test_crlf_bom_indentation_blank_lines_and_no_final_newline(tmp_path):
    lines = RUN.read_bytes().splitlines()
    odd = write(tmp_path, "r.txt", b"\xef\xbb\xbf" + b"\r\n".join(b"  " + line + b" \r\n" for line in lines).rstrip())
    assert invoke(["-q", QRELS, odd]).stdout == invoke(["-q", QRELS, RUN]).stdout


def test_a_wrong_line_is_named_in_a_careful_read(tmp_path):
    lines = RUN.read_bytes().splitlines()
    lines[7] = lines[7] + b"\v"  # the careful path, then line 8 short of a field
    lines[8] = b" ".join(lines[8].split()[:5])
    run = write(tmp_path, "r.txt", b"\n".join(lines) + b"\n")
    fails(invoke([QRELS, run]), f"{run}:9:", "expected 6 fields, found 5")


def test_invalid_utf8_in_ids_is_kept_byte_for_byte(tmp_path):
    run = write(tmp_path, "r.txt", b"1 Q0 d\xff1 1 2 r\xfe\n1 Q0 d01 2 1 r\xfe\n")
    result = run_cli(["-m", "P-IA@5", QRELS, run])
    assert result.returncode == 0 and result.stdout.splitlines()[1].startswith(b"r\xfe,1,")


# -- what other tools accept ---------------------------------------------------------

def test_trailing_fields_of_a_run_line_are_ignored_with_one_warning(tmp_path):
    lines = RUN.read_bytes().splitlines()
    padded = write(tmp_path, "r.txt", b"\n".join(line + b" trailing words" for line in lines) + b"\n")
    result = invoke([QRELS, padded])
    assert result.exit_code == 0 and result.stdout == invoke(["-q", QRELS, RUN]).stdout
    assert result.stderr.count("fields past the sixth are ignored") == 1


# -- no common topic, all or nothing, --skip-bad ------------------------------------------

def test_no_topic_in_common_prints_no_made_up_mean(tmp_path):
    run = write(tmp_path, "r.txt", b"wt09-1 Q0 d01 1 2 r\nwt09-2 Q0 d01 1 2 r\n")
    result = invoke([QRELS, run])
    fails(result, f"{run}:", "no topic of the run is in the qrels")
    assert "amean" not in result.stdout
    complete = invoke(["-q", "-c", "-n", "-m", "P-IA@5", QRELS, run])  # -c asks for zeros
    assert complete.exit_code == 0 and complete.stdout.splitlines()[1] == "r,amean,0.000000"


def test_a_file_that_is_no_run_stops_everything_before_anything_is_printed(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.txt").write_bytes(RUN.read_bytes())
    (folder / "b.txt").write_bytes(QRELS.read_bytes())   # a qrels file among the runs
    (folder / "c.txt").write_bytes((EX / "runB.txt").read_bytes())
    fails(invoke([QRELS, folder]), f"{folder / 'b.txt'}:1:", "expected 6 fields, found 4")
    skipped = invoke(["-n", "--skip-bad", QRELS, folder])
    assert skipped.exit_code == 0
    assert [line.split(",")[0] for line in skipped.stdout.splitlines()[1:]] == ["runA", "runB"]
    assert f"{folder / 'b.txt'}:1: expected 6 fields, found 4" in skipped.stderr and "run skipped" in skipped.stderr


def test_skip_bad_also_skips_a_run_bad_past_its_first_lines(tmp_path):
    lines = [b"1 Q0 x%d %d %d r" % (k, k + 1, 100000 - k) for k in range(5000)]
    late = write(tmp_path, "late.txt", b"\n".join(lines + [b"1 Q0 y 5001 zzz r"]) + b"\n")
    fails(invoke([QRELS, late]), f"{late}:5001:", "score 'zzz' is not a number")
    result = invoke(["-n", "--skip-bad", QRELS, late, RUN])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 2


# -- cutoffs ----------------------------------------------------------------------------

@pytest.mark.parametrize("measure", ["alpha-nDCG@1000000000", "nERR-IA@1000000000", "ERR-IA@1000000000",
                                     "alpha-DCG(alpha=0.001)@1000000000", "P-IA@1000000000",
                                     "nDCG@1000000000", "NRBP@1000000000", "RBU@1000000000"])
def test_a_cutoff_past_every_ranking_costs_nothing_more(measure):
    """The ideal-ideal sums of the ERR-IA family stop where no later term changes a bit."""
    result = invoke(["-q", "-n", "-m", measure, QRELS, RUN])
    assert result.exit_code == 0
    deep = float(result.stdout.splitlines()[1].split(",")[2])
    at_100 = float(invoke(["-q", "-n", "-m", measure.replace("1000000000", "100"), QRELS, RUN])
                   .stdout.splitlines()[1].split(",")[2])
    if measure.startswith(("alpha-nDCG", "nERR", "NRBP", "nDCG", "ERR-IA@", "RBU")):
        # The ranking ends long before rank 100, and the greedy ideal too: nothing changes (ERR-IA's
        # normaliser has vanished terms past rank ~1100 at alpha 0.5, too small to show in 6 decimals).
        assert deep == pytest.approx(at_100, abs=1e-6)
    else:  # P-IA divides by k, alpha-DCG(alpha=0.001)'s normaliser keeps growing
        assert deep < at_100


@pytest.mark.parametrize("measure,reason", [
    ("ERR-IA@99999999999999999999", "must be between 1 and 1000000000"),
    ("alpha-nDCG@\u0669", "is not a positive integer"),
])
def test_cutoffs_out_of_range_are_usage_errors(measure, reason):
    result = invoke(["-m", measure, QRELS, RUN])
    assert result.exit_code == 2 and reason in result.stderr


# -- intent probabilities ------------------------------------------------------------------

def test_an_iprob_intent_the_qrels_lack_is_named(tmp_path):
    qrels = write(tmp_path, "q.txt", b"1 1 d1 1\n1 2 d2 1\n1 3 d3 1\n")
    iprob = write(tmp_path, "p.txt", b"1 1 0.5\n1 2 0.3\n1 7 0.2\n")  # 7 typed for 3
    run = write(tmp_path, "r.txt", b"1 Q0 d3 1 3 r\n1 Q0 d1 2 2 r\n")
    result = invoke(["-m", "D-nDCG@10", "--iprob", iprob, qrels, run])
    assert result.exit_code == 0
    assert "intents the qrels do not have are ignored (topic/intent): 1/7" in result.stderr
    assert "intents with relevant documents but no probability get weight 0 (topic/intent): 1/3" in result.stderr


# -- streams -------------------------------------------------------------------------------

def test_standard_input_can_feed_one_input_only():
    for args in (["-", "-"], [QRELS, "-", "-"], ["--iprob", "-", "-", RUN]):
        result = invoke(args, stdin=RUN.read_bytes())
        assert result.exit_code == 2 and "standard input ('-') can be read only once" in result.stderr
        assert "fields" not in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_named_pipes_process_substitution_and_dev_stdin(tmp_path):
    expected = run_cli([QRELS, RUN]).stdout
    for target, source in (("run.fifo", RUN), ("qrels.fifo", QRELS)):
        fifo = tmp_path / target
        os.mkfifo(fifo)
        writer = threading.Thread(target=lambda f=fifo, s=source: f.write_bytes(s.read_bytes()))
        writer.start()
        args = [QRELS, fifo] if source == RUN else [fifo, RUN]
        result = subprocess.run([sys.executable, "-m", "divaleval", *map(str, args)], capture_output=True,
                                timeout=60)
        writer.join()
        assert result.returncode == 0 and result.stdout == expected, result.stderr
    result = subprocess.run([sys.executable, "-m", "divaleval", str(QRELS), "/dev/stdin"], capture_output=True,
                            input=gzip.compress(RUN.read_bytes()), timeout=60)
    assert result.returncode == 0 and result.stdout == expected
    if os.path.exists("/bin/bash"):
        command = f'"{sys.executable}" -m divaleval "{QRELS}" <(cat "{RUN}")'
        result = subprocess.run(["/bin/bash", "-c", command], capture_output=True, timeout=60)
        assert result.returncode == 0 and result.stdout == expected


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    big = write(tmp_path, "big.txt", RUN.read_bytes())
    runs = [big] * 300
    process = subprocess.Popen([sys.executable, "-m", "divaleval", "-q", str(QRELS), *map(str, runs)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == -signal.SIGPIPE and stderr == b""


def test_a_short_run_without_a_common_topic_stops_everything_before_anything_is_printed(tmp_path):
    """A run whose first 100 lines are the whole file is checked for a common topic before any output."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.txt").write_bytes(RUN.read_bytes())
    (folder / "b.txt").write_bytes(b"wt09-1 Q0 d01 1 2 r\n")
    fails(invoke([QRELS, folder]), f"{folder / 'b.txt'}:", "no topic of the run is in the qrels")


def test_a_rank_of_400_digits_is_out_of_range_not_a_traceback(tmp_path):
    run = write(tmp_path, "r.txt", b"1 Q0 d01 " + b"1" * 400 + b" 2 r\n1 Q0 d02 1 1 r\n")
    fails(invoke(["--order", "rank", QRELS, run]), f"{run}:1:", "rank is out of range")
    assert invoke(["-q", QRELS, run]).exit_code == 0
