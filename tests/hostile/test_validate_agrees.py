"""``divaleval validate`` agrees with evaluation (issue 26, item 4): one reader, one set of rules.

Both are driven over the same hostile lines: evaluation (``divaleval -c QRELS RUN``) refuses a run exactly when
validate reports a problem marked refused (a line the reader cannot type, a docno repeated in its topic, no
results), at a line validate names too; every other problem of validate is an organiser's rule (Q0, one runtag,
ranks 1..n in score order, six fields exactly) that evaluation does not enforce.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import SAMPLE
from divaleval.io.source import InputFile
from divaleval.io.validate import check_run, fix_run
from hostile import harness as h

QRELS = SAMPLE / "qrels.txt"
GOOD = b"101 Q0 doc-101-001 1 2.5 t\n"
SECOND = b"101 Q0 doc-101-002 2 1.5 t\n"


def run_with(first: bytes) -> bytes:
    return first + SECOND


# name -> the run's bytes (a first line made awkward, then a plain one)
CASES = {
    "plain": run_with(GOOD),
    "score 1e400 (inf)": run_with(b"101 Q0 doc-101-001 1 1e400 t\n"),
    "score -1e400": run_with(b"101 Q0 doc-101-001 1 -1e400 t\n"),
    "score inf": run_with(b"101 Q0 doc-101-001 1 inf t\n"),
    "score +Infinity": run_with(b"101 Q0 doc-101-001 1 +Infinity t\n"),
    "score nan": run_with(b"101 Q0 doc-101-001 1 nan t\n"),
    "score -NaN": run_with(b"101 Q0 doc-101-001 1 -NaN t\n"),
    "score +1": run_with(b"101 Q0 doc-101-001 1 +1 t\n"),
    "score 1_000": run_with(b"101 Q0 doc-101-001 1 1_000 t\n"),
    "score hex": run_with(b"101 Q0 doc-101-001 1 0x10 t\n"),
    "score .5 and 5.": b"101 Q0 doc-101-001 1 5. t\n101 Q0 doc-101-002 2 .5 t\n",
    "score 1e": run_with(b"101 Q0 doc-101-001 1 1e t\n"),
    "score 1,5": run_with(b"101 Q0 doc-101-001 1 1,5 t\n"),
    "score Arabic digits": run_with("101 Q0 doc-101-001 1 ١٢ t\n".encode()),
    "score 400 digits": run_with(b"101 Q0 doc-101-001 1 " + b"1" * 400 + b" t\n"),
    "rank +1": run_with(b"101 Q0 doc-101-001 +1 2.5 t\n"),
    "rank 1.0": run_with(b"101 Q0 doc-101-001 1.0 2.5 t\n"),
    "rank 1_0": run_with(b"101 Q0 doc-101-001 1_0 2.5 t\n"),
    "rank hex": run_with(b"101 Q0 doc-101-001 0x1 2.5 t\n"),
    "rank beyond 64 bits": run_with(b"101 Q0 doc-101-001 99999999999999999999 2.5 t\n"),
    "rank and score bad": run_with(b"101 Q0 doc-101-001 x nan t\n"),
    "docno with NUL": run_with(b"101 Q0 doc\x00101 1 2.5 t\n"),
    "docno not UTF-8": run_with(b"101 Q0 doc\xff101 1 2.5 t\n"),
    "docno of 1 MB": run_with(b"101 Q0 " + b"d" * (1 << 20) + b" 1 2.5 t\n"),
    "docno with NBSP": run_with("101 Q0 doc\u00a0101 1 2.5 t\n".encode()),
    "topic not UTF-8": run_with(b"10\xff Q0 doc-101-001 1 2.5 t\n"),
    "leading and trailing space": run_with(b"  101 Q0 doc-101-001 1 2.5 t  \n"),
    "tabs": run_with(b"101\tQ0\tdoc-101-001\t1\t2.5\tt\n"),
    "vertical tab and form feed": run_with(b"101\x0bQ0\x0cdoc-101-001 1 2.5 t\n"),
    "CRLF": GOOD.replace(b"\n", b"\r\n") + SECOND.replace(b"\n", b"\r\n"),
    "CR only": GOOD.replace(b"\n", b"\r") + SECOND.replace(b"\n", b"\r"),
    "BOM": b"\xef\xbb\xbf" + GOOD + SECOND,
    "BOM on a later line": GOOD + b"\xef\xbb\xbf" + SECOND,
    "seven fields": run_with(b"101 Q0 doc-101-001 1 2.5 t extra\n"),
    "five fields": run_with(b"101 Q0 doc-101-001 1 2.5\n"),
    "one field": run_with(b"101\n"),
    "blank lines": b"\n \n" + GOOD + b"\t\n" + SECOND + b"\n",
    "no final newline": GOOD + SECOND.rstrip(b"\n"),
    "empty file": b"",
    "blank only": b"\n  \n\r\n",
    "repeated docno": GOOD + GOOD.replace(b" 1 2.5", b" 2 1.5"),
    "docno repeated in other topics": GOOD + b"102 Q0 doc-101-001 1 2.5 t\n",
    "not Q0, two runtags": b"101 0 doc-101-001 1 2.5 a\n101 Q0 doc-101-002 2 1.5 b\n",
    "ranks with gaps, scores rising": b"101 Q0 doc-101-001 3 1.5 t\n101 Q0 doc-101-002 9 2.5 t\n",
    "many bad lines": GOOD + b"".join(b"101 Q0 d%d %d nan t\n" % (i, i + 2) for i in range(50)),
}


def evaluate(tmp_path, data: bytes) -> h.Outcome:
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    outcome = h.invoke(h.NATIVE, ["-c", "-m", "alpha-nDCG@10", QRELS, path])
    h.check_sound(outcome)
    return outcome


def assert_agree(tmp_path, data: bytes) -> None:
    outcome = evaluate(tmp_path, data)
    check = check_run(InputFile("run.txt", data=data))
    refused = [p for p in check.problems if p.refused]
    assert outcome.status in (0, 2), outcome.describe()
    assert (outcome.status == 2) == bool(refused), \
        f"evaluation {'refuses' if outcome.status else 'accepts'}, validate found {check.problems}\n" + outcome.describe()
    if outcome.status == 2:
        named = re.search(r"run\.txt:(\d+): ", outcome.stderr)
        lines = {p.line for p in refused}
        assert (int(named.group(1)) if named else None) in lines, (outcome.stderr, refused)
    fix_run(check)  # a run validate can check, it can fix


@pytest.mark.parametrize("case", list(CASES))
def test_validate_agrees_with_evaluation(tmp_path, case):
    assert_agree(tmp_path, CASES[case])


def test_infinite_scores_are_numbers():
    # Evaluation reads 1e400 as inf (C's strtod; a score like any other, the highest): so does validate, and
    # --fix keeps the line as written, ranked first.
    data = b"101 Q0 a 1 2.5 t\n101 Q0 b 2 1e400 t\n101 Q0 c 3 -inf t\n"
    check = check_run(InputFile("run.txt", data=data))
    assert [(p.line, p.kind, p.refused) for p in check.problems] == [(2, "order", False)]
    assert str(check.problems[0]) == ("run.txt:2: topic 101: score 1e400 at rank 2 is above score 2.5 at rank 1 "
                                      "(line 1): ranks and scores order the documents differently")
    assert fix_run(check).data == b"101 Q0 b 1 1e400 t\n101 Q0 a 2 2.5 t\n101 Q0 c 3 -inf t\n"


def test_lines_evaluation_cannot_read_are_each_named():
    data = CASES["many bad lines"] + b"101 Q0 e x 1 t\n101 Q0 f\n"
    check = check_run(InputFile("run.txt", data=data))
    assert [(p.line, p.kind) for p in check.problems if p.refused] == \
        [(line, "number") for line in range(2, 52)] + [(52, "number"), (53, "fields")]
    assert str(check.problems[0]) == "run.txt:2: score 'nan' is not a number"
    assert check.lines == 53 and len(check.read) == 52  # the lines of six fields, refused or not, are checked


def test_odd_docnos_are_kept_as_bytes(tmp_path):
    # A NUL byte, bytes that are not UTF-8 and a 1 MB docno: evaluation reads each as bytes, and so does
    # validate; --fix writes them back unchanged.
    big = b"d" * (1 << 20)
    data = b"101 Q0 a\x00b 1 3 t\n101 Q0 c\xffd 2 2 t\n101 Q0 " + big + b" 3 1 t\n"
    check = check_run(InputFile("run.txt", data=data))
    assert check.ok
    assert fix_run(check).data == data


@given(st.one_of(h.one_run_mutated(h.real_case(st.sampled_from(h.corpora()), h.NATIVE)).map(lambda f: f[2]),
                 h.generated_files().map(lambda f: f[1])))
def _agree_on(tmp_path, data):
    assert_agree(tmp_path, data)


@pytest.mark.parametrize("settings", [pytest.param(h.profile(60), id="default"),
                                      pytest.param(h.profile(1500, shrink=True), id="long",
                                                   marks=pytest.mark.long)])
def test_validate_agrees_on_mutated_and_generated_runs(tmp_path, settings):
    settings(_agree_on)(tmp_path)
