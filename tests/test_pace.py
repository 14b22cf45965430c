"""Where runs are scored in one process: in the main thread, or in the reader threads when scoring is
the slower part. The place changes nothing in the output."""
from __future__ import annotations

import pytest

import divaleval
from divaleval import evaluator as evaluator_module
from conftest import SAMPLE


def test_the_readers_score_when_scoring_costs_more_than_preparing():
    pace = evaluator_module._Pace()
    pace.prepared(0.10)
    assert not pace.score_in_readers          # nothing known of scoring yet
    pace.scored(0.05)
    assert not pace.score_in_readers          # 0.05 < 0.10
    for _ in range(3):
        pace.scored(0.50)                     # 0.05 -> 0.185 -> 0.2795 -> 0.34565 (weight 0.3)
    assert pace.score_cost == pytest.approx(0.34565)
    assert pace.score_in_readers
    for _ in range(10):
        pace.prepared(1.0)
    assert not pace.score_in_readers


@pytest.mark.parametrize("in_readers", [False, True])
def test_scores_are_the_same_wherever_they_are_computed(monkeypatch, in_readers):
    runs = sorted(str(p) for p in (SAMPLE / "runs").iterdir())
    expected = divaleval.evaluate(str(SAMPLE / "qrels.txt"), runs, measures="all")
    monkeypatch.setattr(evaluator_module._Pace, "_decide",
                        lambda pace: setattr(pace, "score_in_readers", in_readers))
    got = divaleval.evaluate(str(SAMPLE / "qrels.txt"), runs * 3, measures="all")
    assert len(got) == 3 * len(expected)
    for copy in range(3):
        part = got.iloc[copy * len(expected):(copy + 1) * len(expected)].reset_index(drop=True)
        assert part.equals(expected.reset_index(drop=True))
