"""Bad input: `FILE:LINE: reason`, exit status 2, no traceback, inputs untouched."""
from __future__ import annotations

import gzip

import pytest

from conftest import NDEVAL_EXAMPLES as EX, run_cli

GOOD_QRELS = "1 1 d1 1\n1 2 d2 2\n"
GOOD_RUN = "1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n"


def check_failure(result, file_name, line, *fragments):
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert result.stdout == b""
    assert "Traceback" not in stderr
    location = f"{file_name}:{line}: " if line else f"{file_name}: "
    assert location in stderr, stderr
    for fragment in fragments:
        assert fragment in stderr, stderr


def write_inputs(tmp_path, qrels=GOOD_QRELS, run=GOOD_RUN, iprob=None):
    """Write the qrels, run (and iprob) texts to files; return their paths."""
    paths = []
    for name, text in (("q.txt", qrels), ("r.txt", run), ("p.txt", iprob)):
        if text is not None:
            (tmp_path / name).write_text(text)
            paths.append(tmp_path / name)
    return paths


QRELS_CASES = {
    "three fields": ("1 1 d1 1\n1 2 d2\n", 2, "expected 4 fields, found 3"),
    "five fields": ("1 1 d1 1 x\n", 1, "expected 4 fields, found 5"),
    "judgment not a number": ("1 1 d1 1\n1 2 d2 high\n", 2, "judgment 'high'"),
    "repeated judgment": ("1 1 d1 1\n1 2 d2 1\n1 1 d1 0\n", 3, "repeats line 1"),
    "empty": ("", None, "holds no judgments"),
    "blank only": ("\n\n", None, "holds no judgments"),
}


@pytest.mark.parametrize("case", list(QRELS_CASES))
def test_bad_qrels(tmp_path, case):
    text, line, reason = QRELS_CASES[case]
    qrels, run = write_inputs(tmp_path, qrels=text)
    check_failure(run_cli([qrels, run]), str(qrels), line, reason)
    assert qrels.read_text() == text  # never written


RUN_CASES = {
    "five fields": ("1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5\n", 2, "expected 6 fields, found 5"),
    "rank not an integer": ("1 Q0 d1 1 2.5 r\n1 Q0 d2 two 1.5 r\n", 2, "rank 'two'"),
    "score not a number": ("1 Q0 d1 1 abc r\n", 1, "score 'abc' is not a number"),
    "score nan": ("1 Q0 d1 1 nan r\n", 1, "score 'nan' is not a number"),
    "repeated docno": ("1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n1 Q0 d1 3 1.0 r\n", 3, "repeats line 1"),
    "empty": ("", None, "holds no results"),
}


@pytest.mark.parametrize("case", list(RUN_CASES))
def test_bad_run(tmp_path, case):
    text, line, reason = RUN_CASES[case]
    qrels, run = write_inputs(tmp_path, run=text)
    check_failure(run_cli([qrels, run]), str(run), line, reason)
    assert run.read_text() == text


def test_fields_past_the_sixth_are_ignored_with_one_warning(tmp_path):
    """trec_eval and ndeval read the first six fields of a run line; so does divaleval, and says so once."""
    qrels, run = write_inputs(tmp_path, run="1 Q0 d1 1 2.5 r x\n1 Q0 d2 2 1.5 r trailing text\n")
    clean = tmp_path / "clean.txt"
    clean.write_text("1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n")
    result = run_cli([qrels, run])
    assert result.returncode == 0 and result.stdout == run_cli([qrels, clean]).stdout
    assert result.stderr.decode().count("past the sixth are ignored") == 1


def test_repeated_rank_with_order_rank(tmp_path):
    qrels, run = write_inputs(tmp_path, run="1 Q0 d1 1 2.5 r\n1 Q0 d2 1 1.5 r\n")
    check_failure(run_cli(["--order", "rank", qrels, run]), str(run), 2, "repeats line 1")
    assert run_cli([qrels, run]).returncode == 0  # score order does not need distinct ranks


def test_dedupe_keeps_the_first_ranked_copy(tmp_path):
    qrels, run = write_inputs(tmp_path, run="1 Q0 d2 3 0.5 r\n1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n")
    clean = tmp_path / "clean.txt"
    clean.write_text("1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n")
    deduped = run_cli(["--dedupe", qrels, run])
    assert deduped.returncode == 0
    assert deduped.stdout == run_cli([qrels, clean]).stdout


def test_bad_gzip_and_missing_files(tmp_path):
    broken = tmp_path / "r.gz"
    broken.write_bytes(gzip.compress(GOOD_RUN.encode())[:20])
    check_failure(run_cli([EX / "qrels.txt", broken]), str(broken), None, "gzip")
    check_failure(run_cli([EX / "qrels.txt", tmp_path / "nope.txt"]), str(tmp_path / "nope.txt"), None,
                  "cannot open")
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    check_failure(run_cli([EX / "qrels.txt", empty_dir]), str(empty_dir), None, "no run files")


IPROB_CASES = {
    "probability above 1": ("1 1 0.5\n1 2 1.5\n", 2, "outside [0, 1]"),
    "not a number": ("1 1 half\n", 1, "probability 'half'"),
    "bad type": ("1 1 0.5 inf\n1 2 0.5 web\n", 2, "intent type 'web'"),
    "repeated intent": ("1;1;0.5\n1;2;0.5\n1;1;0.2\n", 3, "repeats line 1"),
}


@pytest.mark.parametrize("case", list(IPROB_CASES))
def test_bad_iprob(tmp_path, case):
    text, line, reason = IPROB_CASES[case]
    qrels, run, iprob = write_inputs(tmp_path, iprob=text)
    check_failure(run_cli(["--iprob", iprob, qrels, run]), str(iprob), line, reason)


def test_iprob_accepted_and_checked(tmp_path):
    qrels, run, iprob = write_inputs(tmp_path, iprob="1;1;0.7;nav\n1;2;0.2;inf\n9 1 1.0\n")
    result = run_cli(["--iprob", iprob, qrels, run])
    assert result.returncode == 0
    stderr = result.stderr.decode()
    assert "do not sum to 1 for topics 1" in stderr and "not in the qrels are ignored: 9" in stderr
    # Warnings never reach stdout.
    assert result.stdout.decode().splitlines()[0].startswith("runid,topic,")
    assert "warning" not in result.stdout.decode()


@pytest.mark.parametrize("measure,reason", [
    ("alpha-nDCG", "needs a cutoff"),
    ("nosuch@5", "unknown measure"),
    ("alpha-nDCG(alpha=2)@5", "must be in [0, 1]"),
    ("alpha-nDCG(gamma=0.1)@5", "no parameter 'gamma'"),
    ("P-IA@0", "cutoff"),
    ("alpha-nDCG@x", "not a positive integer"),
    ("MAP-IA(", "cannot parse"),
])
def test_bad_measure_names(measure, reason):
    result = run_cli(["-m", measure, EX / "qrels.txt", EX / "runA.txt"])
    assert result.returncode == 2 and reason in result.stderr.decode()
    assert b"Traceback" not in result.stderr


def test_stdin_only_once():
    result = run_cli([EX / "qrels.txt", "-", "-"], stdin=GOOD_RUN.encode())
    assert result.returncode == 2 and b"only once" in result.stderr
