"""Runs scored in one process: read, matched, ranked and scored by the reader threads, the results taken in
run order. Where a run is scored changes nothing in the output, and no reader is left waiting."""
from __future__ import annotations

import threading

import pytest

import divaleval
from divaleval.api import resolve_measures
from divaleval.errors import InputError
from divaleval.evaluator import Evaluator
from divaleval.io import read_qrels
from divaleval.model import build_qrels
from conftest import SAMPLE

RUNS = sorted(str(p) for p in (SAMPLE / "runs").iterdir())


def test_runs_scored_by_the_readers_are_those_scored_one_at_a_time():
    expected = divaleval.evaluate(str(SAMPLE / "qrels.txt"), RUNS, measures="all")
    got = divaleval.evaluate(str(SAMPLE / "qrels.txt"), RUNS * 3, measures="all")
    assert len(got) == 3 * len(expected)
    for copy in range(3):
        part = got.iloc[copy * len(expected):(copy + 1) * len(expected)].reset_index(drop=True)
        assert part.equals(expected.reset_index(drop=True))


def test_a_failure_before_the_ideal_rankings_leaves_no_reader_waiting():
    # Two runs are handed to the readers (who wait for the ideal rankings to score them), then the runs'
    # iterator fails before the ideal rankings are computed: the error comes out, and nothing hangs.
    evaluator = Evaluator(build_qrels(read_qrels(str(SAMPLE / "qrels.txt"))), resolve_measures(None),
                          warn=lambda message: None)

    def runs():
        yield from RUNS[:2]
        raise InputError("third.txt", None, "not a run")

    outcome = []

    def score() -> None:
        with pytest.raises(InputError, match="not a run"):
            list(evaluator.score_all(runs()))
        outcome.append("raised")

    thread = threading.Thread(target=score, daemon=True)
    thread.start()
    thread.join(60)
    assert outcome == ["raised"]
