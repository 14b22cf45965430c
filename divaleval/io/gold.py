"""Gold preferences between two runs' rankings of a topic: ``topic runA runB winner``.

One line per judged pair (whitespace-separated; blank lines are skipped); the
winner is one of the two runs, named as on its line. Runs are named by their
file, their file's base name or their runtag (see :mod:`divaleval.meta.gold`).
A pair judged twice for a topic (in either order) is an error naming both lines.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .source import InputFile, read_input
from .table import split_columns

GOLD_LAYOUT = "topic runA runB winner"


@dataclass
class GoldPreferences:
    """The validated lines of a gold preference file."""

    name: str
    topic: np.ndarray    # str
    run_a: np.ndarray    # str
    run_b: np.ndarray    # str
    winner: np.ndarray   # str: run_a or run_b
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)

    def error(self, row: int, reason: str) -> InputError:
        return InputError(self.name, int(self.line[row]), reason)


def read_gold(source: str | InputFile) -> GoldPreferences:
    if isinstance(source, str):
        source = read_input(source)
    columns = split_columns(source, 4, 4, hint=f" (expected: {GOLD_LAYOUT})")
    if not len(columns):
        raise InputError(source.name, None, "gold preference file holds no lines")
    topic, run_a, run_b, winner = (np.asarray(f, dtype=object) for f in columns.fields)
    gold = GoldPreferences(source.name, topic, run_a, run_b, winner, columns.lines)
    seen: dict[tuple[str, str, str], int] = {}
    for row in range(len(gold)):
        a, b, w = run_a[row], run_b[row], winner[row]
        if a == b:
            raise gold.error(row, f"compares run {a!r} with itself")
        if w not in (a, b):
            raise gold.error(row, f"the winner {w!r} is neither {a!r} nor {b!r}")
        key = (topic[row], *sorted((a, b)))
        first = seen.setdefault(key, int(gold.line[row]))
        if first != gold.line[row]:
            raise gold.error(row, f"the pair {a} {b} of topic {topic[row]} repeats line {first}")
    return gold
