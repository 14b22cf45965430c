"""The kernels over text: splitting a block of lines into fields, splitting a run file or qrels, matching (group,
text) keys, printing rows of numbers.

Their twins are whole paths of the layers above (io/lines's numpy splitter, the
reader of io/table, the numpy hash table of model/text_keys.py, the printf of
output/formatting.py), so each function here answers None for "not built,
turned off, or declined" and its caller takes its own path: no caller asks for
the compiled kernels itself.
"""
from __future__ import annotations

import mmap
from typing import Callable, ContextManager, NamedTuple

import numpy as np

from .compiled import kernel


def split_fields(block: bytes, space: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A block of whole lines (ending with a newline) split into fields on the bytes of ``space`` and the
    newline: (starts, ends, per_line), intp arrays, field k ``block[starts[k]:ends[k]]`` and ``per_line[i]``
    fields on line i, as io/lines's numpy split gives them; or None: the kernel is not taken, or declines
    (a space byte above 0x20, a block not ending with a newline)."""
    compiled = kernel("split_fields")
    split = compiled(block, space) if compiled is not None else None
    if split is None:
        return None
    starts, ends, per_line = (np.frombuffer(array, dtype=np.intp) for array in split)
    return starts, ends, per_line


class SplitRun(NamedTuple):
    """A run file's columns, as split by the kernel."""

    rows: int
    topic_codes: np.ndarray    # int32: each line's topic, an index into labels
    docno_offsets: bytearray   # int32 offsets and bytes: the docnos as the buffers of an Arrow binary array
    docno_bytes: bytearray
    rank: np.ndarray           # int64
    score: np.ndarray          # float64
    labels: list[bytes]        # the topics, in first-seen order
    runtag: bytes              # the first line's
    extra_fields: bool         # some line had fields past the sixth


def split_run(content: Callable[[], ContextManager]) -> SplitRun | None:
    """A run file's content split into columns, or None: the kernel is not taken, or the file is not in the
    plain form it takes (one space or one tab between fields, plain numbers). ``content()`` gives the bytes
    (a buffer, or a read-only mapping of the file, whose pages are given back as they are read) for the
    split: only asked for when the kernel is taken."""
    split = _split_file("split_run", content)
    if split is None:
        return None
    rows, topic_codes, offsets, docnos, ranks, scores, labels, runtag, extra_fields = split
    return SplitRun(rows, np.frombuffer(topic_codes, dtype=np.int32), offsets, docnos,
                    np.frombuffer(ranks, dtype=np.int64), np.frombuffer(scores, dtype=np.float64), labels, runtag,
                    extra_fields)


def _split_file(name: str, content: Callable[[], ContextManager], *options: int) -> tuple | None:
    """The kernel ``name``'s answer for the bytes ``content()`` gives (None: not taken, or declined), told
    whether they are a file's mapping (see :func:`split_run`), and given ``options``."""
    compiled = kernel(name)
    if compiled is None:
        return None
    with content() as data:
        return compiled(data, isinstance(data, mmap.mmap), *options)


class SplitQrels(NamedTuple):
    """Intentwise qrels' columns, as split by the kernel."""

    rows: int
    topic_codes: np.ndarray    # int32: each line's topic, an index into topic_labels
    intent_codes: np.ndarray   # int32: each line's intent, an index into intent_labels
    docno_codes: np.ndarray    # int32: each line's docno, an index into the docnos below
    level: np.ndarray          # int16: the judgments qrels may hold
    docno_offsets: bytearray   # int32 offsets and bytes: the docnos (first-seen order) as the buffers of an Arrow
    docno_bytes: bytearray     # binary array
    topic_labels: list[bytes]  # in first-seen order
    intent_labels: list[bytes]


def split_qrels(content: Callable[[], ContextManager], halves_from: int | None = None) -> SplitQrels | None:
    """Intentwise qrels (``topic intent docno judgment``) split into columns, or None: the kernel is not taken,
    or the file is not in the plain form it takes (one space or one tab between four fields, judgments
    integers or NTCIR levels within range). ``content()``: as for :func:`split_run`. Docnos come coded as
    topics and intents do (the distinct ones once each), not as one text per line. From ``halves_from`` bytes
    (None: the kernel's own 8 MB) two threads split a half each, giving the same columns."""
    split = _split_file("split_qrels", content, -1 if halves_from is None else halves_from)
    if split is None:
        return None
    rows, topics, intents, docnos, levels, offsets, texts, topic_labels, intent_labels = split
    return SplitQrels(rows, *(np.frombuffer(codes, dtype=np.int32) for codes in (topics, intents, docnos)),
                      np.frombuffer(levels, dtype=np.int16), offsets, texts, topic_labels, intent_labels)


class KeyArrays(NamedTuple):
    """Keys as the matching kernel reads them: key i is ``(group[i], data[offsets[i]:offsets[i + 1]])``."""

    group: np.ndarray        # integers below 2**31
    offsets: np.ndarray      # int32 (other offsets are declined)
    data: object             # a buffer (None: no bytes)
    table: tuple | None      # (slots uint64, shift, rows uint64 (keys, width) in C order: a key's
                             # ``length << 32 | group``, then its 64-bit words); None: no table
    position_type: type      # of a position in the table


def match_keys(keys: Callable[[], KeyArrays | None]) -> tuple[np.ndarray, np.ndarray] | None:
    """(each key's position in the table, -1 where it lacks the key or there is none; the positions of the
    keys equal to an earlier one, int64, ascending), or None: the kernel is not taken, ``keys()`` gives None,
    or keys share hashes too often. ``keys()`` makes the arrays: only asked for when the kernel is taken."""
    compiled = kernel("match_keys")
    arrays = keys() if compiled is not None else None
    if arrays is None or arrays.offsets.dtype != np.int32:
        return None
    found = np.full(len(arrays.group), -1, dtype=arrays.position_type)
    repeated = compiled(np.ascontiguousarray(arrays.group, dtype=np.int32), arrays.offsets,
                        arrays.data if arrays.data is not None else b"", found, arrays.table)
    return None if repeated is None else (found, np.array(repeated, dtype=np.int64))


def fixed_rows(matrix: np.ndarray, digits: int, sep: str) -> list[str] | None:
    """Each row of a 2-d ``matrix`` as its values printed by ``printf("%.<digits>f")``
    (NaN as ``-nan``) joined by ``sep``, or None: the kernel is not taken, or declines (more than 9 digits,
    a value beyond 2**93, a separator of more than one ASCII character)."""
    compiled = kernel("fixed_rows")
    if compiled is None or matrix.ndim != 2 or len(sep) != 1:
        return None
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    return compiled(matrix, matrix.shape[0], matrix.shape[1], digits, sep)
