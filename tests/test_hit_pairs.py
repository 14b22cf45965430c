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


def pairs_of_hits(rng: np.random.Generator, hits_count: int, columns: int, topics: int):
    """Hits (topics ascending, each with 0..columns intents ascending) as Hits holds them: pair_count,
    first_pair, pair_key."""
    slot = np.sort(rng.integers(0, topics, hits_count)).astype(np.int64)
    intents = [np.flatnonzero(rng.random(columns) < 0.3) for _ in range(hits_count)]
    pair_count = np.array([len(i) for i in intents], dtype=np.int64)
    first_pair = np.cumsum(pair_count) - pair_count
    key = np.concatenate([slot[h] * columns + intents[h] for h in range(hits_count)] + [np.zeros(0, np.int64)])
    return pair_count, first_pair, key.astype(np.int64)


def random_pairs(seed: int):
    """(pair_count, first_pair, pair_key, groups of keys, values) of random hits; the values of mixed signs and
    magnitudes (and -0.0), so that their sums depend on the order they are added in."""
    rng = np.random.default_rng(seed)
    columns, topics = int(rng.integers(1, 25)), int(rng.integers(1, 40))
    pair_count, first_pair, key = pairs_of_hits(rng, int(rng.integers(0, 300)), columns, topics)
    values = rng.standard_normal(len(key)) * 10.0 ** rng.integers(-8, 9, len(key))
    values[rng.random(len(key)) < 0.1] = -0.0
    return pair_count, first_pair, key, topics * columns, values


@pytest.mark.parametrize("seed", range(20))
def test_pair_sums_and_layout_give_the_twin_s_bits(seed):
    pair_count, first_pair, key, groups, values = random_pairs(seed)
    compiled = hits.pair_sums(values, pair_count, first_pair, lambda: pytest.fail("the twin was taken"))
    twin = hits._numpy_pair_sums(values, len(pair_count), hits.pair_passes(pair_count, first_pair))
    assert compiled.tobytes() == twin.tobytes()
    layout, twin_layout = hits.pair_layout(key, groups), hits._numpy_pair_layout(key, groups)
    for mine, theirs in zip(layout[:3], twin_layout[:3]):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    assert layout[3] == twin_layout[3]


def test_pair_sums_and_layout_by_hand():
    # Hits 0 and 2 hold pairs (keys 0, 3) and (4, 7); hit 1 none; 0.1 + 0.2 + 0.3 in that order.
    pair_count, first_pair = np.array([2, 0, 2], dtype=np.int64), np.array([0, 2, 2], dtype=np.int64)
    values = np.array([0.1, 0.2, 0.3, 1e16])
    assert hits.pair_sums(values, pair_count, first_pair, list).tolist() == [0.1 + 0.2, 0.0, 0.3 + 1e16]
    # Keys 3 2 3 0 3: grouped stably, 0 | 2 | 3 3 3; width 3.
    order, prior, cell, width = hits.pair_layout(np.array([3, 2, 3, 0, 3], dtype=np.int64), 4)
    assert order.tolist() == [3, 1, 0, 2, 4] and prior.tolist() == [0, 0, 1, 0, 2] and width == 3
    assert cell.tolist() == [0, 6, 9, 10, 11]
    empty = hits.pair_layout(np.zeros(0, dtype=np.int64), 4)
    assert [a.tolist() for a in empty[:3]] == [[], [], []] and empty[3] == 1


def test_pair_kernels_decline_what_lies_outside():
    compiled = native.kernels()
    total = np.empty(1)
    assert compiled.pair_sums(np.zeros(2), np.array([2], dtype=np.int64), np.array([1], dtype=np.int64),
                              total) is None
    out = [np.empty(1, dtype=np.int64) for _ in range(3)]
    assert compiled.pair_layout(np.array([4], dtype=np.int64), 4, *out) is None
    assert compiled.pair_layout(np.array([-1], dtype=np.int64), 4, *out) is None


@pytest.mark.parametrize("seed", range(10))
def test_pair_running_sums_give_the_twin_s_bits(seed):
    _, _, key, groups, values = random_pairs(seed + 100)
    layout = hits.pair_layout(key, groups)
    compiled = hits.pair_running_sums(values, layout, groups)
    assert compiled.tobytes() == hits._numpy_pair_running_sums(values, layout, groups).tobytes()


def test_pair_running_sums_by_hand():
    # Keys 3 2 3 0 3: key 3's pairs 0, 2, 4 run 0.1, 0.1 + 0.2, (0.1 + 0.2) + 0.4; a group's first value as it is.
    key, values = np.array([3, 2, 3, 0, 3], dtype=np.int64), np.array([0.1, -0.0, 0.2, 5.0, 0.4])
    running = hits.pair_running_sums(values, hits.pair_layout(key, 4), 4)
    assert running.tobytes() == np.array([0.1, -0.0, 0.1 + 0.2, 5.0, (0.1 + 0.2) + 0.4]).tobytes()
    assert native.kernels().pair_running_sums(values, np.array([0, 1, 2, 3, 9], dtype=np.int64),
                                              np.zeros(5, dtype=np.int64), np.empty(5)) is None


@pytest.mark.parametrize("seed", range(10))
def test_graded_pair_sums_give_the_twin_s_bits(seed):
    """Each hit's graded novelty gain, compiled and numpy, to the bit: random pairs, levels, denominators,
    weights (of mixed signs and magnitudes) and powers, with and without the saturation's flags."""
    pair_count, first_pair, key, groups, _ = random_pairs(seed + 200)
    layout = hits.pair_layout(key, groups)
    rng = np.random.default_rng(seed)
    level = rng.integers(1, 5, len(key)).astype(np.int16)
    level_gain = np.exp2(np.arange(5.0)) - 1.0
    top = np.exp2(rng.integers(1, 5, groups).astype(np.float64))
    weight = rng.standard_normal(groups) * 10.0 ** rng.integers(-8, 9, groups)
    powers = np.cumprod(np.r_[1.0, np.full(max(layout[3], 1), 0.3)])
    for kept in (None, rng.random(len(key)) < 0.6):
        args = (level, key, layout[1], kept, level_gain, top, weight, powers, pair_count, first_pair)
        compiled = hits.graded_pair_sums(*args, lambda: pytest.fail("the twin was taken"))
        twin = hits._numpy_graded_pair_sums(*args[:8], len(pair_count),
                                            lambda: hits.pair_passes(pair_count, first_pair))
        assert compiled.tobytes() == twin.tobytes()


def test_graded_pair_sums_by_hand():
    # Hit 0: pairs (level 2, key 1, c 0) and (level 1, key 0, c 1); hit 1: (level 3, key 1, c 1), flagged off.
    # Gains 2^L - 1 over 2^Lmax (key 0: 2, key 1: 8), times 0.5^c, times the key's weight (0.25, 0.75).
    args = (np.array([2, 1, 3], dtype=np.int16), np.array([1, 0, 1], dtype=np.int64),
            np.array([0, 1, 1], dtype=np.int64))
    tables = (np.exp2(np.arange(4.0)) - 1.0, np.array([2.0, 8.0]), np.array([0.25, 0.75]), np.array([1.0, 0.5]))
    counts = np.array([2, 1], dtype=np.int64), np.array([0, 2], dtype=np.int64)
    for on in (True, False):
        total = hits.graded_pair_sums(*args, None, *tables, *counts, lambda: hits.pair_passes(*counts)) if on else \
            hits._numpy_graded_pair_sums(*args, None, *tables, 2, lambda: hits.pair_passes(*counts))
        assert total.tolist() == [0.75 * 3 / 8 + 0.25 * 1 / 2 * 0.5, 0.75 * 7 / 8 * 0.5]
    kept = np.array([True, True, False])
    assert hits.graded_pair_sums(*args, kept, *tables, *counts, list).tolist() == [0.75 * 3 / 8 + 0.25 * 1 / 2 * 0.5,
                                                                                   0.0]
    # An index outside its table: declined.
    one, none = np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    assert native.kernels().graded_pair_sums(np.array([9], dtype=np.int16), none, none, np.zeros(0, dtype=bool),
                                             *tables, one, none, np.empty(1)) is None
