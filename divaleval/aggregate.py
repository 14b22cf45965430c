"""Means over topics.

The mean is the sequential sum over topics, in topic order, divided by the
number of topics: the same operations as ndeval, so the two agree to the last
bit when they average the same topics.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .results import RUN

if TYPE_CHECKING:
    import pandas as pd


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
    for key, block in frame.groupby(**grouping, sort=False):
        values = topic_mean(block[measures].to_numpy(dtype=np.float64)) if len(block) else np.zeros(len(measures))
        rows.append([block["runid"].iloc[0], "amean", *values])
        keys.append(key)
    means = pd.DataFrame(rows, columns=["runid", "topic", *measures])
    if keyed:
        means.index = pd.Index(keys, name=RUN)
    return means.reset_index() if RUN in frame.columns else means
