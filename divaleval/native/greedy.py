"""The greedy ideal ranking of ndeval's novelty measures (divaleval/measures/novelty/gains.py), per topic.

:func:`greedy_ranking_gains` is the numpy twin, written out (batches of topics of similar size, a Python loop
over ranks with numpy across each batch), and takes the compiled kernel of the same name
(divaleval/native/greedy.c: one topic after the other, without the GIL) where it is built, the arrays are of
its types and the probe found it giving the twin's bits. Both compute each gain by the same operations in the
same order; the kernel declines factors it could not order as numpy does (negative, not finite).
"""
from __future__ import annotations

import numpy as np

from .compiled import kernel, probed

# Bound on elements of one padded batch of the twin (topics x documents x intents).
GREEDY_BATCH_ELEMENTS = 4_000_000


def greedy_ranking_gains(doc_start: np.ndarray, pair_start: np.ndarray, pair_intent: np.ndarray,
                         pair_factor: np.ndarray | None, intents: int, q: float, width: int) -> np.ndarray:
    """(topics, width) gains of a greedy ranking of each topic's documents, its first ``width`` ranks, 0-padded.

    Topic t's documents are ``doc_start[t]:doc_start[t + 1]``, in the order exact ties are broken in (the first
    is taken); document d is relevant to the intents ``pair_intent[pair_start[d]:pair_start[d + 1]]``
    (ascending, ``0 <= intent < intents``), with those ``pair_factor`` (None: 1, the binary gain). At each rank
    the available document with the largest gain is taken, the sum in its pairs' order of its intents' current
    gains (each times its factor), while that is > 0; then each of its intents' gains is multiplied by ``q``.
    """
    compiled = kernel("greedy_ranking_gains")
    if compiled is not None and all(_int64(a) for a in (doc_start, pair_start, pair_intent)) \
            and (pair_factor is None or (pair_factor.dtype == np.float64 and pair_factor.shape == pair_intent.shape)):
        out = np.empty((len(doc_start) - 1, width))
        factor = np.zeros(0) if pair_factor is None else np.ascontiguousarray(pair_factor)
        if compiled(doc_start, pair_start, pair_intent, factor, intents, float(q), width, out) is not None:
            return out
    return _numpy_greedy_ranking_gains(doc_start, pair_start, pair_intent, pair_factor, intents, q, width)


def _int64(array: np.ndarray) -> bool:
    return array.ndim == 1 and array.dtype == np.int64 and array.flags.c_contiguous


def _numpy_greedy_ranking_gains(doc_start: np.ndarray, pair_start: np.ndarray, pair_intent: np.ndarray,
                                pair_factor: np.ndarray | None, intents: int, q: float, width: int) -> np.ndarray:
    counts = np.diff(doc_start)
    ideal = np.zeros((len(counts), width))
    by_size = np.argsort(counts, kind="stable")
    budget = GREEDY_BATCH_ELEMENTS // max(intents, 1)
    begin = 0
    while begin < len(by_size):
        # A batch of topics of similar size, bounded in memory.
        end = begin + 1
        while end < len(by_size) and (end + 1 - begin) * counts[by_size[end]] <= budget:
            end += 1
        batch = by_size[begin:end]
        begin = end
        if counts[batch].max() == 0:
            continue
        relevance, coefficients = [], []
        for t in batch:
            first, last = doc_start[t], doc_start[t + 1]
            doc = np.repeat(np.arange(last - first), np.diff(pair_start[first: last + 1]))
            pairs = slice(pair_start[first], pair_start[last])
            relevant = np.zeros((last - first, intents), dtype=bool)
            relevant[doc, pair_intent[pairs]] = True
            relevance.append(relevant)
            if pair_factor is not None:
                factor = np.zeros((last - first, intents))
                factor[doc, pair_intent[pairs]] = pair_factor[pairs]
                coefficients.append(factor)
        gains = _greedy_batch(relevance, q, None if pair_factor is None else coefficients, width)
        ideal[batch, : gains.shape[1]] = gains
    return ideal


def _greedy_batch(relevance: list[np.ndarray], q: float, coefficients: list[np.ndarray] | None,
                  depth: int) -> np.ndarray:
    """The greedy ranking of a batch of topics: (topics, ranks) gains, the first ``depth`` ranks.

    relevance[b] is topic b's (documents, intents) binary matrix, documents in
    tie-breaking order, each relevant to some intent. A document's gain is
    the sum, in ascending intent order, of its intents' current gains; only its
    relevant intents are visited (adding 0 changes no bit), in passes k = 0, 1,
    ... over the documents with more than k relevant intents. With
    ``coefficients`` (same shapes, floats), each intent's current gain is
    multiplied by the document's coefficient for it.
    """
    size, n_intents = len(relevance), relevance[0].shape[1]
    width = max(len(r) for r in relevance)
    # topic_gain[b, i]: (1 - alpha)^(times intent i was covered); column n_intents stays 0.
    topic_gain = np.ones((size, n_intents + 1))
    topic_gain[:, n_intents] = 0.0
    flat_gain = topic_gain.reshape(-1)
    slots = np.full((size, width, n_intents), n_intents, dtype=np.int64)  # intents, padded
    factors = np.zeros((size, width, n_intents)) if coefficients is not None else None
    available = np.zeros((size, width), dtype=bool)
    for b, rel in enumerate(relevance):
        doc, intent = np.nonzero(rel)  # row-major: intents ascending within a document
        rank_in_doc = np.arange(len(doc)) - np.searchsorted(doc, doc)
        slots[b, doc, rank_in_doc] = intent
        if factors is not None:
            factors[b, doc, rank_in_doc] = coefficients[b][doc, intent]
        available[b, : len(rel)] = True
    slots += (np.arange(size) * (n_intents + 1))[:, None, None]  # into flat_gain
    chosen = np.zeros((size, min(width, depth)))
    lanes = np.arange(size)
    passes: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
    stale = True
    for rank in range(min(width, depth)):
        if stale:
            # Rebuild the passes over the documents still available.
            n_relevant = (slots != (np.arange(size) * (n_intents + 1) + n_intents)[:, None, None]).sum(axis=2)
            n_relevant[~available] = 0
            passes = []
            for k in range(int(n_relevant.max(initial=0))):
                where = np.flatnonzero(n_relevant.reshape(-1) > k)
                factor = None if factors is None else factors.reshape(-1, n_intents)[where, k]
                passes.append((where, slots.reshape(-1, n_intents)[where, k], factor))
            stale, picked_since = False, 0
        gains = np.full(size * width, -1.0)
        for k, (where, slot, factor) in enumerate(passes):
            term = flat_gain[slot] if factor is None else factor * flat_gain[slot]
            gains[where] = term if k == 0 else gains[where] + term
        gains = gains.reshape(size, width)
        gains[~available] = -1.0
        best = np.argmax(gains, axis=1)
        best_gain = gains[lanes, best]
        active = best_gain > 0.0
        if not active.any():
            break
        chosen[:, rank] = np.where(active, best_gain, 0.0)
        available[lanes[active], best[active]] = False
        covered = slots[lanes[active], best[active]].reshape(-1)
        flat_gain[covered] = flat_gain[covered] * q
        flat_gain[n_intents::n_intents + 1] = 0.0
        picked_since += 1
        stale = picked_since * 4 > width - rank
    return chosen


@probed("greedy_ranking_gains")
def _greedy_agrees(compiled) -> bool:
    # Small and without numpy.random (its import alone costs more than the kernel saves a call): topics of
    # irregular sizes (one empty, some past the depth cut), documents relevant to 1-6 intents, and factors of
    # a few values, so that gains tie often.
    counts = np.array([9, 0, 14, 5, 20])
    doc = np.arange(counts.sum())[:, None]
    relevant = ((doc * 5 + np.arange(6) * 3) % 7 < 3) | (doc % 6 == np.arange(6))
    doc_start = np.r_[0, np.cumsum(counts)]
    pair_start = np.r_[0, np.cumsum(relevant.sum(axis=1))]
    pair_intent = np.ascontiguousarray(np.nonzero(relevant)[1])
    factors = np.array([0.0, 0.25, 1.0 / 3.0, 0.7, 1.0, 2.5])[np.arange(len(pair_intent)) * 5 % 6]
    for pair_factor in (None, factors):
        out = np.empty((len(counts), 12))
        factor = np.zeros(0) if pair_factor is None else pair_factor
        if compiled(doc_start, pair_start, pair_intent, factor, 6, 0.5, 12, out) is None:
            return False
        expected = _numpy_greedy_ranking_gains(doc_start, pair_start, pair_intent, pair_factor, 6, 0.5, 12)
        if not np.array_equal(out.view(np.int64), expected.view(np.int64)):
            return False
    return True
