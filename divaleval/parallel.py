"""Scoring runs in worker processes.

Workers are forked after the qrels are loaded and their ideal rankings
computed, so they share them instead of rebuilding them (on platforms without
fork, the evaluator is sent to each worker once). Each worker reads and scores
whole runs; the parent receives the per-topic scores in the order of the runs
and finishes them (warnings, means), so the output is the same byte for byte
whatever the number of workers.
"""
from __future__ import annotations

import multiprocessing
from typing import Iterable, Iterator

_evaluator = None


def _init(evaluator) -> None:
    global _evaluator
    _evaluator = evaluator


def _score(run):
    return _evaluator.score_raw(run)


def score_in_workers(evaluator, runs: Iterable, jobs: int) -> Iterator:
    """RawScores of each run, in order, computed by ``jobs`` worker processes."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(jobs, initializer=_init, initargs=(evaluator,)) as pool:
        yield from pool.imap(_score, runs, chunksize=1)
