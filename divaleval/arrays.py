"""Array helpers shared by the layers: grouping, dense codes, the first repeated key, exact row sums.

They know nothing of qrels or runs; each takes and returns plain numpy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .lazy import pyarrow as pa  # (imported on first use: see divaleval/lazy.py)
# pyarrow.compute takes 35-45 ms to import (it wraps hundreds of functions, docstrings and all) and every
# Arrow method that computes (take, cast, dictionary_encode) imports it. The reading path calls Arrow's
# functions by name instead (arrow_call and the helpers under it: pyarrow._compute, 6 ms); only a malformed
# number imports pyarrow.compute (io/table.py), to find and name it.

# Row reductions the measures share, numpy's to the bit (by a compiled kernel where divaleval/native takes
# one): named here so that a measure names what it computes, never how it is computed.
from .native import (  # noqa: F401
    TERM_KINDS, GainListSums, blended_ratio, bpref_sums, cut_p_plus_parts, cut_row_sums, err_probability,
    gain_list_sums, gap_terms, greedy_ranking_gains, inferred_precision_sums, masked_row_sums, p_plus_parts)


# pyarrow's to_numpy() and pa.array() import pandas on first use (0.2 s of start-up the command line
# does not need): numbers and texts cross between Arrow and numpy through the buffers instead.

def numpy_of(values: pa.Array | pa.ChunkedArray, null=None) -> np.ndarray:
    """The values of an Arrow array of numbers or booleans as a numpy array; nulls become ``null``."""
    if isinstance(values, pa.ChunkedArray):
        parts = [numpy_of(chunk, null) for chunk in values.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=_numpy_type(values.type))
    if pa.types.is_boolean(values.type):
        bits = np.frombuffer(values.buffers()[1], dtype=np.uint8) if len(values) else np.zeros(0, np.uint8)
        return np.unpackbits(bits, bitorder="little")[values.offset: values.offset + len(values)].view(bool)
    dtype = _numpy_type(values.type)
    if not len(values):
        return np.zeros(0, dtype=dtype)
    out = np.frombuffer(values.buffers()[1], dtype=dtype, count=len(values), offset=values.offset * dtype.itemsize)
    if values.null_count:
        if null is None:
            raise ValueError("the array holds nulls")
        bits = np.frombuffer(values.buffers()[0], dtype=np.uint8)
        valid = np.unpackbits(bits, bitorder="little")[values.offset: values.offset + len(values)].view(bool)
        out = np.where(valid, out, null).astype(dtype)
    return out


def _numpy_type(arrow_type: pa.DataType) -> np.dtype:
    return np.dtype({"double": "float64", "float": "float32"}.get(str(arrow_type), str(arrow_type)))


def arrow_of(values: np.ndarray) -> pa.Array:
    """A numpy array of integers as an Arrow array (sharing its memory), e.g. indices for ``take``."""
    values = np.ascontiguousarray(values)
    dtype = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64()}.get(values.dtype)
    if dtype is None:
        values, dtype = values.astype(np.int64), pa.int64()
    return pa.Array.from_buffers(dtype, len(values), [None, pa.py_buffer(values)])


WORD = np.dtype("<u8")  # little-endian whatever the machine: a text's first byte is a word's lowest


@dataclass(frozen=True, eq=False)
class PackedTexts:
    """Binary texts laid out as Arrow lays a binary array's buffers, held without Arrow: text i is
    ``data[offsets[i]:offsets[i + 1]]``. The compiled run reader makes them, and they are matched as they are,
    so that a call that reads its qrels from the cache never imports pyarrow (40-50 ms); :meth:`arrow` makes the
    Arrow array, sharing the memory, where one is needed."""

    offsets: np.ndarray   # int32, (n + 1,), from 0
    data: np.ndarray      # uint8

    @classmethod
    def of_buffers(cls, offsets, data, count: int) -> "PackedTexts":
        """``count`` texts of an int32 offsets buffer and a bytes buffer (e.g. bytearrays), shared, not copied."""
        return cls(np.frombuffer(offsets, dtype=np.int32, count=count + 1), np.frombuffer(data, dtype=np.uint8))

    @classmethod
    def of_arrow(cls, values: pa.Array | pa.ChunkedArray) -> "PackedTexts | None":
        """The texts of an Arrow binary or string array without nulls (its chunks combined), or None for another."""
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        if values.null_count or not (pa.types.is_binary(values.type) or pa.types.is_string(values.type)):
            return None
        offsets = text_offsets(values)
        data = values.buffers()[2]
        data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        return cls(offsets - offsets[0], data[offsets[0]:offsets[-1]])

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def text(self, i: int) -> bytes:
        """Text ``i``."""
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes()

    def take(self, rows: np.ndarray) -> "PackedTexts | None":
        """The texts at ``rows``, in that order, packed anew; None where they would pass the 2 GiB that int32
        offsets reach (the caller asks Arrow)."""
        rows = np.asarray(rows, dtype=np.intp)
        starts = self.offsets[rows].astype(np.int64)
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(self.offsets[rows + 1] - starts, out=offsets[1:])
        if offsets[-1] > np.iinfo(np.int32).max:
            return None
        data = np.empty(int(offsets[-1]), dtype=np.uint8)
        for first in range(0, len(rows), TAKE_BLOCK_ROWS):  # the bytes' positions made a block at a time
            last = min(first + TAKE_BLOCK_ROWS, len(rows))
            lengths = offsets[first + 1: last + 1] - offsets[first: last]
            shift = np.repeat(starts[first:last] - offsets[first:last], lengths)
            shift += np.arange(offsets[first], offsets[last])
            data[offsets[first]: offsets[last]] = self.data[shift]
        return PackedTexts(offsets.astype(np.int32), data)

    def arrow(self) -> pa.Array:
        return pa.Array.from_buffers(pa.binary(), len(self), [None, pa.py_buffer(self.offsets),
                                                              pa.py_buffer(self.data)])


TAKE_BLOCK_ROWS = 1 << 16  # PackedTexts.take's texts a block (its scratch: 8 bytes a byte of theirs)


# A class that holds texts as PackedTexts until an Arrow array is asked for keeps them under ``_packed_<attribute>``:
# keep_packed in its __post_init__, packed_or_arrow where the texts are read as they lie, unpacked as its
# __getattr__ (RunTable's docno, JudgedDocuments' docnos).

def keep_packed(owner: object, attribute: str) -> bool:
    """Where ``owner``'s ``attribute`` was given as :class:`PackedTexts`, keep it under ``_packed_<attribute>``
    (the Arrow array made when first asked for: :func:`unpacked`); whether it was."""
    value = owner.__dict__.get(attribute)
    if not isinstance(value, PackedTexts):
        return False
    owner.__dict__[f"_packed_{attribute}"] = value
    del owner.__dict__[attribute]
    return True


def packed_or_arrow(owner: object, attribute: str) -> "PackedTexts | pa.Array | pa.ChunkedArray":
    """``owner``'s ``attribute`` as packed texts where it is kept so (no Arrow array made), else as it is."""
    packed = owner.__dict__.get(f"_packed_{attribute}")
    return getattr(owner, attribute) if packed is None else packed


def unpacked(owner: object, name: str, attribute: str) -> pa.Array:
    """The ``__getattr__`` of a class that keeps an Arrow attribute as :class:`PackedTexts` (under
    ``_packed_<attribute>``) until it is asked for: ``owner``'s ``attribute`` made and kept; AttributeError for
    any other missing ``name``."""
    packed = owner.__dict__.get(f"_packed_{attribute}") if name == attribute else None
    if packed is None:
        raise AttributeError(f"{type(owner).__name__!r} object has no attribute {name!r}")
    value = packed.arrow()
    setattr(owner, attribute, value)
    return value


TEXT_RANK_BYTES = 64 * 1024 * 1024  # the most bytes dense_text_ranks lays its texts out in
TEXT_RANK_LONGEST = 256  # the longest text it lays out (a pass over the texts a byte: docnos are far shorter)


def dense_text_ranks(texts: PackedTexts, rows: np.ndarray) -> np.ndarray | None:
    """1-based dense ranks of ``texts[rows]`` in byte order (``memcmp``'s, a text before those it begins), as Arrow's
    ``rank`` (ascending, tiebreaker "dense") gives them on a binary array; None where more than
    :data:`TEXT_RANK_BYTES` would be laid out, or a text is longer than :data:`TEXT_RANK_LONGEST` (the caller
    asks Arrow).

    Each text is laid out zero-padded to the longest and read as big-endian 64-bit words, sorted word by word; two
    texts whose padded words agree are one and the same but for trailing zero bytes, so the shorter comes first.
    """
    rows = np.asarray(rows, dtype=np.intp)
    n = len(rows)
    if not n:
        return np.zeros(0, dtype=np.int64)
    starts = texts.offsets[rows].astype(np.intp)
    lengths = texts.offsets[rows + 1].astype(np.intp) - starts
    longest = int(lengths.max())
    width = max(1, -(-longest // 8))
    if n * width * 8 > TEXT_RANK_BYTES or longest > TEXT_RANK_LONGEST:
        return None
    laid = np.zeros((n, width * 8), dtype=np.uint8)
    last = max(len(texts.data) - 1, 0)
    for b in range(longest):  # byte b of every text at once (scratch: a few numbers a text)
        byte = texts.data[np.minimum(starts + b, last)]
        byte[lengths <= b] = 0
        laid[:, b] = byte
    words = laid.view(">u8")
    order = np.lexsort([lengths, *(words[:, j] for j in reversed(range(width)))])
    ordered_words, ordered_lengths = words[order], lengths[order]
    new = np.any(ordered_words[1:] != ordered_words[:-1], axis=1) | (ordered_lengths[1:] != ordered_lengths[:-1])
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.concatenate([[1], 1 + np.cumsum(new)])
    return ranks


def text_offsets(texts: pa.Array) -> np.ndarray:
    """(n + 1,): text i of a binary or string array is ``data[offsets[i]:offsets[i + 1]]``."""
    large = pa.types.is_large_binary(texts.type) or pa.types.is_large_string(texts.type)
    dtype = np.dtype(np.int64 if large else np.int32)
    return np.frombuffer(texts.buffers()[1], dtype=dtype, count=len(texts) + 1, offset=texts.offset * dtype.itemsize)


def texts_of(values: pa.Array) -> list[str]:
    """The values of an Arrow string or binary array as str (bytes that are not UTF-8 kept by surrogateescape)."""
    if not len(values):
        return []
    offsets = text_offsets(values)
    data = values.buffers()[2]
    raw = data.to_pybytes() if data is not None else b""
    return [raw[a:b].decode("utf-8", "surrogateescape") for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def text_buffers(texts: pa.Array | PackedTexts) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, data) of a binary or string array, or of packed texts: text i is
    ``data[offsets[i]:offsets[i + 1]]``."""
    if isinstance(texts, PackedTexts):
        return texts.offsets, texts.data
    offsets = text_offsets(texts)
    end = int(offsets[-1])
    data = texts.buffers()[2]
    return offsets, (np.frombuffer(data, dtype=np.uint8, count=end) if data is not None and end
                     else np.zeros(0, np.uint8))


def text_words(texts: pa.Array | PackedTexts, words: np.ndarray) -> None:
    """The texts of a binary or string array as 64-bit words, read in place into ``words`` (k, n).

    Word j of a text of ``n`` bytes is its 8 bytes from offset ``min(8 j, n - 8)``
    (the last overlapping the one before; past the text's end, the last again),
    or, for a text shorter than 8 bytes, its bytes zero-padded. Two texts of one
    length are equal exactly when their words are.
    """
    offsets, data = text_buffers(texts)
    length = np.diff(offsets)
    if len(data) < 8:  # too few bytes for one word: a padded copy
        data = np.concatenate([data, np.zeros(8, np.uint8)])
    at_byte = np.ndarray((len(data) - 7,), dtype=WORD, buffer=data, strides=(1,))  # a word at every byte
    start = offsets[:-1].astype(np.intp)
    latest = len(at_byte) - 1
    shortest = int(length.min()) if len(length) else 8
    for j, word in enumerate(words):
        at = start + 8 * j if 8 * j <= shortest - 8 else start + np.minimum(8 * j, np.maximum(length - 8, 0))
        if shortest < 8:  # a short text near the end: read where a word fits (see below)
            np.minimum(at, latest, out=at)
        word[:] = at_byte[at]  # (indexing: np.take is several times slower on a view of unaligned words)
    if shortest < 8:  # a text shorter than a word: its own bytes only (the next text's are cut), in every word
        short = np.flatnonzero(length < 8)
        read_at = np.minimum(start[short], latest)
        own = at_byte[read_at] >> ((start[short] - read_at) * 8).astype(np.uint64)
        own &= (np.uint64(1) << (length[short] * 8).astype(np.uint64)) - np.uint64(1)
        words[:, short] = own


def _compute():
    """Where Arrow's compute functions and their options are: pyarrow._compute (see the note on imports)."""
    try:
        import pyarrow._compute as compute
    except ImportError:  # (a pyarrow that moved it: the public module, at the cost of its import)
        import pyarrow.compute as compute
    return compute


def arrow_call(name: str, *args, options=None):
    """Arrow's compute function ``name`` on ``args``, as ``pyarrow.compute.<name>`` calls it, without
    importing pyarrow.compute."""
    return _compute().call_function(name, list(args), options)


def arrow_options(kind: str, *args, **kwargs):
    """Options of Arrow's compute functions (``arrow_options("RankOptions", sort_keys=...)``)."""
    return getattr(_compute(), kind)(*args, **kwargs)


def arrow_take(values: pa.Array | pa.ChunkedArray, indices: pa.Array) -> pa.Array | pa.ChunkedArray:
    """``values.take(indices)`` (bounds checked), without importing pyarrow.compute."""
    return arrow_call("take", values, indices, options=arrow_options("TakeOptions", boundscheck=True))


def arrow_cast(values: pa.Array | pa.ChunkedArray, target: pa.DataType) -> pa.Array | pa.ChunkedArray:
    """``values.cast(target)`` (a safe cast: ArrowInvalid for a value that does not fit), without importing
    pyarrow.compute."""
    return arrow_call("cast", values, options=_compute().CastOptions.safe(target))


def dictionary_encoded(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``pyarrow.compute.dictionary_encode(values)``, without importing pyarrow.compute."""
    return arrow_call("dictionary_encode", values)


def factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each key, distinct keys in first-seen order): one hash pass (Arrow's)."""
    encoded = dictionary_encoded(arrow_of(keys))
    return numpy_of(encoded.indices), numpy_of(encoded.dictionary)


# Below this many keys, dense_rank and all_distinct sort with numpy: a few milliseconds, where importing pyarrow
# for its hashing costs some 50 (a call reading small qrels otherwise never imports it). Above, hashing first
# is faster (keys repeat: a judged document has a line per intent). Both give the same answer.
SORTED_KEYS = 1 << 18


def all_distinct(keys: np.ndarray) -> bool:
    """Whether no key occurs twice (one hash pass, or for few keys a sort: see :data:`SORTED_KEYS`)."""
    keys = np.asarray(keys, dtype=np.int64)
    if len(keys) <= SORTED_KEYS:
        ordered = np.sort(keys)
        return not (ordered[1:] == ordered[:-1]).any()
    return len(arrow_call("unique", arrow_of(keys))) == len(keys)


def dense_rank(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, index of each key among them), like ``np.unique``.

    Hashing first and sorting only the distinct keys is much faster than
    sorting every key when keys repeat (every judged document has many lines).
    """
    keys = np.asarray(keys, dtype=np.int64)  # (as Arrow's hash takes them: the same keys either way)
    if len(keys) <= SORTED_KEYS:
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        new = np.ones(len(keys), dtype=bool)
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        index = np.empty(len(keys), dtype=np.int64)
        index[order] = np.cumsum(new) - 1
        return ordered[new], index
    codes, uniques = factorize(keys)
    order = np.argsort(uniques)
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    return uniques[order], rank[codes]


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct integers of a 1-D array, ascending: ``np.unique(values)`` without its import of numpy.ma
    (15 ms: numpy 2.3+ asks whether the array is masked)."""
    values = np.sort(values)
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values


def first_tie(order: np.ndarray, tied: np.ndarray) -> tuple[int, int]:
    """The rows ``order[j]`` and ``order[j + 1]`` at the first ``j`` where ``tied[j]``, earlier row first.

    ``order`` lists rows sorted by some key; ``tied[j]`` says whether entries j
    and j + 1 of it share the key.
    """
    j = int(np.argmax(tied))
    first, second = sorted((int(order[j]), int(order[j + 1])))
    return first, second


def first_repeat(keys: np.ndarray) -> tuple[int, int] | None:
    """The two rows of the first key (in key order) that occurs twice, earlier row first; None if all differ."""
    if all_distinct(keys):  # the usual case
        return None
    by_key = np.argsort(keys, kind="stable")
    return first_tie(by_key, keys[by_key][1:] == keys[by_key][:-1])


def group_positions(sorted_groups: np.ndarray) -> np.ndarray:
    """1-based position of each entry within its run of equal group values."""
    if not len(sorted_groups):
        return np.zeros(0, dtype=np.int32)
    index = np.int32 if len(sorted_groups) < 2 ** 31 else np.int64  # half the memory of a large run's
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]]).astype(index)
    positions = np.arange(1, len(sorted_groups) + 1, dtype=index)
    if len(starts) * 64 < len(sorted_groups):  # few long groups (a run's topics): no second array
        for start, end in zip(starts[1:].tolist(), [*starts[2:].tolist(), len(sorted_groups)]):
            positions[start:end] -= start
        return positions
    positions -= np.repeat(starts, np.diff(np.r_[starts, len(sorted_groups)]))
    return positions


def pad_groups(group: np.ndarray, n_groups: int, *columns: tuple[np.ndarray, float]) -> list[np.ndarray]:
    """Spread entries sorted by group into (n_groups, width, ...) arrays, one per column.

    ``columns`` are (values, padding) pairs, values with one entry (a scalar or
    a row) per group entry; entries keep their order within a group.
    """
    counts = np.bincount(group, minlength=n_groups)
    width = max(int(counts.max(initial=0)), 1)
    # Each entry's cell in the flattened array (a flat index: much cheaper than indexing by (row, column)).
    cell = group.astype(np.intp, copy=False) * width + (group_positions(group) - 1)
    out = []
    for values, padding in columns:
        values = np.asarray(values)
        padded = np.full((n_groups * width,) + values.shape[1:], padding, dtype=_holding(values.dtype, padding))
        padded[cell] = values
        out.append(padded.reshape((n_groups, width) + values.shape[1:]))
    return out


def _holding(dtype: np.dtype, value) -> np.dtype:
    """``dtype`` if it holds ``value`` exactly, else the type both need."""
    try:
        if dtype.type(value) == value:
            return dtype
    except (OverflowError, ValueError):
        pass
    return np.result_type(dtype, type(value))
