"""The judged documents of a collection: what ranking and matching need from any kind of judgments.

Per topic (natural order), the judged documents are *rows*, sorted by docno in
byte order; a run's lines are matched to rows, and every kind of judgments keeps
its own payload per row (intent levels, aspect labels, preference counts) in a
subclass:

* :class:`~divaleval.model.qrels.Qrels`: intentwise (and ad hoc) qrels, levels per intent;
* :class:`~divaleval.model.aspects.AspectQrels`: multi-aspect qrels, labels per aspect;
* :class:`~divaleval.model.preferences.PreferenceQrels`: preference judgments, counts per document.

A measure states the kind of judgments it needs, and fits a collection when the
collection is an instance of that kind's class (:meth:`divaleval.measures.Measure.check`).
What measures derive from the judgments alone (ideal rankings) is kept in
:attr:`JudgedDocuments.cache` (see :mod:`divaleval.measures.core.cache`), so it is
computed once for all runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..lazy import pyarrow as pa  # (imported on first use: see divaleval/lazy.py)
# Arrow's compute functions are called by name (arrow_call: see the note on imports in divaleval/arrays.py).

from ..arrays import (PackedTexts, arrow_call, arrow_of, arrow_take, dense_text_ranks, keep_packed, numpy_of,
                      packed_or_arrow, unpacked)
from ..io.table import binary_array
from .text_keys import KeyTable, TextKeys


@dataclass(eq=False)
class JudgedDocuments:
    """The judged rows of every topic (see the module docstring); a kind of judgments adds its payload."""

    name: str
    topic_ids: list[str]
    row_start: np.ndarray        # (T+1,) judged rows of topic t are row_start[t]:row_start[t+1]
    row_key: np.ndarray          # (rows,) topic * n_docnos + docno code, ascending
    docnos: pa.Array             # distinct judged docnos (binary), in byte order; position = docno code
    cache: dict = field(default_factory=dict, init=False, repr=False)  # quantities measures derive

    def __post_init__(self) -> None:
        keep_packed(self, "docnos")  # as the compiled reader read them: an Arrow array when asked for

    @property
    def n_topics(self) -> int:
        return len(self.topic_ids)

    # The docnos are pickled as packed texts (numpy arrays), and made an Arrow array again when first asked for:
    # unpickling then needs no pyarrow, which a call scoring one run against cached qrels (divaleval/model/
    # stored.py) never otherwise imports (40-50 ms of such a call).
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        docnos = state.get("docnos")
        packed = PackedTexts.of_arrow(docnos) if docnos is not None and docnos.type == pa.binary() else None
        if packed is not None:
            del state["docnos"]
            state["_packed_docnos"] = packed
        return state

    def __getattr__(self, name: str):
        return unpacked(self, name, "docnos")

    @cached_property
    def row_topic(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_topics), np.diff(self.row_start))

    @cached_property
    def row_judged(self) -> np.ndarray:
        """(rows,) bool: the rows a condensed list (``--judged-only``) keeps; every row, unless a kind
        of judgments has rows that are listed but not judged."""
        return np.ones(len(self.row_key), dtype=bool)

    @property
    def has_relevant(self) -> np.ndarray:
        """(T,) bool: topics with something to find (a relevant document, a preferred one...): the others
        score 0 on every measure."""
        raise NotImplementedError(f"{type(self).__name__} does not say which topics have relevant documents")

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return {topic: t for t, topic in enumerate(self.topic_ids)}

    def topic_position(self, topic_ids: np.ndarray) -> np.ndarray:
        """Index of each id in ``topic_ids`` (-1 for a topic the judgments lack)."""
        index = self._topic_index
        return np.array([index.get(str(topic), -1) for topic in topic_ids], dtype=np.int64)

    @cached_property
    def judged_table(self) -> KeyTable:
        """The judged (topic index, docno) pairs, a table's key i being row i: what every run is matched
        against, hashed once for all runs."""
        docnos = self.docno_texts
        return KeyTable(TextKeys.of(docnos, self.row_topic, rows=self.row_key % max(len(docnos), 1)))

    @property
    def docno_texts(self) -> pa.Array | PackedTexts:
        """:attr:`docnos` as packed texts where the compiled reader read them (no Arrow array made), else as an
        Arrow array."""
        return packed_or_arrow(self, "docnos")


# Below this many docnos (and TEXT_RANK_BYTES laid out), sorted_docnos sorts packed texts with numpy: a few
# milliseconds for the TREC Web qrels' 10-30 thousand, where importing pyarrow costs some 50. Above, Arrow's sort.
SORTED_DOCNOS = 1 << 16


def sorted_docnos(codes: np.ndarray, labels) -> tuple[np.ndarray, pa.Array | PackedTexts]:
    """Re-code docnos so that code order is byte order (``strcmp``'s); the sorted docnos as binary (packed
    texts where ``labels`` are, and few)."""
    if isinstance(labels, PackedTexts):
        ranks = dense_text_ranks(labels, np.arange(len(labels))) if len(labels) <= SORTED_DOCNOS else None
        taken = None
        if ranks is not None:  # (distinct texts: the ranks are a permutation, each text's place in byte order)
            order = np.empty(len(labels), dtype=np.int64)
            order[ranks - 1] = np.arange(len(labels))
            taken = labels.take(order)
        if taken is not None:
            return (ranks - 1)[codes], taken
        labels = labels.arrow()
    docnos = labels if isinstance(labels, pa.Array) else binary_array(labels)
    order = numpy_of(arrow_call("array_sort_indices", docnos))
    remap = np.empty(len(docnos), dtype=np.int64)
    remap[order] = np.arange(len(docnos))
    return remap[codes], arrow_take(docnos, arrow_of(order))


def row_starts(row_topic: np.ndarray, n_topics: int) -> np.ndarray:
    """(T+1,) where each topic's rows start in rows sorted by topic (the last entry: the number of rows)."""
    return np.searchsorted(row_topic, np.arange(n_topics + 1)).astype(np.int64)
