"""How a cluster job cuts the runs into tasks (divaleval/cluster.py ``_batches``): full batches while many runs
are left, then smaller ones, so that no worker is left with a whole batch while the others idle. Dask is not
needed: the batches are cut on the client before anything is sent."""
from __future__ import annotations

import pytest

from divaleval.cluster import _batches


def sizes(runs: int, size: int, slots: int) -> list[int]:
    batches = list(_batches((f"run{k}" for k in range(runs)), size, slots))
    assert [run for batch in batches for run in batch] == [f"run{k}" for k in range(runs)]  # each once, in order
    return [len(batch) for batch in batches]


def test_fifty_runs_over_two_workers_end_in_single_runs() -> None:
    # By hand: the runs are looked at 5 x 8 = 40 ahead; batches of 8 until all 50 are seen (after the second),
    # then ceil(left / 4) of them, at most 8: 34 left -> 8, 26 -> 7, 19 -> 5, 14 -> 4, 10 -> 3, 7 -> 2, 5 -> 2,
    # 3 -> 1, 2 -> 1, 1 -> 1.
    assert sizes(50, 8, 2) == [8, 8, 8, 7, 5, 4, 3, 2, 2, 1, 1, 1]


def test_fewer_runs_than_a_batch_go_one_per_task() -> None:
    assert sizes(3, 8, 2) == [1, 1, 1]
    assert sizes(1, 8, 2) == [1]


def test_many_workers_taper_sooner() -> None:
    # 8 slots: looked at 17 x 4 = 68 ahead, so the 40 runs are all seen at once; ceil(left / 16), at most 4:
    # 40 -> 3, 37 -> 3, 34 -> 3, 31 -> 2, 29 -> 2, ..., 17 -> 2, then 15 single runs.
    assert sizes(40, 4, 8) == [3, 3, 3] + [2] * 8 + [1] * 15


@pytest.mark.parametrize("runs", [0, 1, 7, 8, 9, 200])
def test_batches_of_one_stay_one(runs: int) -> None:
    assert sizes(runs, 1, 2) == [1] * runs


def test_no_runs_no_batch() -> None:
    assert sizes(0, 8, 2) == []
