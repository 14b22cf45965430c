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

from ..errors import InputError
from .source import InputFile, read_input
from .table import ID, LEVEL, Factor, read_columns

QRELS_LAYOUT = "topic intent docno judgment"
ADHOC_LAYOUT = "topic docno L<k> (NTCIR ad hoc)"
LEVEL_MIN, LEVEL_MAX = -32768, 32767


@dataclass
class QrelsTable:
    """The validated lines of a qrels file, one entry per line."""

    name: str
    topic: Factor
    intent: Factor
    docno: Factor
    level: np.ndarray    # int16
    line: np.ndarray     # int64, 1-based

    def __len__(self) -> int:
        return len(self.line)


def read_qrels(source: str | InputFile) -> QrelsTable:
    """Read intentwise qrels (TREC integers or NTCIR ``L<k>`` levels)."""
    if isinstance(source, str):
        source = read_input(source)
    if _field_count(source) == 3:
        columns = read_columns(source, [ID, ID, LEVEL], names=["topic", "docno", "judgment"],
                               layout=ADHOC_LAYOUT)
        if not len(columns):
            raise InputError(source.name, None, "qrels file holds no judgments")
        topic, docno, level = columns.fields
        intent = Factor(np.zeros(len(level), dtype=np.int32), np.array(["0"], dtype=object))
    else:
        columns = read_columns(source, [ID, ID, ID, LEVEL], names=["topic", "intent", "docno", "judgment"],
                               layout=QRELS_LAYOUT)
        if not len(columns):
            raise InputError(source.name, None, "qrels file holds no judgments")
        topic, intent, docno, level = columns.fields
    out_of_range = (level < LEVEL_MIN) | (level > LEVEL_MAX)
    if out_of_range.any():
        row = int(np.argmax(out_of_range))
        raise columns.error(row, f"judgment {level[row]} is out of range [{LEVEL_MIN}, {LEVEL_MAX}]")
    return QrelsTable(source.name, topic, intent, docno, level.astype(np.int16), columns.lines)


def _field_count(source: InputFile) -> int:
    """Fields on the first non-blank line (3: NTCIR ad hoc qrels; else intentwise)."""
    with source.open() as handle:
        for raw in handle:
            fields = raw.split()
            if fields:
                return len(fields)
    return 0
