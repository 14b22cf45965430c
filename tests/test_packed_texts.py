"""arrays.PackedTexts (texts in Arrow's layout, held by numpy) and dense_text_ranks, the docno order that breaks
tied scores: the ranks are Python's own sort of the bytes here (``bytes`` compare as ``memcmp``, a text before
those it begins), and Arrow's rank where the texts are too long to lay out."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

from divaleval import arrays
from divaleval.arrays import PackedTexts, dense_text_ranks
from divaleval.io import read_run
from divaleval.io.runs import RunTable
from divaleval.ranking import _docno_ranks

# Bytes that make sorting hard: zeros (a text and the same text with zero bytes after it), the highest byte
# (unsigned order), and few letters, so that texts share long beginnings and repeat.
TEXT = st.binary(max_size=20) | st.lists(st.sampled_from([b"\x00", b"\xff", b"a", b"b", b"clueweb12-"]),
                                         max_size=6).map(b"".join)


def packed(texts: list[bytes]) -> PackedTexts:
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int32)
    return PackedTexts(offsets, np.frombuffer(b"".join(texts), dtype=np.uint8))


def counted_ranks(texts: list[bytes]) -> list[int]:
    """1-based dense ranks by Python's sort of the bytes."""
    rank_of = {text: r + 1 for r, text in enumerate(sorted(set(texts)))}
    return [rank_of[text] for text in texts]


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, max_size=60), st.data())
def test_dense_ranks_are_byte_order(texts, data):
    rows = data.draw(st.lists(st.integers(0, max(len(texts) - 1, 0)), max_size=40) if texts else st.just([]))
    got = dense_text_ranks(packed(texts), np.array(rows, dtype=np.int64))
    assert got.tolist() == counted_ranks([texts[r] for r in rows])


def test_dense_ranks_by_hand():
    texts = [b"b", b"a\x00", b"a", b"", b"a", b"\xff", b"ab\x00\x01", b"ab\x00"]
    assert dense_text_ranks(packed(texts), np.arange(len(texts))).tolist() == [6, 3, 2, 1, 2, 7, 5, 4]


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=60))
def test_packed_and_arrow_round_trip(texts):
    array = pa.array(texts, pa.binary())
    for values in (array, array.slice(1), pa.chunked_array([array, array])):
        expected = values.to_pylist() if not isinstance(values, pa.ChunkedArray) else texts + texts
        again = PackedTexts.of_arrow(values)
        assert again.arrow().to_pylist() == expected and len(again) == len(expected)


def test_too_long_to_lay_out_falls_to_arrow(monkeypatch, tmp_path):
    """A tie among docnos longer than the layout allows is ranked by Arrow: the same order."""
    run = tmp_path / "run.txt"
    run.write_bytes(b"1 Q0 b 1 5.0 r\n1 Q0 a\x00 2 5.0 r\n1 Q0 a 3 5.0 r\n1 Q0 \xff 4 5.0 r\n")
    table = read_run(str(run))
    lines = np.arange(4)
    assert _docno_ranks(table, lines).tolist() == [3, 2, 1, 4]
    monkeypatch.setattr(arrays, "TEXT_RANK_BYTES", 8)
    assert dense_text_ranks(packed([b"a", b"b"]), lines[:2]) is None
    assert _docno_ranks(table, lines).tolist() == [3, 2, 1, 4]


def test_a_text_too_long_to_lay_out_byte_by_byte_falls_to_arrow(tmp_path):
    """The layout takes a pass a byte of the longest text: past TEXT_RANK_LONGEST Arrow ranks them instead, in the
    same order."""
    long = b"a" * (arrays.TEXT_RANK_LONGEST + 1)
    assert dense_text_ranks(packed([long, b"b", b"a"]), np.arange(3)) is None
    assert dense_text_ranks(packed([long[:-1], b"b", b"a"]), np.arange(3)).tolist() == [2, 3, 1]
    run = tmp_path / "run.txt"
    run.write_bytes(b"1 Q0 " + long + b" 1 5.0 r\n1 Q0 b 2 5.0 r\n1 Q0 a 3 5.0 r\n")
    assert _docno_ranks(read_run(str(run)), np.arange(3)).tolist() == [2, 3, 1]


@pytest.mark.parametrize("packed_docnos", [True, False])
def test_ranks_of_a_run_either_way(packed_docnos):
    texts = [b"d3", b"d1", b"d2", b"d1"]
    docno = packed(texts) if packed_docnos else pa.chunked_array([pa.array(texts[:2]), pa.array(texts[2:])])
    table = RunTable("r", "r", RunTable.from_arrays(["1"] * 4, ["x"] * 4).topic, docno, np.arange(1, 5),
                     np.zeros(4), np.arange(1, 5))
    assert _docno_ranks(table, np.array([0, 1, 2, 3])).tolist() == [3, 1, 2, 1]
    assert table.docno.to_pylist() == texts


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, max_size=40), st.data(), st.integers(1, 5))
def test_take_is_indexing(texts, data, block):
    rows = data.draw(st.lists(st.integers(0, max(len(texts) - 1, 0)), max_size=50) if texts else st.just([]))
    before = arrays.TAKE_BLOCK_ROWS
    arrays.TAKE_BLOCK_ROWS = block  # blocks of a few texts: the block seams are crossed
    try:
        taken = packed(texts).take(np.array(rows, dtype=np.int64))
    finally:
        arrays.TAKE_BLOCK_ROWS = before
    assert [taken.text(i) for i in range(len(taken))] == [texts[r] for r in rows]
    assert taken.offsets.dtype == np.int32 and taken.offsets[0] == 0


def test_take_past_int32_offsets_is_declined():
    """Texts whose bytes would pass int32 offsets are not packed (the caller asks Arrow): decided on the lengths
    alone, before any byte is copied."""
    huge = PackedTexts(np.array([0, 2 ** 30 + 1], dtype=np.int32), np.zeros(0, dtype=np.uint8))
    assert huge.take(np.array([0, 0])) is None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-5, 5) | st.integers(-2 ** 62, 2 ** 62), max_size=80))
def test_dense_rank_and_all_distinct_by_sort_and_by_hash(keys):
    """numpy's sort (few keys) and Arrow's hash (many) against np.unique and a set."""
    keys = np.array(keys, dtype=np.int64)
    uniques, inverse = np.unique(keys, return_inverse=True)
    for sorted_keys in (arrays.SORTED_KEYS, -1):
        before = arrays.SORTED_KEYS
        arrays.SORTED_KEYS = sorted_keys
        try:
            got_uniques, got_index = arrays.dense_rank(keys)
            distinct = arrays.all_distinct(keys)
        finally:
            arrays.SORTED_KEYS = before
        assert got_uniques.tolist() == uniques.tolist() and got_index.tolist() == inverse.ravel().tolist()
        assert got_uniques.dtype == got_index.dtype == np.int64
        assert distinct == (len(set(keys.tolist())) == len(keys))
