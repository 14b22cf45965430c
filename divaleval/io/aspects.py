"""Multi-aspect qrels: one ordinary qrels file per aspect (``topic 0 docno label``).

They become one :class:`~divaleval.topics.Qrels` whose intent columns are the
aspects, in the order given, and whose levels are the labels; a document judged
for some aspects only takes the lowest label on the others.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from ..ids import natural_key, sort_labels
from ..multiaspect import Aspect, parse_aspect
from ..topics import Qrels, dense_rank
from .qrels import QrelsTable, read_qrels
from .source import read_input
from .table import ID, INT, PRESENT, Factor, read_columns


def read_wide(path: str, column: int) -> QrelsTable:
    """Label column ``column`` (1-based) of a wide file ``topic 0 docno label1 label2 ...``."""
    source = read_input(path)
    with source.open() as handle:
        first = next((line.split() for line in handle if line.split()), [])
    width = len(first)
    if width < 3 + column:
        raise InputError(source.name, 1, f"has {max(width - 3, 0)} label columns, not {column}")
    kinds = [ID, PRESENT, ID] + [INT] * (width - 3)
    names = ["topic", "0", "docno"] + [f"label {j}" for j in range(1, width - 2)]
    columns = read_columns(source, kinds, names=names, layout="topic 0 docno label1 label2 ...")
    topic, _, docno = columns.fields[:3]
    return QrelsTable(source.name, topic, Factor(np.zeros(len(columns), np.int32), np.array(["0"], dtype=object)),
                      docno, columns.fields[2 + column], columns.lines)


def load_aspects(specs: list[str]) -> Qrels:
    """Read ``NAME=FILE[,options]`` aspect specifications (see :func:`divaleval.multiaspect.parse_aspect`)."""
    aspects, frames = [], []
    for j, spec in enumerate(specs):
        try:
            aspect, path, bins, column = parse_aspect(spec)
        except ValueError as exc:
            raise InputError("--aspect", None, str(exc)) from None
        table = read_wide(path, column) if column else read_qrels(path)
        label = table.level.astype(np.int64)
        if bins:
            label = np.searchsorted(np.asarray(bins), label, side="right")
        if aspect.labels == (0,) and not any(o.startswith("labels=") for o in spec.split(",")[1:]):
            aspect = Aspect(aspect.name, tuple(int(v) for v in np.unique(label)), aspect.embedding, aspect.gains,
                            aspect.weight)
        unknown = ~np.isin(label, aspect.labels)
        if unknown.any():
            row = int(np.argmax(unknown))
            raise InputError(table.name, int(table.line[row]),
                             f"label {label[row]} is not one of aspect {aspect.name}'s labels {list(aspect.labels)}")
        aspects.append(aspect)
        frames.append(pd.DataFrame({"topic": table.topic.values(), "docno": table.docno.values(), "label": label,
                                    "aspect": j, "line": table.line, "file": table.name}))
    if len({a.name for a in aspects}) != len(aspects):
        raise InputError("--aspect", None, "aspect names must be distinct")
    judged = pd.concat(frames, ignore_index=True)
    topic, topic_ids = sort_labels(*pd.factorize(judged["topic"].to_numpy(object)), natural_key)
    doc, docnos = sort_labels(*pd.factorize(judged["docno"].to_numpy(object)))
    row_key, row_of = dense_rank(topic.astype(np.int64) * len(docnos) + doc)
    cell = row_of * len(aspects) + judged["aspect"].to_numpy()
    codes, first = pd.factorize(cell)
    if len(first) < len(cell):
        repeated = pd.Series(cell).duplicated().to_numpy()
        j = int(np.argmax(repeated))
        raise InputError(str(judged["file"][j]), int(judged["line"][j]),
                         f"document {docnos[doc[j]]} of topic {topic_ids[topic[j]]} is judged twice for this aspect")
    levels = np.tile(np.array([a.labels[0] for a in aspects], dtype=np.int16), (len(row_key), 1))
    levels[row_of, judged["aspect"].to_numpy()] = judged["label"].to_numpy()
    n_topics = len(topic_ids)
    row_topic = row_key // len(docnos)
    lowest = np.array([a.labels[0] for a in aspects])
    above_lowest = (levels > lowest).astype(np.int64)
    rel_count = np.zeros((n_topics, len(aspects)), dtype=np.int64)
    np.add.at(rel_count, row_topic, above_lowest)
    docno_array = np.asarray(docnos, dtype=object)
    return Qrels(
        name=", ".join(str(f) for f in judged["file"].unique()),
        topic_ids=[str(t) for t in topic_ids],
        row_start=np.searchsorted(row_topic, np.arange(n_topics + 1)).astype(np.int64),
        row_docno=docno_array[row_key % len(docnos)],
        row_key=row_key.astype(np.int64),
        docnos=pd.Index(docno_array),
        levels=levels,
        intent_ids=[[a.name for a in aspects] for _ in topic_ids],
        rel_count=rel_count,
        weights=np.tile([1.0 / len(aspects) if a.weight is None else a.weight for a in aspects], (n_topics, 1)),
        aspects=aspects,
    )
