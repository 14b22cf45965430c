"""Scoring: every requested kernel over one ranked run, topic-vectorised (a block of topics at a time where the
measures allow it)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .context import RunContext
from .measures import Measure
from .model.judged import JudgedDocuments
from .model.settings import Settings
from .ranking import RankedRun

# A run's scoring holds some 150 bytes per ranked line (its hits, their (hit, intent) pairs and the grids
# made of them): 30 MB for a run of 200,000 lines, and two runs are scored at once. Scored a block of about
# this many lines at a time, it holds a fraction of that whatever the run's length; a block's fixed cost (a
# context and each measure's call: about 2 ms for the ndeval set) is paid a few times a run.
BLOCK_LINES = 100_000


def score_matrix(qrels: JudgedDocuments, run: RankedRun, measures: list[Measure], topics: np.ndarray,
                 settings: Settings | None = None) -> np.ndarray:
    """(topics, measures) raw scores, as the kernels return them.

    ``topics`` are qrels topic indices, ascending. Raw scores may hold NaN
    where a measure is undefined (ndeval's -nan); the native API replaces it.
    The measures must fit the qrels (:meth:`Measure.check`; the evaluator checks
    them before the first run). Binary measures are computed on the qrels at the
    settings' relevance threshold (:meth:`Qrels.at_relevance_level`), the others on the qrels as they are.

    Where every measure is separable (:class:`~divaleval.measures.core.definition.MeasureDef`: a topic's
    value, to the bit, whatever topics are scored with it), the topics are scored in blocks of about
    :data:`BLOCK_LINES` ranked lines (:func:`topic_blocks`): the same values, in memory bounded by the block.
    """
    if all(m.definition.separable for m in measures):
        bounds = topic_blocks(run.topic, topics, BLOCK_LINES)
        if len(bounds) > 2:
            return score_blocks(qrels, run, measures, topics, bounds, settings)
    return _score(qrels, run, measures, topics, settings)


def topic_blocks(line_topic: np.ndarray, topics: np.ndarray, lines: int) -> np.ndarray:
    """Where blocks of ``topics`` start (and the last ends): block k holds the consecutive topics whose first
    line falls among lines k * ``lines`` to (k + 1) * ``lines`` - 1 of theirs, counted in order. So a block holds
    fewer than ``lines`` lines plus its last topic's; a topic's lines are never split, and a block may be empty
    of topics (then it is not made).

    ``line_topic`` is the run's topic index of each ranked line, ascending (a ranked run is grouped by topic);
    only lines of ``topics`` count.
    """
    counts = np.searchsorted(line_topic, topics, side="right") - np.searchsorted(line_topic, topics)
    before = np.cumsum(counts) - counts  # lines of the topics before each one
    block = before // max(lines, 1)
    return np.r_[0, np.flatnonzero(block[1:] != block[:-1]) + 1, len(topics)]


def score_blocks(qrels: JudgedDocuments, run: RankedRun, measures: list[Measure], topics: np.ndarray,
                 bounds: np.ndarray, settings: Settings | None = None) -> np.ndarray:
    """:func:`score_matrix`'s rows, topics ``topics[bounds[b]:bounds[b + 1]]`` scored together for each b:
    each block sees its topics' lines only (slices of the run's arrays, not copies)."""
    matrix = np.empty((len(topics), len(measures)))
    for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        block = topics[start:end]
        first, last = np.searchsorted(run.topic, (block[0], block[-1] + 1)).tolist()
        within = (run.topics >= block[0]) & (run.topics <= block[-1])
        part = replace(run, topic=run.topic[first:last], position=run.position[first:last],
                       row=run.row[first:last], topics=run.topics[within])
        matrix[start:end] = _score(qrels, part, measures, block, settings)
    return matrix


def _score(qrels: JudgedDocuments, run: RankedRun, measures: list[Measure], topics: np.ndarray,
           settings: Settings | None) -> np.ndarray:
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
