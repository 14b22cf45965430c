"""Every case of ../shared/oracle/ndeval/edge/expected_edges.txt (copied into tests/data).

Where ndeval succeeds, the same stdout byte for byte; where it fails, a
non-zero exit (1, as ndeval), nothing on stdout, and a message that names the
file (and the line, where ndeval names one).
"""
from __future__ import annotations

import re

import pytest

from conftest import NDEVAL_EDGE, run_ndeval

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI


def edge_cases():
    text = (NDEVAL_EDGE / "expected_edges.txt").read_text()
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        title = block.split("\n", 1)[0]
        command = re.search(r"^\$ ndeval (.*)$", block, re.M).group(1).split()
        status = int(re.search(r"^rc=(\d+)$", block, re.M).group(1))
        stdout = block.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]
        stderr = block.split("--- stderr\n", 1)[1]
        yield pytest.param(command, status, stdout, stderr, id=title.split()[0])


@pytest.mark.parametrize("command,status,stdout,stderr", list(edge_cases()))
def test_edge_case(command, status, stdout, stderr, monkeypatch):
    monkeypatch.chdir(NDEVAL_EDGE)
    got_status, got_out, got_err = run_ndeval(command)
    if status == 0:
        assert got_status == 0, got_err
        assert got_out == stdout
        return
    assert got_status == 1
    assert got_out == ""
    assert got_err.startswith("ndeval: ") and got_err.endswith("\n")
    where = re.search(r'file "([^"]+)" at line (\d+)', stderr)
    if where:
        assert f"{where.group(1)}:{where.group(2)}: " in got_err
    named = re.search(r'file "([^"]+)"', stderr)
    if named:
        assert named.group(1) in got_err


def test_edge_list_is_complete():
    titles = [p.id for p in edge_cases()]
    assert len(titles) >= 28 and len(set(titles)) == len(titles)


def test_version_and_help(capsys):
    status, out, _ = run_ndeval(["-version"])
    assert status == 0 and out.startswith("ndeval: version 4.5")
    status, out, _ = run_ndeval(["-help"])
    assert status == 0 and "-traditional" in out and "-riskAlpha" in out


def test_combined_single_letter_flags_and_a_flag():
    from conftest import NDEVAL_EXAMPLES as EX

    _, expected, _ = run_ndeval(["-c", EX / "qrels.txt", EX / "runA.txt"])
    status, out, _ = run_ndeval(["-ca", EX / "qrels.txt", EX / "runA.txt"])
    assert status == 0 and out == expected == (EX / "expected" / "runA.c.csv").read_text()
