"""The score cube: per-topic scores of many runs under many measures (runs x topics x measures).

Meta-evaluation and comparisons start here, never from files: a cube is built
from scored runs (:class:`divaleval.results.RunScores`), from a frame of
:func:`divaleval.evaluate`, or from score files read back
(:class:`divaleval.io.scores.ScoreTable`). Topics are sorted (numeric ids by
value), so that nothing computed from a cube depends on the line order of a
file. Every run must have a score for every topic: a run without some topics
is an error, unless ``missing`` says to score them 0 (``"zero"``, as ``-c``
does) or to keep only the topics every run has (``"common"``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..aggregate import measures_of, summaries, topic_mean
from ..errors import InputError, UsageError, describe_ids
from ..ids import natural_key
from ..measures.core.definition import MEAN
from ..results import RUN, RunScores

if TYPE_CHECKING:
    import pandas as pd

    from ..io.scores import ScoreTable

MISSING = ("error", "zero", "common")


@dataclass(frozen=True)
class ScoreCube:
    """Scores of ``runs`` (keys: file or label) over ``topics`` under ``measures``: ``values[run, topic, measure]``."""

    runs: tuple[str, ...]
    runids: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    values: np.ndarray

    def __post_init__(self) -> None:
        shape = (len(self.runs), len(self.topics), len(self.measures))
        if self.values.shape != shape:
            raise ValueError(f"values of shape {self.values.shape}, expected {shape}")

    def matrix(self, measure: str | int) -> np.ndarray:
        """The topics x runs matrix of one measure."""
        j = measure if isinstance(measure, int) else self.measures.index(measure)
        return self.values[:, :, j].T

    def stacked(self) -> np.ndarray:
        """Every measure's topics x runs matrix, stacked: (topics, runs, measures)."""
        return np.ascontiguousarray(self.values.transpose(1, 0, 2))

    def means(self) -> np.ndarray:
        """Each run's arithmetic mean of each measure's per-topic values (runs, measures), summed as divaleval's
        means are: what the paired tests, their intervals and effect sizes are about."""
        return np.array([topic_mean(block) for block in self.values]).reshape(len(self.runs), len(self.measures))

    def summaries(self) -> np.ndarray:
        """Each run's summary of each measure over the topics (runs, measures), as divaleval prints it: the
        arithmetic mean but for a measure that declares another (GMAP's geometric mean, a count's sum)."""
        return np.array([summaries(block, list(self.measures)) for block in self.values]
                        ).reshape(len(self.runs), len(self.measures))

    def summarised_otherwise(self) -> list[str]:
        """The measures whose summary is not the arithmetic mean of their per-topic values."""
        parsed = measures_of(list(self.measures)) or []
        return [name for name, measure in zip(self.measures, parsed) if measure.definition.aggregation != MEAN]

    def select(self, measures: Iterable[str]) -> "ScoreCube":
        """The cube of some of the measures, in the order given."""
        measures = list(measures)
        absent = [m for m in measures if m not in self.measures]
        if absent:
            raise UsageError(f"no scores of {', '.join(absent)} (there are: {', '.join(self.measures)})")
        columns = [self.measures.index(m) for m in measures]
        return ScoreCube(self.runs, self.runids, self.topics, tuple(measures), self.values[:, :, columns])

    def find_run(self, name: str) -> int | None:
        """The run a name stands for: its key (file or label), else its file's base name, else its runtag,
        whichever names exactly one run; None if none does.

        Raises :class:`UsageError` when the name is ambiguous.
        """
        if name in self.runs:
            return self.runs.index(name)
        for describe, keys in (("file name", [os.path.basename(run) for run in self.runs]),
                               ("runtag", list(self.runids))):
            found = [r for r, key in enumerate(keys) if key == name]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise UsageError(f"{name!r} is the {describe} of {len(found)} runs: "
                                 f"name one of them by its file ({', '.join(self.runs[r] for r in found)})")
        return None


def _assemble(runs: list[tuple[str, str, list[str], np.ndarray]], measures: list[str], missing: str,
              origins: list[str | None] | None = None) -> ScoreCube:
    """A cube from (key, runid, topics, (topics x measures) matrix) per run; ``origins``: each run's file."""
    if missing not in MISSING:
        raise UsageError(f"missing must be one of {', '.join(MISSING)}, not {missing!r}")
    if not runs:
        raise UsageError("no run to compare")
    origins = origins or [None] * len(runs)
    topic_sets = [set(topics) for _, _, topics, _ in runs]
    every = set().union(*topic_sets)
    if missing == "common":
        every = set.intersection(*topic_sets)
        if not every:
            raise _problem(origins[0] if len(set(origins)) == 1 else None, "no topic has scores for every run")
    elif missing == "error":
        for (key, _, topics, _), present, where in zip(runs, topic_sets, origins):
            absent = every - present
            if absent:
                ordered = sorted(absent, key=natural_key)
                raise _problem(where, f"run {key} has no scores for topics {describe_ids(ordered)}, which other "
                                      "runs have: score every qrels topic (-c), or choose --missing zero "
                                      "(they score 0) or --missing common (only topics every run has)")
    topics = sorted(every, key=natural_key)
    position = {topic: i for i, topic in enumerate(topics)}
    values = np.zeros((len(runs), len(topics), len(measures)))
    for r, (_, _, run_topics, matrix) in enumerate(runs):
        for row, topic in enumerate(run_topics):
            if topic in position:
                values[r, position[topic]] = matrix[row]
    return ScoreCube(tuple(key for key, *_ in runs), tuple(runid for _, runid, *_ in runs), tuple(topics),
                     tuple(measures), values)


def _problem(where: str | None, reason: str) -> Exception:
    return InputError(where, None, reason) if where else UsageError(reason)


def cube_from_scores(results: Iterable[RunScores], missing: str = "error") -> ScoreCube:
    """A cube from scored runs (their ``source`` is the run's key)."""
    results = list(results)
    if not results:
        raise UsageError("no run to compare")
    measures = [m.name for m in results[0].measures]
    return _assemble([(s.source, s.runid, list(s.topic_ids), s.matrix) for s in results], measures, missing)


def cube_from_frame(frame: pd.DataFrame, missing: str = "error") -> ScoreCube:
    """A cube from a frame of :func:`divaleval.evaluate` (runs keyed by its ``run`` index or column, else runid)."""
    frame = frame.reset_index() if frame.index.name == RUN else frame
    key = RUN if RUN in frame.columns else "runid"
    measures = [c for c in frame.columns if c not in (RUN, "runid", "topic")]
    runs = []
    for name, block in frame.groupby(key, sort=False):
        topics = [str(t) for t in block["topic"]]
        if len(set(topics)) != len(topics):
            raise UsageError(f"run {name} has two rows for one topic")
        runid = str(block["runid"].iloc[0]) if "runid" in block else str(name)
        runs.append((str(name), runid, topics, block[measures].to_numpy(dtype=np.float64)))
    return _assemble(runs, measures, missing)


def cube_from_tables(tables: list[ScoreTable], measures: list[str] | None = None,
                     missing: str = "error") -> ScoreCube:
    """A cube from score files read back: their runs one after another, under ``measures`` (default: all,
    which must then be the same in every file)."""
    if not tables:
        raise UsageError("no score file")
    if measures is None:
        measures = list(tables[0].measures)
        for table in tables[1:]:
            if set(table.measures) != set(measures):
                raise InputError(table.name, None, f"its measures differ from those of {tables[0].name}: "
                                 + ", ".join(sorted(set(table.measures) ^ set(measures))))
    runs, origins = [], []
    taken: set[str] = set()
    for table in tables:
        absent = [m for m in measures if m not in table.measures]
        if absent:
            raise InputError(table.name, None, f"has no scores of {', '.join(absent)}")
        columns = [table.measures.index(m) for m in measures]
        rows = np.asarray(table.run)
        for r, (key, runid) in enumerate(zip(table.runs, table.runids)):
            picked = np.flatnonzero(rows == r)
            topics = [table.topic[i] for i in picked]
            runs.append((_unique(key, taken), runid, topics, table.values[picked][:, columns]))
            origins.append(table.name)
    return _assemble(runs, measures, missing, origins)


def _unique(key: str, taken: set[str]) -> str:
    """``key``, or ``key#2``, ``key#3``, ... if taken (one runtag in two score files)."""
    candidate, count = key, 1
    while candidate in taken:
        count += 1
        candidate = f"{key}#{count}"
    taken.add(candidate)
    return candidate
