"""Scoring: every requested kernel over one ranked run, topic-vectorised."""
from __future__ import annotations

import numpy as np

from .context import RunContext
from .measures import Measure
from .model.judged import JudgedDocuments
from .model.settings import Settings
from .ranking import RankedRun


def score_matrix(qrels: JudgedDocuments, run: RankedRun, measures: list[Measure], topics: np.ndarray,
                 settings: Settings | None = None) -> np.ndarray:
    """(topics, measures) raw scores, as the kernels return them.

    ``topics`` are qrels topic indices, ascending. Raw scores may hold NaN
    where a measure is undefined (ndeval's -nan); the native API replaces it.
    The measures must fit the qrels (:meth:`Measure.check`; the evaluator checks
    them before the first run). Binary measures are computed on the qrels at the
    settings' relevance threshold (:meth:`Qrels.at_relevance_level`), the others on the qrels as they are.
    """
    cutoffs = tuple(dict.fromkeys(m.cutoff for m in measures))
    ctx = RunContext(qrels, run, topics, settings, cutoffs)
    # Binary measures see the qrels through the relevance threshold (--rel-min): levels below it are 0.
    binary_ctx = ctx
    if ctx.settings.rel_min > 1 and any(m.definition.binary for m in measures):
        binary_ctx = RunContext(qrels.at_relevance_level(ctx.settings.rel_min), run, topics, ctx.settings, cutoffs)
    matrix = np.zeros((len(topics), len(measures)))
    for j, m in enumerate(measures):
        matrix[:, j] = m.compute(binary_ctx if m.definition.binary else ctx)
    return matrix
