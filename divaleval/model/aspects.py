"""Multi-aspect qrels: documents judged on several aspects (relevance, trustworthiness, ...).

An aspect has ordered labels, worst first, an embedding of each label into a
number (default: the label itself) and a gain per label for the per-aspect
measures (default: the embedding). The aspects of a collection become one
:class:`AspectQrels`: intentwise qrels whose intent columns are the aspects, in
the order given, whose levels are the labels and whose intent weights are the
aspects' weights p_a; a document judged for some aspects only takes the lowest
label on the others. As they are intentwise qrels too, the measures of intents
take the aspects for intents (and a label >= 1 for relevant); the multi-aspect
measures (:mod:`divaleval.measures.multiaspect`) need an :class:`AspectQrels`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import dense_rank, first_repeat
from ..errors import InputError, UsageError, as_written
from ..ids import natural_key, sort_labels
from ..io.aspects import AspectTable
from .judged import row_starts, sorted_docnos
from .qrels import Qrels


@dataclass(frozen=True)
class Aspect:
    """One judged aspect: its name and ordered labels (worst first)."""

    name: str
    labels: tuple[int, ...]
    embedding: tuple[float, ...] = ()   # one number per label; default the label values
    gains: tuple[float, ...] = ()       # one gain per label for CAM and MM; default the embedding
    weight: float | None = None         # p_a in CAM and MM; default 1/|A|

    def __post_init__(self) -> None:
        if not self.labels or len(set(self.labels)) != len(self.labels):
            raise UsageError(f"aspect {self.name}: labels must be distinct and not empty")
        for what, values in (("embedding", self.embedding), ("gains", self.gains)):
            if values and len(values) != len(self.labels):
                raise UsageError(f"aspect {self.name}: {what} needs {len(self.labels)} values, one per label "
                                 f"{list(self.labels)}")
        if self.embedding and any(b < a for a, b in zip(self.embedding, self.embedding[1:])):
            raise UsageError(f"aspect {self.name}: the embedding must not decrease along the labels")

    def embed(self, label: int) -> float:
        return float(self.embedding[self.labels.index(label)] if self.embedding else label)

    def gain(self, label: int) -> float:
        return float(self.gains[self.labels.index(label)]) if self.gains else self.embed(label)


@dataclass(eq=False)
class AspectQrels(Qrels):
    """Multi-aspect judgments: intentwise qrels whose intent column j is aspect ``aspects[j]``."""

    aspects: list[Aspect] = field(kw_only=True)  # the Aspect of each intent column, in the order given


def aspect_of(table: AspectTable) -> Aspect:
    """The aspect a table was read for: its declared labels, or those found in its file."""
    spec = table.spec
    labels = spec.labels or tuple(int(v) for v in np.unique(table.label))
    aspect = Aspect(spec.name, labels, spec.embedding, spec.gains, spec.weight)
    unknown = ~np.isin(table.label, aspect.labels)
    if unknown.any():
        row = int(np.argmax(unknown))
        raise InputError(table.name, int(table.line[row]),
                         f"label {table.label[row]} is not one of aspect {aspect.name}'s labels {list(aspect.labels)}")
    return aspect


def build_aspect_qrels(tables: list[AspectTable]) -> AspectQrels:
    """One :class:`AspectQrels` from the tables of every aspect, in the order given."""
    import pandas as pd  # multi-aspect qrels only

    aspects = [aspect_of(table) for table in tables]
    judged = pd.concat([pd.DataFrame({"topic": t.topic.values(), "docno": t.docno.values(), "label": t.label,
                                      "aspect": j, "line": np.asarray(t.line), "file": t.name})
                        for j, t in enumerate(tables)], ignore_index=True)
    topic, topic_ids = sort_labels(*pd.factorize(judged["topic"].to_numpy(object)), natural_key)
    doc, docnos = sorted_docnos(*pd.factorize(judged["docno"].to_numpy(object)))
    row_key, row_of = dense_rank(topic.astype(np.int64) * len(docnos) + doc)
    pair = first_repeat(row_of * len(aspects) + judged["aspect"].to_numpy())
    if pair is not None:
        line = pair[1]
        raise InputError.repeat(str(judged["file"][line]), judged["line"].to_numpy(), pair,
                                f"judgment of document {as_written(judged['docno'][line])} of topic {topic_ids[topic[line]]} "
                                f"for aspect {aspects[judged['aspect'][line]].name}")
    levels = np.tile(np.array([a.labels[0] for a in aspects], dtype=np.int16), (len(row_key), 1))
    levels[row_of, judged["aspect"].to_numpy()] = judged["label"].to_numpy()
    n_topics = len(topic_ids)
    row_topic = row_key // len(docnos)
    lowest = np.array([a.labels[0] for a in aspects])
    above_lowest = (levels > lowest).astype(np.int64)
    rel_count = np.zeros((n_topics, len(aspects)), dtype=np.int64)
    np.add.at(rel_count, row_topic, above_lowest)
    return AspectQrels(
        name=", ".join(str(f) for f in judged["file"].unique()),
        topic_ids=[str(t) for t in topic_ids],
        row_start=row_starts(row_topic, n_topics),
        row_key=row_key.astype(np.int64),
        docnos=docnos,
        levels=levels,
        intent_ids=[[a.name for a in aspects] for _ in topic_ids],
        rel_count=rel_count,
        weights=np.tile([1.0 / len(aspects) if a.weight is None else a.weight for a in aspects], (n_topics, 1)),
        aspects=aspects,
    )
