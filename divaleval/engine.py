"""Scoring: every requested kernel over one ranked run, topic-vectorised."""
from __future__ import annotations

import numpy as np

from .context import RunContext
from .measures import Measure
from .model.qrels import Qrels
from .model.settings import Settings
from .ranking import RankedRun


def score_matrix(qrels: Qrels, run: RankedRun, measures: list[Measure], topics: np.ndarray,
                 settings: Settings | None = None) -> np.ndarray:
    """(topics, measures) raw scores, as the kernels return them.

    ``topics`` are qrels topic indices, ascending. Raw scores may hold NaN
    where a measure is undefined (ndeval's -nan); the native API replaces it.
    The measures must fit the qrels (:meth:`Measure.check`; the evaluator checks
    them before the first run).
    """
    ctx = RunContext(qrels, run, topics, settings)
    matrix = np.zeros((len(topics), len(measures)))
    for j, m in enumerate(measures):
        matrix[:, j] = m.compute(ctx)
    return matrix
