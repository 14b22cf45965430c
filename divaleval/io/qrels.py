"""Qrels: intentwise ``topic intent docno judgment``, or NTCIR ad hoc ``topic docno L<k>``.

The judgment is an integer (TREC, ``-2`` .. ``4``) or an NTCIR level ``L0`` ..
``L9``. Levels >= 1 are relevant to the intent; 0 and negative levels are
judged non-relevant. Ids are kept as strings. A three-column file (NTCIR ad hoc
qrels) is read as one intent, ``0``, per topic; so is a TREC ad hoc file
(``topic 0 docno judgment``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..arrays import dictionary_encoded, numpy_of
from ..errors import InputError
from ..native import SplitQrels, split_qrels
from ..memory import release_unused_memory
from ..threads import Threads
from .source import InputFile, read_input
from .table import DOCID, ID, LEVEL, Factor, Lines, RowLines, decode, integer_array, memory_lines, read_columns

QRELS_LAYOUT = "topic intent docno judgment"
ADHOC_LAYOUT = "topic docno L<k> (NTCIR ad hoc)"
LEVEL_MIN, LEVEL_MAX = -32768, 32767
ADHOC_INTENT = "0"  # the one intent of ad hoc judgments
QRELS_PARTS = 2         # parts of plain qrels split at once, a thread each (io/table's readers are two as well)
PART_BYTES = 1 << 23    # ... of at least this many bytes each (8 MiB): smaller files are split whole


@dataclass
class QrelsTable(Lines):
    """The validated lines of a qrels file, one entry per line."""

    name: str
    topic: Factor
    intent: Factor
    docno: Factor
    level: np.ndarray    # int16
    line: np.ndarray     # int64, 1-based

    @classmethod
    def from_arrays(cls, topic, intent, docno, level, name: str = "<memory>") -> "QrelsTable":
        """Judgments given in memory, one per entry; ``intent`` None reads them as ad hoc (intent "0").

        Ids become strings; a level that is not an integer (or out of range)
        is an error naming its (1-based) position as the line.
        """
        level = integer_array(level, name, "judgment")
        count = len(level)
        intent_factor = Factor.single(ADHOC_INTENT, count) if intent is None else Factor.of_ids(intent)
        topic_factor, docno_factor = Factor.of_ids(topic), Factor.of_ids(docno)
        if not len(topic_factor) == len(intent_factor) == len(docno_factor) == count:
            raise InputError(name, None, "topic, intent, docno and level need one entry each per judgment")
        return _checked(cls(name, topic_factor, intent_factor, docno_factor, level, memory_lines(count)), "qrels")


def read_qrels(source: str | InputFile) -> QrelsTable:
    """Read intentwise qrels (TREC integers or NTCIR ``L<k>`` levels)."""
    if isinstance(source, str):
        source = read_input(source)
    if _field_count(source) == 3:
        columns = read_columns(source, [ID, DOCID, LEVEL], names=["topic", "docno", "judgment"],
                               layout=ADHOC_LAYOUT)
        topic, docno, level = columns.fields
        intent = Factor.single(ADHOC_INTENT, len(level))
    else:
        plain = _read_plain_qrels(source)
        if plain is not None:
            return _checked(plain, "qrels file")
        columns = read_columns(source, [ID, ID, DOCID, LEVEL], names=["topic", "intent", "docno", "judgment"],
                               layout=QRELS_LAYOUT)
        topic, intent, docno, level = columns.fields
    return _checked(QrelsTable(source.name, topic, intent, docno, level, columns.lines), "qrels file")


def _read_plain_qrels(source: InputFile) -> QrelsTable | None:
    """Intentwise qrels split by the compiled kernel (divaleval/native), or None where it is not taken or declines
    the file (anything but one space or one tab between four fields, judgments that are not plain integers or
    NTCIR levels within range): then :func:`read_columns` reads it, and names the line of any problem. Both give
    the same table (tests/test_native_qrels.py).

    A large file is split in parts at once, and their docnos encoded at once, a thread each: the codes of
    every part are then joined into codes of the whole file, as if it had been split whole."""
    parts = split_qrels(source.mapped, max(1, min(QRELS_PARTS, source.size // PART_BYTES)))
    if parts is None:
        return None
    with Threads(len(parts) - 1, "divaleval-qrels-docnos") as helpers:
        rest = [helpers.submit(_encoded_docnos, part) for part in parts[1:]]
        encoded = [_encoded_docnos(parts[0]), *(task.result() for task in rest)]
    rows = sum(part.rows for part in parts)
    topics = [(part.topic_codes, part.topic_labels) for part in parts]
    intents = [(part.intent_codes, part.intent_labels) for part in parts]
    levels = [part.level for part in parts]
    del parts  # (the docnos' bytes, encoded: let go before the codes are joined)
    docno = Factor(*_joined_docnos(encoded))
    del encoded
    if len(levels) > 1:  # what the helper threads' heaps freed is not reused by this one's: given back
        release_unused_memory()
    topic, intent = (_joined(codes, rows) for codes in (topics, intents))
    labels = [np.array([decode(label) for label in texts], dtype=object) for texts in (topic[1], intent[1])]
    level = levels[0] if len(levels) == 1 else np.concatenate(levels)
    return QrelsTable(source.name, Factor(topic[0], labels[0]), Factor(intent[0], labels[1]), docno, level,
                      RowLines(rows))


def _encoded_docnos(part: SplitQrels) -> pa.Array:
    """A part's docnos dictionary-encoded (first-seen order, as the reader's blocks unified give it)."""
    docnos = pa.Array.from_buffers(pa.binary(), part.rows,
                                   [None, pa.py_buffer(part.docno_offsets), pa.py_buffer(part.docno_bytes)])
    return dictionary_encoded(docnos)


def _joined(parts: list[tuple[np.ndarray, list[bytes]]], rows: int) -> tuple[np.ndarray, list[bytes]]:
    """The codes of consecutive parts, each into its own labels, as codes into the labels of them all (in
    first-seen order: as if the parts had been read as one)."""
    if len(parts) == 1:
        return parts[0]
    code_of: dict[bytes, int] = {}
    joined = np.empty(rows, dtype=np.int32)
    start = 0
    for codes, labels in parts:
        remap = np.array([code_of.setdefault(label, len(code_of)) for label in labels], dtype=np.int32)
        np.take(remap, codes, out=joined[start: start + len(codes)])
        start += len(codes)
    return joined, list(code_of)


def _joined_docnos(encoded: list[pa.Array]) -> tuple[np.ndarray, pa.Array]:
    """:func:`_joined` for docnos dictionary-encoded part by part: their dictionaries encoded once more
    (a few texts per distinct docno, not one per line)."""
    if len(encoded) == 1:
        return numpy_of(encoded[0].indices), encoded[0].dictionary
    dictionaries = [part.dictionary for part in encoded]
    whole = dictionary_encoded(pa.concat_arrays(dictionaries))
    position = numpy_of(whole.indices)
    joined = np.empty(sum(len(part) for part in encoded), dtype=np.int32)
    start = first = 0
    for part in encoded:
        np.take(position[first: first + len(part.dictionary)], numpy_of(part.indices),
                out=joined[start: start + len(part)])
        start += len(part)
        first += len(part.dictionary)
    return joined, whole.dictionary


def _checked(table: QrelsTable, what: str) -> QrelsTable:
    """The table with its levels checked to fit int16 and stored so; ``what`` it is, for messages."""
    if not len(table):
        raise InputError(table.name, None, f"{what} holds no judgments")
    out_of_range = (table.level < LEVEL_MIN) | (table.level > LEVEL_MAX)
    if out_of_range.any():
        row = int(np.argmax(out_of_range))
        raise InputError(table.name, int(table.line[row]),
                         f"judgment {table.level[row]} is out of range [{LEVEL_MIN}, {LEVEL_MAX}]")
    table.level = table.level.astype(np.int16, copy=False)
    return table


def _field_count(source: InputFile) -> int:
    """Fields on the first non-blank line (3: NTCIR ad hoc qrels; else intentwise)."""
    with source.open() as handle:
        for raw in handle:
            fields = raw.split()
            if fields:
                return len(fields)
    return 0
