"""Multi-aspect judgments: which file holds each aspect, and its labels read as a table.

An aspect is given as ``NAME=FILE[,labels=0:1:2][,embed=0:1.5:3][,gains=0:5:10][,bins=25:50:75]
[,weight=0.6][,column=2]``: an ordinary qrels file per aspect (``topic 0 docno label``), or one
column of a wide file ``topic 0 docno label1 label2 ...``. This module parses the
specification and reads the labels; :mod:`divaleval.model.aspects` builds the qrels.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UsageError
from .qrels import ADHOC_INTENT, QrelsTable, read_qrels
from .source import read_input
from .table import ID, INT, PRESENT, Factor, Lines, read_columns

ASPECT_OPTIONS = ("labels", "embed", "gains", "bins", "weight", "column")
WIDE_LAYOUT = "topic 0 docno label1 label2 ..."


@dataclass(frozen=True)
class AspectSpec:
    """One ``--aspect`` value, parsed but not yet read.

    labels: the ordered labels, worst first; () takes those found in the file.
    bins: thresholds that map a fine scale into grades 0, 1, ...: a label
        becomes the number of thresholds <= it.
    column: the label column of a wide file (1-based); 0 for an ordinary qrels file.
    """

    name: str
    path: str
    labels: tuple[int, ...] = ()
    embedding: tuple[float, ...] = ()
    gains: tuple[float, ...] = ()
    bins: tuple[float, ...] = ()
    weight: float | None = None
    column: int = 0

    @classmethod
    def parse(cls, text: str) -> "AspectSpec":
        name, sep, rest = text.partition("=")
        if not sep or not name.strip() or not rest.strip():
            raise UsageError(f"aspect {text!r}: expected NAME=FILE[,labels=..][,embed=..][,gains=..][,bins=..]")
        name = name.strip()
        path, *options = rest.split(",")
        values: dict[str, tuple[float, ...]] = {}
        for option in options:
            key, sep, value = option.partition("=")
            if key not in ASPECT_OPTIONS or not sep:
                raise UsageError(f"aspect {name}: unknown option {option!r} ({', '.join(ASPECT_OPTIONS)})")
            try:
                values[key] = tuple(float(v) for v in value.split(":"))
            except ValueError:
                raise UsageError(f"aspect {name}: {key}={value!r} is not a list of numbers n1:n2:...") from None
        weight = values["weight"][0] if "weight" in values else None
        if weight is not None and not weight >= 0:
            raise UsageError(f"aspect {name}: weight must be >= 0")
        column = int(values["column"][0]) if "column" in values else 0
        if "column" in values and column < 1:
            raise UsageError(f"aspect {name}: column must be >= 1")
        return cls(name, path, tuple(int(v) for v in values.get("labels", ())), values.get("embed", ()),
                   values.get("gains", ()), values.get("bins", ()), weight, column)


def parse_aspect_specs(texts: list[str]) -> list[AspectSpec]:
    """Every ``--aspect`` value parsed, and their names checked distinct, before any file is read."""
    specs = [AspectSpec.parse(text) for text in texts]
    names = [spec.name for spec in specs]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"aspect names must be distinct: {', '.join(repeated)} given twice")
    return specs


@dataclass
class AspectTable(Lines):
    """The labels of one aspect, one entry per judged line, after binning."""

    spec: AspectSpec
    name: str            # the file, for messages
    topic: Factor
    docno: Factor
    label: np.ndarray    # int64
    line: np.ndarray     # int64, 1-based


def read_aspect(spec: AspectSpec) -> AspectTable:
    """Read the labels of one aspect from its file."""
    table = read_wide(spec.path, spec.column) if spec.column else read_qrels(spec.path)
    label = table.level.astype(np.int64)
    if spec.bins:
        label = np.searchsorted(np.asarray(spec.bins), label, side="right")
    return AspectTable(spec, table.name, table.topic, table.docno, label, table.line)


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
    columns = read_columns(source, kinds, names=names, layout=WIDE_LAYOUT)
    topic, _, docno = columns.fields[:3]
    return QrelsTable(source.name, topic, Factor.single(ADHOC_INTENT, len(columns)), docno,
                      columns.fields[2 + column], columns.lines)
