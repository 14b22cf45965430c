"""Inputs past io/table.BIG_INPUT are parsed by Arrow's threads (qrels whole, runs batch by batch): the
same columns, the same errors, as the small-file path gives. The threshold is lowered here so that the
sample files take that path."""
from __future__ import annotations

import numpy as np
import pytest

from divaleval.errors import InputError
from divaleval.io import read_qrels, read_run
from divaleval.io import table
from conftest import SAMPLE


def _same_factor(a, b):
    return np.array_equal(a.values(), b.values())


def test_big_qrels_and_runs_read_as_small_ones(monkeypatch):
    qrels_small, run_small = read_qrels(str(SAMPLE / "qrels.txt")), read_run(str(SAMPLE / "runs" / "bm25.txt"))
    monkeypatch.setattr(table, "BIG_INPUT", 256)
    monkeypatch.setattr(table, "BLOCK", 512)
    qrels_big, run_big = read_qrels(str(SAMPLE / "qrels.txt")), read_run(str(SAMPLE / "runs" / "bm25.txt"))
    for name in ("topic", "intent", "docno"):
        assert _same_factor(getattr(qrels_small, name), getattr(qrels_big, name))
    assert np.array_equal(qrels_small.level, qrels_big.level) and qrels_small.level.dtype == qrels_big.level.dtype
    assert np.array_equal(np.asarray(qrels_small.line), np.asarray(qrels_big.line))
    assert _same_factor(run_small.topic, run_big.topic) and run_small.docno.equals(run_big.docno)
    assert np.array_equal(run_small.rank, run_big.rank) and np.array_equal(run_small.score, run_big.score)
    assert run_small.runid == run_big.runid


@pytest.mark.parametrize("bad, message", [("1 1 doc-x L", "judgment 'L' is neither an integer nor an NTCIR"),
                                          ("1 1 doc-x", "expected 4 fields, found 3")])
def test_big_qrels_errors_name_the_line(tmp_path, monkeypatch, bad, message):
    lines = (SAMPLE / "qrels.txt").read_text().splitlines()
    lines.insert(150, bad)
    path = tmp_path / "qrels.txt"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(table, "BIG_INPUT", 256)
    with pytest.raises(InputError, match=message) as error:
        read_qrels(str(path))
    assert error.value.line == 151
