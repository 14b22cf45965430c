"""Streaming runs through the engine: in this process, in worker processes (``-j``), or a back end's.

The qrels are read once; their ideal rankings are computed once and reused for
every run. Runs are read and scored one at a time; whatever the number of
workers, results and warnings come out in the order of the runs, so the output
built from them does not change by a byte.

Workers are forked after the ideal rankings are computed, so they share them
instead of rebuilding them (on platforms without fork, the evaluator is sent to
each worker once). Each worker reads and scores whole runs; the parent receives
the raw per-topic scores and finishes them (warnings, means). Another back end
(a Dask cluster: :mod:`divaleval.cluster`) plugs in the same way: it gets the
evaluator, its ideal rankings computed, and returns raw scores in run order.
"""
from __future__ import annotations

import itertools
import signal
import threading
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable, Iterator, Union

import numpy as np

from .aggregate import measure_means
from .engine import score_matrix
from .errors import InputError, UsageError, WarningSink, describe_ids, describe_unknown_topics, emit_warning
from .io import RunTable, expand_run_paths, read_run
from .io.source import peek_input
from .io.source import STDIN_NAME, STDIN_ONCE, display_name
from .measures import Measure
from .memory import advise_huge_pages_for_this_thread, release_unused_memory
from .model import stored
from .model.judged import JudgedDocuments
from .model.qrels import Qrels
from .model.settings import Settings
from .ranking import ORDERS, RankedRun, match_run, rank_matched, rank_run
from .results import RawScores, RunScores
from .threads import Threads

# Runs are read, matched, ranked and scored whole, each by one of two threads (the compiled kernels and Arrow
# let go of the GIL), while this thread emits the results in run order: two busy threads for two cores, where
# the main thread scoring beside two readers made three share them. Each thread keeps its own heap (glibc's
# arena) at its high-water mark: two threads, two such heaps, whatever the number of runs.
READERS = 2
RunLike = Union[str, RunTable]          # a path (a directory: every file in it; "-": standard input) or a table
RunInput = tuple[str, RunLike]          # (the run's source, unique within one evaluation; a path or a table)
# Scores runs elsewhere (worker processes, a cluster): given the evaluator (its ideal rankings computed) and the
# runs, the RawScores of each run, or the InputError of a bad one, in the order of the runs.
Backend = Callable[["Evaluator", Iterable[RunInput]], Iterator[Union[RawScores, InputError]]]


def run_inputs(runs: RunLike | Iterable[RunLike], check: Callable[[str], None] | None = None,
               on_bad: Callable[[InputError], None] | None = None) -> Iterator[RunInput]:
    """The runs to score, in order, each with its source; consumed as they are scored.

    Directories are expanded to their files. A list or tuple is checked whole
    first (directories exist, ``-`` at most once, and ``check`` run on every
    file), so that a bad argument or a file that is no run stops everything
    before a run is scored; ``on_bad`` instead takes each bad file's error and
    the file is left out. Standard input is read when its turn comes. A source
    named twice (one file given twice) gets ``#2``, ``#3``, ... so that every
    result keeps a key of its own.
    """
    if isinstance(runs, (str, RunTable)):
        runs = [runs]
    if isinstance(runs, (list, tuple)):
        runs = [run for item in runs for run in _expand(item)]
        expand_run_paths([run for run in runs if isinstance(run, str) and run == STDIN_NAME])
        if check is not None:
            runs = [run for run in runs if _checked(run, check, on_bad)]
    return _labelled(runs)


def _checked(run: RunLike, check: Callable[[str], None], on_bad: Callable[[InputError], None] | None) -> bool:
    if not isinstance(run, str):
        return True
    try:
        check(run)
    except InputError as exc:
        if on_bad is None:
            raise
        on_bad(exc)
        return False
    return True


def _expand(item: RunLike) -> list[RunLike]:
    return [item] if isinstance(item, RunTable) else expand_run_paths([item])


def _labelled(runs: Iterable[RunLike]) -> Iterator[RunInput]:
    seen: dict[str, int] = {}
    for item in runs:
        for run in _expand(item):
            stdin = isinstance(run, str) and run == STDIN_NAME
            if stdin:
                if STDIN_NAME in seen:
                    raise InputError(display_name(STDIN_NAME), None, STDIN_ONCE)
                seen[STDIN_NAME] = 0
            label = run.name if isinstance(run, RunTable) else display_name(run)
            seen[label] = seen.get(label, 0) + 1
            # Standard input is read here, at its turn; the table is not kept in this generator's frame.
            yield (label if seen[label] == 1 else f"{label}#{seen[label]}"), (read_run(run) if stdin else run)


@dataclass
class PreparedRun:
    """A run read, matched and ranked: its table (the docnos, the bulk of a run) already let go, so that
    scoring it holds little more than its ranked arrays."""

    source: str
    ranked: RankedRun
    extra_fields: bool  # some line had fields past the sixth


class Evaluator:
    """Scores runs against one set of qrels with fixed measures and settings.

    Every usage check happens here, before any run is read: the order and
    depth, and whether each measure fits the qrels (and topics left without a
    relevant document by the settings' ``rel_min`` are named in a warning).
    ``order`` and ``depth`` default to those of the settings' conventions.
    """

    def __init__(
        self,
        qrels: JudgedDocuments,
        measures: list[Measure],
        *,
        order: str | None = None,
        depth: int | None = None,
        complete: bool = False,
        dedupe: bool = False,
        skip_bad: bool = False,
        settings: Settings | None = None,
        warn: WarningSink = emit_warning,
        judged_only: bool = False,
    ) -> None:
        self.settings = settings or Settings()
        if self.settings.rel_min > 1 and isinstance(qrels, Qrels) and any(m.definition.binary for m in measures):
            _note_below_threshold(qrels, self.settings.rel_min, warn)
        conventions = self.settings.conventions
        order = order or conventions.order
        depth = depth or conventions.depth
        if order not in ORDERS:
            raise UsageError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        if depth is not None and depth < 1:
            raise UsageError("depth must be >= 1")
        for m in measures:
            m.check(qrels)
        self.qrels = qrels
        self.measures = measures
        self.order = order
        self.depth = depth
        self.complete = complete
        self.skip_bad = skip_bad
        self.judged_only = judged_only  # condensed lists: unjudged documents removed before scoring
        self.duplicates = "keep" if conventions.duplicates == "keep" else "first" if dedupe else "error"
        self.warn = warn
        self._warned_norel: set[int] = set()
        self._run_of_runtag: dict[str, str] = {}

    def __getstate__(self) -> dict:
        # Sent to a worker process: workers keep warnings for the parent to emit, so the sink stays here.
        return {**self.__dict__, "warn": None}

    def score(self, run: RunLike) -> RunScores:
        """Score one run (a table, or a path) and emit its warnings."""
        inputs = list(run_inputs(run))
        if len(inputs) != 1:
            raise UsageError(f"score() takes one run, not {len(inputs)}: use score_all()")
        return self.finish(self.score_raw(inputs[0]))

    def score_all(self, runs: RunLike | Iterable[RunLike], jobs: int = 1,
                  backend: Backend | None = None) -> Iterator[RunScores]:
        """Score runs in order; with ``jobs`` > 1, in that many worker processes; with a ``backend``, there.

        In one process, runs are read, matched to the judgments, ranked and
        scored by ``READERS`` threads, at most ``READERS + 1`` runs
        handed to them at a time, while this thread emits the results in run
        order. A bad run stops everything with its :class:`InputError`, or,
        with ``skip_bad``, is named in a warning and left out.
        """
        inputs = run_inputs(runs, self.check_start, self._skip if self.skip_bad else None)
        if backend is None and jobs > 1:
            backend = partial(_score_in_workers, jobs=jobs)
        if backend is not None:
            self.warm_up()
            for raw in backend(self, inputs):
                if isinstance(raw, InputError):
                    self._skip(raw)
                else:
                    yield self.finish(raw)
            return
        warmed = threading.Event()  # set once the ideal rankings are computed: then the readers score
        with Threads(READERS, "divaleval-reader", advise_huge_pages_for_this_thread) as reader:
            try:
                pending: deque = deque()
                for item in inputs:
                    pending.append(reader.submit(self._score_ahead, item, warmed))
                    item = None  # a run read from standard input is let go once scored
                    if len(pending) > READERS:
                        if not warmed.is_set():  # the ideal rankings while the first runs are read, not after
                            self.warm_up()
                            warmed.set()
                        scored = self._scored(pending.popleft())
                        if scored is not None:
                            yield scored
                if not warmed.is_set() and pending:  # (no more runs than readers)
                    self.warm_up()
                    warmed.set()
                while pending:
                    scored = self._scored(pending.popleft())
                    if scored is not None:
                        yield scored
            finally:
                warmed.set()  # (readers still waiting when a bad run or a failure stops everything go on, and end)

    def _score_ahead(self, item: RunInput, warmed: threading.Event) -> RawScores:
        """In a reader thread: the run read, matched and ranked, then scored once the ideal rankings are
        computed (both cores compute them meanwhile, and no reader computes them twice)."""
        prepared = self.prepare(item)
        warmed.wait()
        return self.score_prepared(prepared)

    def check_start(self, path: str) -> None:
        """Read, match and rank the first lines of a run file as the whole will be (a cheap look, so
        that a file that is no run, or repeats a docno at once, is reported before anything is printed)."""
        head = peek_input(path)
        if head is not None:
            ranked = rank_matched(match_run(read_run(head), self.qrels, judgments=False), self.qrels,
                                  order=self.order, duplicates=self.duplicates)
            if head.whole and not self.complete and not len(ranked.topics):
                raise self._no_common_topic(ranked)

    def _no_common_topic(self, ranked: RankedRun) -> InputError:
        return InputError(ranked.name, None, "no topic of the run is in the qrels "
                          f"(run topics: {describe_ids(ranked.unknown_topics, 5)}; qrels topics: "
                          f"{describe_ids(list(self.qrels.topic_ids), 5)}); with -c every qrels topic scores 0")

    def _scored(self, future) -> RunScores | None:
        """The finished scores of a run scored in a reader, or None for a bad run skipped."""
        try:
            return self.finish(future.result())
        except InputError as exc:
            self._skip(exc)
            return None

    def _skip(self, error: InputError) -> None:
        """A bad run: stop with its error, or (``skip_bad``) name it in a warning and go on."""
        if not self.skip_bad:
            raise error
        self.warn(f"{error}; run skipped")

    def warm_up(self) -> None:
        """Compute every qrels-only quantity the measures need (ideal rankings) now.

        Worker processes then inherit them instead of each computing them. Two
        threads share the work (numpy lets go of the GIL): the novelty measures'
        (their greedy ideal rankings take longest) and the others' with the
        table of judged pairs; a quantity both need is computed once, the other
        thread waiting for it (``@memoised``). The scratch memory is given back
        after, so that it is not held while runs are scored.
        """
        novelty, others = [], []
        for m in self.measures:
            (novelty if ".novelty." in m.definition.kernel.__module__ else others).append(m)
        with Threads(1, "divaleval-warm-up", advise_huge_pages_for_this_thread) as helper:
            pending = helper.submit(self._warm_up, others, True)
            self._warm_up(novelty, False)
            pending.result()
        stored.store(self.qrels)  # qrels read through the cache keep what was derived, for the next call
        release_unused_memory()

    def _warm_up(self, measures: list[Measure], table: bool) -> None:
        if table:
            self.qrels.judged_table  # what runs are matched against: built before the first run needs it
        if measures:
            empty = RankedRun("", "", *(np.zeros(0, dtype=np.int64) for _ in range(3)),
                              topics=np.zeros(0, dtype=np.int64), unknown_topics=[])
            score_matrix(self.qrels, empty, measures, np.arange(self.qrels.n_topics), self.settings)

    def score_raw(self, item: RunInput) -> RawScores:
        """Read (if need be), rank and score one run; its warnings are kept, not emitted."""
        return self.score_prepared(self.prepare(item))

    def prepare(self, item: RunInput) -> PreparedRun:
        """The run read if need be, matched to the judgments and ranked; its table is let go."""
        source, run = item
        if isinstance(run, str):
            run = read_run(run)
        extra_fields = run.extra_fields
        matched = match_run(run, self.qrels)
        del run
        conventions = self.settings.conventions
        ranked = rank_matched(matched, self.qrels, order=self.order, depth=self.depth, duplicates=self.duplicates,
                              lines_per_topic=conventions.lines_per_topic,
                              score_floor=conventions.drop_scores_at_most, judged_only=self.judged_only)
        return PreparedRun(source, ranked, extra_fields)

    def score_prepared(self, prepared: PreparedRun) -> RawScores:
        """Score a ranked run; its warnings are kept, not emitted."""
        source, ranked, extra_fields = prepared.source, prepared.ranked, prepared.extra_fields
        messages = []
        if extra_fields:
            messages.append(f"{ranked.name}: some lines have more than 6 fields; fields past the sixth are ignored")
        messages += describe_unknown_topics(ranked.name, ranked.unknown_topics, self.qrels.topic_ids,
                                            ranked.unknown_lines)
        topics = np.arange(self.qrels.n_topics) if self.complete else ranked.topics
        if not len(topics):  # a mean over no topic would be a number made up
            raise self._no_common_topic(ranked)
        matrix = score_matrix(self.qrels, ranked, self.measures, topics, self.settings)
        return RawScores(source, ranked.name, ranked.runid, topics, self.settings.conventions.round_values(matrix),
                         messages)

    def finish(self, raw: RawScores) -> RunScores:
        """Emit a scored run's warnings (in run order) and compute its means."""
        for message in raw.messages:
            self.warn(message)
        self._note_shared_runtag(raw.name, raw.runid)
        self._note_undefined(raw.name, raw.topics, raw.matrix)
        matrix = np.nan_to_num(raw.matrix, nan=0.0)
        mean = measure_means(matrix, self.measures) if len(raw.topics) else np.zeros(len(self.measures))
        return RunScores(raw.source, raw.runid, [self.qrels.topic_ids[t] for t in raw.topics],
                         self.measures, matrix, self.settings.conventions.round_means(mean))

    def _note_shared_runtag(self, name: str, runid: str) -> None:
        """Warn when two different runs share a runtag (one file given twice is one run)."""
        first = self._run_of_runtag.setdefault(runid, name)
        if first != name:
            self.warn(f"{name}: runtag {runid!r} is also that of {first}; their results are kept apart, "
                      f"but the ndeval and trec formats print only the runtag (--run-column adds the file to "
                      f"ndeval's; table and json tell them apart)")

    def _note_undefined(self, name: str, topics: np.ndarray, matrix: np.ndarray) -> None:
        """Warn (once per topic) about topics without relevant documents, and about NaN."""
        norel = topics[~self.qrels.has_relevant[topics]]
        new = [t for t in norel.tolist() if t not in self._warned_norel]
        if new:
            self._warned_norel.update(new)
            self.warn("topics without any relevant document score 0 on every measure: "
                      + describe_ids([self.qrels.topic_ids[t] for t in new]))
        undefined = np.isnan(matrix) & self.qrels.has_relevant[topics][:, None]
        for j in np.flatnonzero(undefined.any(axis=0)):
            ids = [self.qrels.topic_ids[t] for t in topics[undefined[:, j]]]
            self.warn(f"{name}: {self.measures[j].name} is undefined (0/0) for topics "
                      f"{describe_ids(ids)}; printed as 0")


# -- worker processes ---------------------------------------------------------------

_worker_evaluator: Evaluator | None = None


def _note_below_threshold(qrels: Qrels, rel_min: int, warn: WarningSink) -> None:
    """Name the topics whose relevant documents are all below the threshold: binary measures score them 0."""
    lost = (qrels.n_intents > 0) & (qrels.at_relevance_level(rel_min).n_intents == 0)
    if lost.any():
        warn(f"no document reaches level {rel_min} (--rel-min) in topics "
             f"{describe_ids([qrels.topic_ids[t] for t in np.flatnonzero(lost)])}: the binary measures score them 0")


def pooled_documents(qrels: Qrels, runs: RunLike | Iterable[RunLike], depth: int) -> np.ndarray:
    """The pool of the runs: per qrels row, whether a run ranks its document (in score order) within ``depth``."""
    pooled = np.zeros(len(qrels.row_key), dtype=bool)
    for _, run in run_inputs(runs):
        ranked = rank_run(read_run(run) if isinstance(run, str) else run, qrels, order="score", depth=depth)
        pooled[ranked.row[ranked.row >= 0]] = True
    return pooled


def _init_worker(evaluator: Evaluator) -> None:
    global _worker_evaluator
    _worker_evaluator = evaluator
    # Ctrl-C signals the whole group: the parent stops and ends the pool; a worker's own KeyboardInterrupt
    # would only print its traceback, or leave the pool's queue locked. Held back since the fork (below),
    # a Ctrl-C that came meanwhile is dropped here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _hold_back_ctrl_c(False)


def _hold_back_ctrl_c(hold: bool) -> None:
    """Hold SIGINT back (pending, not lost) in this thread, and in the processes it forks, or let it through."""
    if hasattr(signal, "pthread_sigmask"):  # (not on Windows, which has no such signal between processes)
        signal.pthread_sigmask(signal.SIG_BLOCK if hold else signal.SIG_UNBLOCK, {signal.SIGINT})


def _score_in_worker(item: RunInput) -> RawScores | InputError:
    try:
        return _worker_evaluator.score_raw(item)
    except InputError as exc:  # sent back, so that the parent stops or skips in run order
        return exc


def pool_size(jobs: int, inputs: Iterable[RunInput]) -> tuple[int, Iterator[RunInput]]:
    """Worker processes for ``jobs`` (resolved by :func:`divaleval.placement.placed`: at most one per core),
    and at most one per run, as each costs a process and a copy of the qrels: the first runs are taken from
    ``inputs`` to count them (the iterator returned gives them again)."""
    inputs = iter(inputs)
    first = list(itertools.islice(inputs, jobs))
    return max(1, len(first)), itertools.chain(first, inputs)


def _score_in_workers(evaluator: Evaluator, inputs: Iterable[RunInput], jobs: int
                      ) -> Iterator[RawScores | InputError]:
    """RawScores of each run, in order, computed by ``jobs`` worker processes."""
    import multiprocessing  # (here: 6 ms of start-up a run scored in this process does without)

    workers, inputs = pool_size(jobs, inputs)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    # A Ctrl-C while the workers start would interrupt one of them half made (a traceback; a hang when it holds
    # the pool's lock): the parent holds it back until they are made, then stops (KeyboardInterrupt).
    _hold_back_ctrl_c(True)
    try:
        pool = context.Pool(workers, initializer=_init_worker, initargs=(evaluator,))
    finally:
        _hold_back_ctrl_c(False)
    with pool:
        yield from pool.imap(_score_in_worker, inputs, chunksize=1)
