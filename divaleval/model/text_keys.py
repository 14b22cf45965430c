"""Exact (group, text) keys as numpy words, and a hash table of them built once and probed by whole arrays.

A run's docnos are matched to the judged (topic, docno) pairs of the qrels
for every run. A hash table of Arrow's is rebuilt on each call (its judged
side hashed again for every run); this one is built once per qrels, and
a run's docnos are hashed and looked up by a few numpy passes over blocks of
them. Keys made to share hashes cannot make it slow: past 64 probing rounds,
lookups sort instead.

A text of ``n`` bytes is held as its length and ``ceil(n / 8)`` 64-bit words
read at byte offsets 0, 8, 16, ... and ``n - 8`` for the last (overlapping the
one before it; a text shorter than 8 bytes is one word, zero-padded). Two
texts are equal exactly when their lengths and words are, so a hash only
chooses where to look: every match is confirmed on the words, and a hash
collision costs a probe, never a wrong match.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..lazy import pyarrow as pa  # (imported on first use: see divaleval/lazy.py)

from ..arrays import WORD, PackedTexts, arrow_of, text_buffers, text_offsets, text_words
from ..native import KeyArrays, match_keys

_MIX_1, _MIX_2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT, _FOLD = np.uint64(33), np.uint64(29)
_GOLDEN = 0x9E3779B97F4A7C15
# Probing rounds after which a table gives way to sorting: reached only by keys made to share hashes
# (the longest run of full slots in a quarter-full table of well-hashed keys is some fifteen).
MAX_ROUNDS = 64
_HALF, _LOW = np.uint64(32), np.uint64(0xFFFFFFFF)
_EMPTY, _EMPTY_POSITION = np.uint64(2 ** 64 - 1), 2 ** 32 - 1  # an empty slot: position and hash all ones
BLOCK_ROWS = 1 << 16  # keys made and looked up at a time (a block's words: 2 MB for texts of 32 bytes)


def _mixed(h: np.ndarray) -> np.ndarray:
    """A 64-bit finaliser (MurmurHash3's fmix64), in place: every input bit reaches every output bit."""
    h ^= h >> _SHIFT
    h *= _MIX_1
    h ^= h >> _SHIFT
    h *= _MIX_2
    h ^= h >> _SHIFT
    return h


@dataclass
class TextKeys:
    """(group, text) keys: ``words`` (k, n) uint64, ``length`` (n,) integers, ``group`` (n,) int32 and
    ``hash`` (n,) uint64."""

    words: np.ndarray
    length: np.ndarray
    group: np.ndarray
    hash: np.ndarray

    @classmethod
    def of(cls, texts: pa.Array | pa.ChunkedArray | PackedTexts, group: np.ndarray,
           rows: np.ndarray | None = None) -> "TextKeys":
        """The keys of ``(group[i], texts[i])``, or with ``rows`` of ``(group[i], texts[rows[i]])`` (each text
        read once, however many keys share it): texts any binary or string array or packed texts, groups
        integers below 2**31 (topic indices)."""
        chunks = [texts] if isinstance(texts, PackedTexts) else \
            (texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts])
        chunks = [chunk for chunk in chunks if len(chunk)]
        length = np.concatenate([np.diff(text_buffers(chunk)[0]) for chunk in chunks]) if chunks \
            else np.zeros(0, np.int32)
        group = np.asarray(group).astype(np.int32, copy=False)
        words = np.empty((int(-(-length.max(initial=0) // 8)), len(length)), dtype=WORD)
        row = 0
        for chunk in chunks:  # read in place, chunk by chunk
            text_words(chunk, words[:, row: row + len(chunk)])
            row += len(chunk)
        if rows is not None:  # (a text's words are its own whoever else is read: see text_words)
            words, length = np.ascontiguousarray(words[:, rows]), length[rows]
        return cls(words, length, group, cls._hash(words, length, group))

    @staticmethod
    def _hash(words: np.ndarray, length: np.ndarray, group: np.ndarray) -> np.ndarray:
        # A text's own words, each times a constant of its position and folded (so that no difference
        # between two texts' words cancels out for every constant), summed; then the length and the group,
        # all mixed: the same key gives the same hash whatever the longest text beside it.
        h = group.astype(np.uint64) * np.uint64(0xD6E8FEB86659FD93)
        h += length.astype(np.uint64) * np.uint64(_GOLDEN)
        term, folded = np.empty_like(h), np.empty_like(h)
        for j, word in enumerate(words):
            np.multiply(word, np.uint64((2 * j + 3) * 0x632BE59BD9B4E019 & (2 ** 64 - 1) | 1), out=term)
            np.right_shift(term, _FOLD, out=folded)
            term ^= folded
            np.add(h, term, out=h, where=length > 8 * j)
        return _mixed(h)

    def __len__(self) -> int:
        return len(self.length)

    def take(self, rows: np.ndarray) -> "TextKeys":
        """The keys at ``rows``."""
        return TextKeys(self.words[:, rows], self.length[rows], self.group[rows], self.hash[rows])

    @staticmethod
    def joined(first: "TextKeys", second: "TextKeys") -> "TextKeys":
        """Both sets of keys, in one, with as many words (a text's last word repeated, as it is read)."""
        k = max(len(first.words), len(second.words))

        def widened(keys: "TextKeys") -> np.ndarray:
            if len(keys.words) == k:
                return keys.words
            if not len(keys.words):  # empty texts only
                return np.zeros((k, len(keys)), dtype=WORD)
            return np.concatenate([keys.words, np.repeat(keys.words[-1:], k - len(keys.words), axis=0)])

        return TextKeys(np.concatenate([widened(first), widened(second)], axis=1),
                        np.concatenate([first.length, second.length]), np.concatenate([first.group, second.group]),
                        np.concatenate([first.hash, second.hash]))

    def in_key_order(self, *minor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the keys' positions in key order, ties by ``minor`` keys and then by position; whether each
        key of that order but the first equals the one before it)."""
        order = np.lexsort([*minor, *self.words[::-1], self.length, self.group])
        return order, self.equal(order[1:], self, order[:-1])

    def equal(self, mine: np.ndarray, other: "TextKeys", theirs: np.ndarray) -> np.ndarray:
        """Whether key ``mine[i]`` of these equals key ``theirs[i]`` of ``other``, byte for byte."""
        same = (self.length[mine] == other.length[theirs]) & (self.group[mine] == other.group[theirs])
        for j in range(min(len(self.words), len(other.words))):  # equal lengths use the same words
            same &= self.words[j][mine] == other.words[j][theirs]
        return same


class KeyTable:
    """An open-addressing (linear probing) hash table of distinct keys, built once, probed by arrays.

    A slot is one 64-bit word: the key's position in its high half, the low half
    of its hash in the low half (all ones when empty), so that a probe reads one
    word, and only a key whose hash agrees is compared byte for byte. At most a
    quarter full: 32 bytes of slots a key, and probes stay short.
    """

    def __init__(self, keys: TextKeys) -> None:
        if len(keys) >= _EMPTY_POSITION:
            raise ValueError(f"a table holds fewer than {_EMPTY_POSITION} keys")
        self.keys = keys
        bits = max(3, int(len(keys) * 4 - 1).bit_length())
        self.mask = (1 << bits) - 1
        self.shift = np.uint64(64 - bits)
        self.slots = np.full(1 << bits, _EMPTY, dtype=np.uint64)
        pending = np.arange(len(keys), dtype=np.int64)
        slot = self._home(keys.hash)
        self.sorted_only = False  # True: too many keys shared hashes; every lookup sorts instead
        for _ in range(MAX_ROUNDS):
            if not len(pending):
                break
            free = self.slots[slot] == _EMPTY
            # One key per free slot this round (the first asking); every other one moves on, past a slot
            # now taken, so no key ever sits beyond a gap in its probe sequence.
            _, first = np.unique(slot[free], return_index=True)
            placed = np.flatnonzero(free)[first]
            self.slots[slot[placed]] = (pending[placed].astype(np.uint64) << _HALF) | \
                (keys.hash[pending[placed]] & _LOW)
            rest = np.ones(len(pending), dtype=bool)
            rest[placed] = False
            pending, slot = pending[rest], (slot[rest] + 1) & self.mask
        else:
            self.sorted_only = len(pending) > 0

    @property
    def position_type(self) -> type:
        """The integers a key's position needs."""
        return np.int32 if len(self.keys) < 2 ** 31 else np.int64

    def _home(self, hashes: np.ndarray) -> np.ndarray:
        return (hashes >> self.shift).astype(np.int64)

    def find(self, keys: TextKeys) -> np.ndarray:
        """Each key's position among the table's keys, -1 for one it lacks."""
        index = np.int32 if len(keys) < 2 ** 31 else np.int64
        found = np.full(len(keys), -1, dtype=self.position_type)
        asking = np.arange(len(keys), dtype=index)  # the keys still probing, and their slots and hashes
        slot = self._home(keys.hash)
        wanted = keys.hash & _LOW
        for _ in range(0 if self.sorted_only else MAX_ROUNDS):
            if not len(asking):
                return found
            held = self.slots[slot]
            empty = held == _EMPTY
            held_hash = held & _LOW
            candidate = np.flatnonzero((held_hash == wanted) & ~empty)  # hashes alike: compared byte for byte
            position = (held[candidate] >> _HALF).astype(np.int64)
            same = keys.equal(asking[candidate], self.keys, position)
            found[asking[candidate[same]]] = position[same]
            # On past a slot holding another key (or an equal half hash of another text).
            going_on = np.flatnonzero((held_hash != wanted) & ~empty)
            if not same.all():
                going_on = np.sort(np.concatenate([going_on, candidate[~same]]))
            asking, slot, wanted = asking[going_on], (slot[going_on] + 1) & self.mask, wanted[going_on]
        if len(asking):
            found[asking] = self._found_by_sorting(keys.take(asking))
        return found

    @cached_property
    def native_arrays(self) -> tuple:
        """The table as the compiled kernel reads it: (slots, shift, rows, width): a key's row is its length
        and group in one word (``length << 32 | group``), then its words; one row read per lookup."""
        rows = np.empty((len(self.keys), len(self.keys.words) + 1), dtype=np.uint64)
        rows[:, 0] = (self.keys.length.astype(np.uint64) << _HALF) | self.keys.group.astype(np.uint64)
        rows[:, 1:] = self.keys.words.T
        return self.slots, int(self.shift), rows, rows.shape[1]

    def _found_by_sorting(self, keys: TextKeys) -> np.ndarray:
        """:meth:`find` by sorting the table's keys and these together, whatever their hashes."""
        both = TextKeys.joined(self.keys, keys)
        side = np.repeat(np.array([0, 1], dtype=np.int8), [len(self.keys), len(keys)])
        order, same = both.in_key_order(side)  # the table's key first of equals
        new = np.ones(len(order), dtype=bool)
        new[1:] = ~same
        first = order[new]  # the first of each run of equal keys
        position = np.where(side[first] == 0, first, -1)[np.cumsum(new) - 1]  # the table's key in each run
        found = np.empty(len(keys), dtype=np.int64)
        theirs = side[order] == 1
        found[order[theirs] - len(self.keys)] = position[theirs]
        return found


def matched_keys(table: KeyTable | None, texts: pa.Array | pa.ChunkedArray | PackedTexts, group: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(each key's position in ``table``, -1 where it lacks the key or there is no table; the positions
    of the keys equal to an earlier one) for the keys ``(group[i], texts[i])``.

    Keys are made and looked up :data:`BLOCK_ROWS` at a time: only a block's words are ever held (or,
    where it is built, by the compiled kernel, which gives the same positions).
    """
    compiled = _compiled_matched_keys(table, texts, group)
    if compiled is not None:
        return compiled
    if isinstance(texts, PackedTexts):
        texts = texts.arrow()
    hashes = np.empty(len(texts), dtype=np.uint64)
    found = np.full(len(texts), -1, dtype=np.int32 if table is None else table.position_type)
    for start in range(0, len(texts), BLOCK_ROWS):
        keys = TextKeys.of(texts.slice(start, BLOCK_ROWS), group[start: start + BLOCK_ROWS])
        hashes[start: start + len(keys)] = keys.hash
        if table is not None:
            found[start: start + len(keys)] = table.find(keys)
    return found, _repeated(hashes, texts, group)


def _compiled_matched_keys(table: KeyTable | None, texts: pa.Array | pa.ChunkedArray | PackedTexts,
                           group: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`matched_keys` by the compiled kernel (divaleval/native): the same keys, hashes and probes in one
    pass without the GIL; None where it is not built, or the texts are not one binary or string array with
    32-bit offsets, or keys share hashes too often (the kernel declines: numpy sorts them)."""
    if table is not None and table.sorted_only:
        return None
    return match_keys(lambda: _key_arrays(table, texts, group))


def _key_arrays(table: KeyTable | None, texts: pa.Array | pa.ChunkedArray | PackedTexts, group: np.ndarray
                ) -> KeyArrays | None:
    """The keys and the table as the compiled kernel reads them; None unless the texts make one binary or
    string array (the kernel takes 32-bit offsets only), holding a key at least."""
    if not len(texts):
        return None
    if isinstance(texts, PackedTexts):
        offsets, data = texts.offsets, texts.data
    else:
        if isinstance(texts, pa.ChunkedArray):
            texts = texts.combine_chunks() if texts.num_chunks != 1 else texts.chunk(0)
        if not (pa.types.is_binary(texts.type) or pa.types.is_string(texts.type)):
            return None
        offsets, data = text_offsets(texts), texts.buffers()[2]
    return KeyArrays(group, offsets, data, None if table is None else table.native_arrays,
                     np.int32 if table is None else table.position_type)


def _repeated(hashes: np.ndarray, texts: pa.Array | pa.ChunkedArray, group: np.ndarray) -> np.ndarray:
    """The positions of the keys equal to an earlier one, given every key's hash."""
    ordered = np.sort(hashes)
    collided = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(collided):
        return np.zeros(0, dtype=np.int64)
    suspects = np.flatnonzero(np.isin(hashes, collided))  # few: repeats and true hash collisions
    keys = TextKeys.of(texts.take(arrow_of(suspects)), np.asarray(group)[suspects])
    order, same = keys.in_key_order()
    return np.sort(suspects[order[1:][same]])
