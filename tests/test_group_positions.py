"""arrays.group_positions: each entry's 1-based position within its run of equal group values, counted
here one entry at a time."""
from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from divaleval.arrays import group_positions


def counted(groups: list[int]) -> list[int]:
    positions = []
    for i, group in enumerate(groups):
        positions.append(positions[-1] + 1 if i and groups[i - 1] == group else 1)
    return positions


@given(st.lists(st.integers(0, 6), max_size=300))
def test_positions_within_groups(values):
    groups = sorted(values)
    got = group_positions(np.array(groups, dtype=np.int64))
    assert got.dtype == np.int32
    assert got.tolist() == counted(groups)


def test_few_long_groups_and_many_short_ones():
    long = np.repeat(np.arange(200), 1000)        # a run's topics
    assert group_positions(long).tolist() == counted(long.tolist())
    short = np.repeat(np.arange(5000), np.arange(5000) % 3 + 1)
    assert group_positions(short).tolist() == counted(short.tolist())
