"""Means over topics.

The mean is the sequential sum over topics, in topic order, divided by the
number of topics: the same operations as ndeval, so the two agree to the last
bit when they average the same topics.

A measure declares how its values over topics are summarised (``aggregation``
of its definition, :mod:`divaleval.measures.core.definition`); :func:`measure_means`
applies each one: the arithmetic mean; the geometric mean of trec_eval's gm_map,
exp of the mean log, each value floored at :data:`GEOMETRIC_FLOOR` first (so
that one topic scoring 0 does not make the whole mean 0); or the sum of a count
(documents ranked, relevant, relevant ranked), whose summary trec_eval and
ir_measures both print as the total over topics.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .measures.core.definition import GEOMETRIC_MEAN, MEAN, SUM
from .results import RUN

if TYPE_CHECKING:
    import pandas as pd

    from .measures import Measure

GEOMETRIC_FLOOR = 0.00001  # trec_eval's floor for a value before its log (gm_map, gm_bpref)


def topic_mean(matrix: np.ndarray, n_topics: int | None = None, *, last_nan: bool = False) -> np.ndarray:
    """Column means of a (topics, measures) matrix.

    n_topics: the divisor, if not the number of rows (ndeval's -c divides by
    every qrels topic while printing only the run's).
    last_nan: a column meeting NaNs sums to the last NaN in it, its sign kept
    (as ndeval's C sum leaves it and prints it), rather than to numpy's.
    """
    count = matrix.shape[0] if n_topics is None else n_topics
    if matrix.shape[0] == 0:
        totals = np.zeros(matrix.shape[1])
    else:
        totals = np.cumsum(matrix, axis=0)[-1]
    if last_nan:
        for j in np.flatnonzero(np.isnan(matrix).any(axis=0)):
            totals[j] = matrix[np.flatnonzero(np.isnan(matrix[:, j]))[-1], j]
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals / count


def geometric_topic_mean(matrix: np.ndarray) -> np.ndarray:
    """Column geometric means of a (topics, measures) matrix: exp of the mean log of max(value, floor),
    the logs added in topic order (0 for no topic)."""
    if matrix.shape[0] == 0:
        return np.zeros(matrix.shape[1])
    return np.exp(topic_mean(np.log(np.maximum(matrix, GEOMETRIC_FLOOR))))


def topic_sum(matrix: np.ndarray) -> np.ndarray:
    """Column sums of a (topics, measures) matrix, added in topic order (0 for no topic)."""
    return topic_mean(matrix, n_topics=1) if matrix.shape[0] else np.zeros(matrix.shape[1])


AGGREGATIONS = {MEAN: topic_mean, GEOMETRIC_MEAN: geometric_topic_mean, SUM: topic_sum}


def measure_means(matrix: np.ndarray, measures: list[Measure]) -> np.ndarray:
    """The summary of each column of a (topics, measures) matrix, as its measure declares (the
    arithmetic mean but for a measure whose ``aggregation`` says otherwise)."""
    means = topic_mean(matrix)
    for how in {m.definition.aggregation for m in measures} - {MEAN}:
        columns = [j for j, m in enumerate(measures) if m.definition.aggregation == how]
        means[columns] = AGGREGATIONS[how](matrix[:, columns])
    return means


def measures_of(names: list[str]) -> list[Measure] | None:
    """The measures of a frame's columns, or None where one is not a measure's name (then every column
    takes the arithmetic mean)."""
    from .errors import UsageError
    from .measures import parse_measure

    try:
        return [parse_measure(name) for name in names]
    except UsageError:
        return None


def summaries(matrix: np.ndarray, names: list[str]) -> np.ndarray:
    """Each column's summary over the rows (topics) as divaleval prints it for the measure the column names
    (:func:`measure_means`: GMAP's geometric mean, a count's sum); the arithmetic mean of every column where
    some name is not a measure's."""
    parsed = measures_of(names)
    return topic_mean(matrix) if parsed is None else measure_means(matrix, parsed)


def mean_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The mean of every measure per run of a per-topic frame from :func:`divaleval.evaluate`.

    Runs are told apart by their sources, the frame's ``run`` index (or a
    ``run`` column, after ``reset_index()`` or a round trip through CSV), else by
    ``runid``; they keep their order of appearance, and the means the key, as
    the index or as a column like the frame's.
    """
    import pandas as pd

    measures = [c for c in frame.columns if c not in (RUN, "runid", "topic")]
    keyed = frame.index.name == RUN or RUN in frame.columns
    rows, keys = [], []
    grouping = {"by": RUN} if RUN in frame.columns else {"level": RUN} if keyed else {"by": "runid"}
    parsed = measures_of(measures)
    for key, block in frame.groupby(**grouping, sort=False):
        matrix = block[measures].to_numpy(dtype=np.float64)
        if not len(block):
            values = np.zeros(len(measures))
        else:
            values = topic_mean(matrix) if parsed is None else measure_means(matrix, parsed)
        rows.append([block["runid"].iloc[0], "amean", *values])
        keys.append(key)
    means = pd.DataFrame(rows, columns=["runid", "topic", *measures])
    if keyed:
        means.index = pd.Index(keys, name=RUN)
    return means.reset_index() if RUN in frame.columns else means
