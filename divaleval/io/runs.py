"""TREC run files: ``topic Q0 docno rank score runtag``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lazy import pyarrow as pa  # (imported on first use: see divaleval/lazy.py)

from ..arrays import PackedTexts, arrow_of, arrow_take, group_positions, keep_packed, packed_or_arrow, unpacked
from ..errors import InputError
from ..native import split_run
from .source import InputFile, read_input
from .table import (
    FLOAT, ID, PRESENT, RANK, TEXT, Factor, Lines, RowLines, binary_array, decode, int32_if_fits, integer_array,
    memory_lines, read_columns,
)

RUN_LAYOUT = "topic Q0 docno rank score runtag"


@dataclass
class RunTable(Lines):
    """The validated lines of one run file."""

    name: str            # file name, for messages (a label for a run given in memory)
    runid: str           # the runtag of the first line
    topic: Factor
    docno: pa.ChunkedArray  # binary: document ids, never one Python object each (or a pa.Array; see docno_texts)
    rank: np.ndarray     # int64
    score: np.ndarray    # float64
    line: np.ndarray     # int64, 1-based
    rank_out_of_range: int | None = None  # the line of the first rank beyond 64 bits (clipped): bad only to order by rank
    extra_fields: bool = False            # some line had fields past the sixth (ignored, as trec_eval and ndeval do)

    def __post_init__(self) -> None:
        if keep_packed(self, "docno"):  # the compiled reader's: an Arrow array only when asked for
            return
        if not isinstance(self.docno, (pa.Array, pa.ChunkedArray)):  # built by hand with an array of str
            self.docno = binary_array(self.docno)

    def __getattr__(self, name: str):
        return unpacked(self, name, "docno")

    @property
    def docno_texts(self) -> pa.Array | pa.ChunkedArray | PackedTexts:
        """The docnos as matching takes them: as the compiled reader packed them where it read the run (no Arrow
        array made: see :class:`~divaleval.arrays.PackedTexts`), else :attr:`docno`."""
        return packed_or_arrow(self, "docno")

    def take(self, rows: np.ndarray) -> "RunTable":
        """The run with only these lines (a new table; this one is unchanged)."""
        return RunTable(self.name, self.runid, self.topic.take(rows), arrow_take(self.docno, arrow_of(rows)),
                        self.rank[rows], self.score[rows], np.asarray(self.line)[rows],
                        extra_fields=self.extra_fields)

    @classmethod
    def from_arrays(cls, topic, docno, score=None, rank=None, *, runid: str = "memory",
                    name: str | None = None) -> "RunTable":
        """A run given in memory, one entry per ranked document.

        Without ``score`` and ``rank`` the entries are ranked in the order
        given, topic by topic, and every order rule agrees on it. With ranks
        only, the score order follows them; with scores only, the ranks follow
        the order given. ``name`` labels the run in results and messages
        (default: ``runid``); an entry's 1-based position stands for its line.
        """
        name = name or runid
        topic, docno = Factor.of_ids(topic), binary_array(docno)
        if len(docno) != len(topic):
            raise InputError(name, None, "topic and docno need one entry each per ranked document")
        if not len(docno):
            raise InputError(name, None, "run holds no results")
        if rank is None:
            by_topic = np.argsort(topic.codes, kind="stable")
            rank = np.empty(len(docno), dtype=np.int64)
            rank[by_topic] = group_positions(topic.codes[by_topic])
        else:
            rank = integer_array(rank, name, "rank")
        if score is None:
            score = -rank.astype(np.float64)
        else:
            try:
                score = np.asarray(score, dtype=np.float64)
            except (TypeError, ValueError):
                raise InputError(name, None, "scores must be numbers") from None
            bad = np.isnan(score)   # infinite scores rank as a run file's do
            if bad.any():
                raise InputError(name, int(np.argmax(bad)) + 1, "score nan is not a number")
        if not len(rank) == len(score) == len(docno):
            raise InputError(name, None, "score and rank need one entry each per ranked document")
        return cls(name, runid, topic, docno, rank, score, memory_lines(len(docno)))


def read_run(source: str | InputFile) -> RunTable:
    """Read a TREC run: six fields a line; fields past the sixth are ignored (and noted), as trec_eval does."""
    if isinstance(source, str):
        source = read_input(source)
    plain = _read_plain_run(source)
    if plain is not None:
        return plain
    columns = read_columns(source, [ID, PRESENT, TEXT, RANK, FLOAT, PRESENT],
                           names=["topic", "Q0", "docno", "rank", "score", "runtag"], layout=RUN_LAYOUT,
                           extra_fields="ignore")
    if not len(columns):
        raise InputError(source.name, None, "run file holds no results")
    topic, _q0, docno, (rank, out_of_range), score, _runtag = columns.fields
    runid = decode(source.line_bytes(int(columns.lines[0])).split()[5])
    return RunTable(source.name, runid, topic, docno, rank, score, columns.lines,
                    rank_out_of_range=None if out_of_range is None else int(columns.lines[out_of_range]),
                    extra_fields=columns.extra_fields)


def _read_plain_run(source: InputFile) -> RunTable | None:
    """The run split by the compiled kernel (divaleval/native), or None where it is not taken or declines the
    file (anything but one space or one tab between fields and plain numbers): then :func:`read_columns`
    reads it, and names the line of any problem. Both give the same table."""
    split = split_run(source.mapped)
    if split is None:
        return None
    topic = Factor(split.topic_codes, np.array([decode(label) for label in split.labels], dtype=object))
    docno = PackedTexts.of_buffers(split.docno_offsets, split.docno_bytes, split.rows)
    return RunTable(source.name, decode(split.runtag), topic, docno, int32_if_fits(split.rank), split.score,
                    RowLines(split.rows), extra_fields=split.extra_fields)
