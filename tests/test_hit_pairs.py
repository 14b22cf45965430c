"""The (hit, intent) pairs of a ranking's hits (divaleval/native/hits.py): the compiled kernels give their numpy
twin's arrays exactly (values, dtypes, lengths), on random qrels rows and hits, and on the edge cases; the golden
suites (make test-golden-numpy) hold the scores built from them to the references both ways."""
from __future__ import annotations

import numpy as np
import pytest

from divaleval import native
from divaleval.native import hits

pytestmark = pytest.mark.skipif(native.kernels() is None, reason="compiled kernels not built or turned off")


def relevant_pairs(rng: np.random.Generator, rows: int, columns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As Qrels.relevant_pairs: per row, its relevant intent columns ascending, and their levels."""
    levels = np.where(rng.random((rows, columns)) < 0.3, rng.integers(1, 4, (rows, columns)), 0).astype(np.int16)
    row, intent = np.nonzero(levels >= 1)
    pointer = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=rows), out=pointer[1:])
    return pointer, intent.astype(np.int64), levels[row, intent]


@pytest.mark.parametrize("seed", range(20))
def test_kernel_gives_the_twin_s_arrays(seed):
    rng = np.random.default_rng(seed)
    rows, columns = int(rng.integers(1, 400)), int(rng.integers(1, 25))
    pointer, intents, levels = relevant_pairs(rng, rows, columns)
    count = int(rng.integers(0, 2 * rows))
    row = rng.integers(0, rows, count).astype(rng.choice([np.int32, np.int64]))
    slot = np.sort(rng.integers(0, 50, count)).astype(np.int64)
    compiled = hits.hit_pairs(pointer, intents, levels, row, slot, columns)
    twin = hits._numpy_hit_pairs(pointer, intents, levels, row, slot, columns)
    for mine, theirs in zip(compiled, twin):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def test_no_hits_and_hits_without_pairs():
    pointer = np.array([0, 0, 2, 2], dtype=np.int64)  # row 1 has two relevant intents, rows 0 and 2 none
    intents, levels = np.array([0, 3], dtype=np.int64), np.array([1, 2], dtype=np.int16)
    for row, slot in [([], []), ([0, 2], [0, 1]), ([1, 0, 1], [0, 0, 1])]:
        row, slot = np.array(row, dtype=np.int64), np.array(slot, dtype=np.int64)
        compiled = hits.hit_pairs(pointer, intents, levels, row, slot, 4)
        twin = hits._numpy_hit_pairs(pointer, intents, levels, row, slot, 4)
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(compiled, twin))
    pair_count, first, pair_hit, pair_intent, pair_level, pair_key = \
        hits.hit_pairs(pointer, intents, levels, np.array([1, 0, 1]), np.array([0, 0, 1]), 4)
    # By hand: hits 0 and 2 are row 1 (intents 0 and 3), hit 1 row 0 (none); hit 2 lies in slot 1.
    assert pair_count.tolist() == [2, 0, 2] and first.tolist() == [0, 2, 2]
    assert pair_hit.tolist() == [0, 0, 2, 2] and pair_intent.tolist() == [0, 3, 0, 3]
    assert pair_level.tolist() == [1, 2, 1, 2] and pair_key.tolist() == [0, 3, 4, 7]


def test_a_row_out_of_range_is_declined():
    pointer = np.array([0, 1], dtype=np.int64)
    counts = native.kernels().hit_pair_counts
    out = np.empty(1, dtype=np.int64), np.empty(1, dtype=np.int64)
    assert counts(pointer, np.array([1], dtype=np.int64), *out) is None
    assert counts(pointer, np.array([-1], dtype=np.int64), *out) is None
