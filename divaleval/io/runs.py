"""TREC run files: ``topic Q0 docno rank score runtag``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .source import InputFile, read_input
from .table import FLOAT, ID, INT, PRESENT, STR, Factor, read_columns

RUN_LAYOUT = "topic Q0 docno rank score runtag"


@dataclass
class RunTable:
    """The validated lines of one run file."""

    name: str            # file name, for messages
    runid: str           # the runtag of the first line
    topic: Factor
    docno: np.ndarray    # str
    rank: np.ndarray     # int64
    score: np.ndarray    # float64
    line: np.ndarray     # int64, 1-based

    def __len__(self) -> int:
        return len(self.line)


def read_run(source: str | InputFile) -> RunTable:
    """Read a TREC run; every line must have exactly six fields."""
    if isinstance(source, str):
        source = read_input(source)
    columns = read_columns(source, [ID, PRESENT, STR, INT, FLOAT, PRESENT],
                           names=["topic", "Q0", "docno", "rank", "score", "runtag"], layout=RUN_LAYOUT)
    if not len(columns):
        raise InputError(source.name, None, "run file holds no results")
    topic, _q0, docno, rank, score, _runtag = columns.fields
    return RunTable(source.name, columns.line_text(int(columns.lines[0])).split()[5], topic, docno, rank, score,
                    columns.lines)
