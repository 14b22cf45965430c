"""Intent probabilities (NTCIREVAL's Iprob): ``topic intent probability [inf|nav]``.

Fields are separated by whitespace or ``;`` (NTCIR ships both). The optional
fourth column, the intent type, is kept for measures that use it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .source import InputFile, read_input
from .table import parse_float_column, split_columns

IPROB_LAYOUT = "topic intent probability [inf|nav]"
INTENT_TYPES = ("inf", "nav")


@dataclass
class IntentProbabilities:
    """The validated lines of an intent-probability file."""

    name: str
    topic: np.ndarray        # str
    intent: np.ndarray       # str
    probability: np.ndarray  # float64 in [0, 1]
    kind: np.ndarray         # "inf", "nav" or "" (not given)
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)


def read_iprob(source: str | InputFile) -> IntentProbabilities:
    if isinstance(source, str):
        source = read_input(source)
    # ';' separates fields in some NTCIR files; no id contains it.
    normalised = InputFile(source.name, source.data.replace(b";", b" "))
    columns = split_columns(normalised, 3, 4, hint=f" (expected: {IPROB_LAYOUT})")
    if not len(columns):
        raise InputError(source.name, None, "intent-probability file holds no lines")
    topic, intent, _prob, kind = columns.fields
    probability = parse_float_column(columns, 2, "probability")
    outside = ~((probability >= 0.0) & (probability <= 1.0))
    if outside.any():
        row = int(np.argmax(outside))
        raise columns.error(row, f"probability {_prob[row]!r} is outside [0, 1]")
    kind = np.array([k.lower() for k in kind], dtype=object)
    bad_kind = ~np.isin(kind, ("",) + INTENT_TYPES)
    if bad_kind.any():
        row = int(np.argmax(bad_kind))
        raise columns.error(row, f"intent type {columns.fields[3][row]!r} is not 'inf' or 'nav'")
    keys = np.char.add(np.char.add(topic.astype(str), "\x00"), intent.astype(str))
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup_key = keys[first[np.argmax(counts > 1)]]
        rows = np.flatnonzero(keys == dup_key)
        raise columns.error(
            int(rows[1]),
            f"intent {intent[rows[1]]} of topic {topic[rows[1]]} repeats line {columns.lines[rows[0]]}",
        )
    return IntentProbabilities(source.name, topic, intent, probability, kind, columns.lines)
