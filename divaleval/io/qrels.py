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

from ..arrays import PackedTexts
from ..errors import InputError
from ..native import split_qrels
from .source import InputFile, read_input
from .table import DOCID, ID, LEVEL, Factor, Lines, RowLines, decode, integer_array, memory_lines, read_columns

QRELS_LAYOUT = "topic intent docno judgment"
ADHOC_LAYOUT = "topic docno L<k> (NTCIR ad hoc)"
LEVEL_MIN, LEVEL_MAX = -32768, 32767
ADHOC_INTENT = "0"  # the one intent of ad hoc judgments


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
    the same table (tests/test_native_qrels.py)."""
    split = split_qrels(source.mapped)
    if split is None:
        return None
    docnos = PackedTexts.of_buffers(split.docno_offsets, split.docno_bytes,  # (first-seen order)
                                    len(split.docno_offsets) // 4 - 1)
    labels = [np.array([decode(label) for label in texts], dtype=object)
              for texts in (split.topic_labels, split.intent_labels)]
    return QrelsTable(source.name, Factor(split.topic_codes, labels[0]), Factor(split.intent_codes, labels[1]),
                      Factor(split.docno_codes, docnos), split.level, RowLines(split.rows))


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
