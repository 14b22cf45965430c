"""The library API; the command line calls exactly this.

>>> import divaleval
>>> scores = divaleval.evaluate("sample_data/qrels.txt", "sample_data/runs/", measures=["alpha-nDCG@20"])
>>> divaleval.mean_rows(scores)  # doctest: +SKIP
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from .aggregate import topic_mean
from .engine import score_matrix
from .gains import TOPICWISE_RULES, GainTable, Settings
from .errors import UsageError, WarningSink, describe_ids, warn_to_stderr
from .io import IntentProbabilities, RunTable, expand_run_paths, read_iprob, read_qrels, read_run
from .io.source import InputFile
from .measures import DEFAULT_SET, Measure, parse_measures
from .ranking import ORDERS, RankedRun, rank_run
from .topics import Qrels, build_qrels

NTCIREVAL_DEPTH = 1000


def load_qrels(
    qrels: str | InputFile,
    iprob: str | IntentProbabilities | None = None,
    warn: WarningSink = warn_to_stderr,
) -> Qrels:
    """Read intentwise qrels (and optionally intent probabilities) into array form."""
    loaded = build_qrels(read_qrels(qrels))
    if iprob is not None:
        _attach_iprob(loaded, iprob, warn)
    return loaded


def _attach_iprob(qrels: Qrels, iprob: str | IntentProbabilities, warn: WarningSink) -> None:
    qrels.attach_iprob(iprob if isinstance(iprob, IntentProbabilities) else read_iprob(iprob), warn)


def resolve_measures(measures: Iterable[str | Measure] | str | None) -> list[Measure]:
    """Measure objects from names, sets (``ndeval``) or objects; default: the ndeval set."""
    if measures is None:
        measures = [DEFAULT_SET]
    elif isinstance(measures, (str, Measure)):
        measures = [measures]
    resolved: list[Measure] = []
    for m in measures:
        for item in ([m] if isinstance(m, Measure) else parse_measures([m])):
            if item not in resolved:
                resolved.append(item)
    if not resolved:
        raise UsageError("no measure to compute")
    return resolved


@dataclass
class RunScores:
    """The scores of one run: per topic, and the mean."""

    name: str            # file the run came from
    runid: str
    topic_ids: list[str]
    measures: list[Measure]
    matrix: np.ndarray   # (topics, measures)
    mean: np.ndarray     # (measures,)

    def frame(self) -> pd.DataFrame:
        data = {"runid": [self.runid] * len(self.topic_ids), "topic": self.topic_ids}
        for j, m in enumerate(self.measures):
            data[m.name] = self.matrix[:, j]
        return pd.DataFrame(data)


@dataclass
class RawScores:
    """A run scored but not yet finished: what a worker process sends back."""

    name: str
    runid: str
    topics: np.ndarray       # qrels topic indices scored
    matrix: np.ndarray       # raw kernel output, NaN where undefined
    messages: list[str]      # warnings about this run, in order


class Evaluator:
    """Scores runs against one set of qrels with fixed settings.

    The qrels are read once; their ideal rankings are computed once and reused
    for every run. Runs are read and scored one at a time, in this process or
    in worker processes (:meth:`score_all` with ``jobs`` > 1); either way the
    results, and the warnings, come out in the order of the runs.
    """

    def __init__(
        self,
        qrels: Qrels,
        measures: list[Measure],
        *,
        order: str = "score",
        depth: int | None = None,
        complete: bool = False,
        dedupe: bool = False,
        settings: Settings | None = None,
        warn: WarningSink = warn_to_stderr,
    ) -> None:
        self.settings = settings or Settings()
        if self.settings.compat == "ntcireval":
            # NTCIREVAL's conventions: lines in file order, the first 1000 per topic, no deduplication.
            order = order or "file"
            depth = depth or NTCIREVAL_DEPTH
        order = order or "score"
        if order not in ORDERS:
            raise UsageError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        if depth is not None and depth < 1:
            raise UsageError("depth must be >= 1")
        self.qrels = qrels
        self.measures = measures
        self.order = order
        self.depth = depth
        self.complete = complete
        self.dedupe = dedupe
        self.warn = warn
        self._warned_norel: set[int] = set()

    def score(self, run: RunTable | str) -> RunScores:
        """Score one run (a table or a path) and emit its warnings."""
        return self.finish(self.score_raw(run))

    def score_all(self, runs: Iterable[RunTable | str], jobs: int = 1) -> Iterator[RunScores]:
        """Score runs in order; with ``jobs`` > 1, in that many worker processes."""
        if jobs <= 1:
            for run in runs:
                yield self.score(run)
            return
        from .parallel import score_in_workers

        self.warm_up()
        for raw in score_in_workers(self, runs, jobs):
            yield self.finish(raw)

    def warm_up(self) -> None:
        """Compute every qrels-only quantity the measures need (ideal rankings) now.

        Worker processes then inherit them instead of each computing them.
        """
        empty = RankedRun("", "", *(np.zeros(0, dtype=np.int64) for _ in range(3)),
                          topics=np.zeros(0, dtype=np.int64), unknown_topics=[])
        score_matrix(self.qrels, empty, self.measures, np.arange(self.qrels.n_topics), self.settings)

    def score_raw(self, run: RunTable | str) -> RawScores:
        if isinstance(run, str):
            run = read_run(run)
        messages = []
        ranked = rank_run(run, self.qrels, order=self.order, depth=self.depth, dedupe=self.dedupe,
                          keep_duplicates=self.settings.compat == "ntcireval")
        if ranked.unknown_topics:
            messages.append(f"{run.name}: topics not in the qrels are ignored: {describe_ids(ranked.unknown_topics)}")
        topics = np.arange(self.qrels.n_topics) if self.complete else ranked.topics
        if not len(topics):
            messages.append(f"{run.name}: no topic of the run is in the qrels; its mean is 0")
        matrix = score_matrix(self.qrels, ranked, self.measures, topics, self.settings)
        if self.settings.compat == "ntcireval":
            matrix = np.array([[float(f"{v:.4f}") for v in row] for row in matrix]).reshape(matrix.shape)
        return RawScores(run.name, run.runid, topics, matrix, messages)

    def finish(self, raw: RawScores) -> RunScores:
        for message in raw.messages:
            self.warn(message)
        self._note_undefined(raw.name, raw.topics, raw.matrix)
        matrix = np.nan_to_num(raw.matrix, nan=0.0)
        mean = topic_mean(matrix) if len(raw.topics) else np.zeros(len(self.measures))
        if self.settings.compat == "ntcireval":  # NEV2mean prints the mean of the rounded values %.4f
            mean = np.array([float(f"{v:.4f}") for v in mean])
        return RunScores(raw.name, raw.runid, [self.qrels.topic_ids[t] for t in raw.topics],
                         self.measures, matrix, mean)

    def _note_undefined(self, name: str, topics: np.ndarray, matrix: np.ndarray) -> None:
        """Warn (once per topic) about topics without relevant documents, and about NaN."""
        norel = topics[self.qrels.n_intents[topics] == 0]
        new = [t for t in norel.tolist() if t not in self._warned_norel]
        if new:
            self._warned_norel.update(new)
            self.warn("topics without any relevant document score 0 on every measure: "
                      + describe_ids([self.qrels.topic_ids[t] for t in new]))
        undefined = np.isnan(matrix) & (self.qrels.n_intents[topics] > 0)[:, None]
        for j in np.flatnonzero(undefined.any(axis=0)):
            ids = [self.qrels.topic_ids[t] for t in topics[undefined[:, j]]]
            self.warn(f"{name}: {self.measures[j].name} is undefined (0/0) for topics "
                      f"{describe_ids(ids)}; printed as 0")


def make_settings(gain: str = "exp", topicwise: str = "sumlog", compat: str | None = None) -> Settings:
    """Settings from option values, with a usage error for a bad one."""
    try:
        table = GainTable.parse(gain)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if topicwise not in TOPICWISE_RULES:
        raise UsageError(f"topicwise rule must be one of {', '.join(TOPICWISE_RULES)}, not {topicwise!r}")
    if compat not in (None, "ntcireval"):
        raise UsageError(f"unknown compatibility mode {compat!r} (known: ntcireval)")
    return Settings(table, topicwise, compat)


def iter_runs(runs: str | RunTable | Sequence[str | RunTable]) -> Iterator[str | RunTable]:
    """The runs to score, in order: directories expanded; ``-`` read now (only once)."""
    if isinstance(runs, (str, RunTable)):
        runs = [runs]
    items: list[str | RunTable] = []
    for item in runs:
        items.extend([item] if isinstance(item, RunTable) else expand_run_paths([item]))
    expand_run_paths([item for item in items if isinstance(item, str) and item == "-"])
    for item in items:
        yield read_run(item) if item == "-" else item


def evaluate(
    qrels: str | Qrels,
    runs: str | RunTable | Sequence[str | RunTable],
    measures: Iterable[str | Measure] | str | None = None,
    *,
    order: str | None = None,
    depth: int | None = None,
    complete: bool = False,
    dedupe: bool = False,
    gain: str = "exp",
    topicwise: str = "sumlog",
    compat: str | None = None,
    iprob: str | IntentProbabilities | None = None,
    warn: WarningSink | None = None,
    on_run: Callable[[RunScores], None] | None = None,
    jobs: int = 1,
) -> pd.DataFrame:
    """Score runs against intentwise qrels; one row per (run, topic).

    qrels: a path (``-`` for stdin, ``.gz`` allowed) or a loaded :class:`Qrels`.
    runs: a path, a directory (every file in it, by name), or a list of them.
    measures: names such as ``"alpha-nDCG@20"`` or ``"alpha-nDCG(alpha=0.8)@30"``,
        set names (``"ndeval"``), or :class:`Measure` objects; default: the ndeval set.
    order: ``"score"`` (score descending, ties by docno descending; default),
        ``"rank"`` (the rank column) or ``"file"`` (line order; the default with
        ``compat="ntcireval"``).
    depth: evaluate only the first ``depth`` documents of each topic.
    complete: score every qrels topic; a topic missing from a run scores 0.
    dedupe: keep the first-ranked copy of a repeated docno instead of failing.
    gain: gain table of graded measures: ``"exp"`` (2^L - 1), ``"linear"`` or ``"1:3:7:15"``.
    topicwise: how ad hoc measures get one level from intentwise qrels: ``"sumlog"``
        (floor(log2(S+1)), S the sum of the levels; Sakai & Zeng) or ``"max"``.
    compat: ``"ntcireval"`` reproduces NTCIREVAL: file order, the first 1000
        documents, no deduplication, GG to 6 significant digits, values and the
        components of D# and IA rounded to 4 decimals.
    iprob: intent probabilities (the intent weights of D- and IA-measures).
    on_run: called with each run's :class:`RunScores` as soon as it is scored.
    jobs: score runs in this many worker processes (0: one per core); the
        results, and the output built from them, are identical whatever it is.

    Returns a DataFrame with columns ``runid``, ``topic`` and one per measure
    (canonical names). No value is NaN: a topic without relevant documents
    scores 0 and is named in a warning. Means: :func:`divaleval.mean_rows`.
    """
    warn = warn or warn_to_stderr
    if not isinstance(qrels, Qrels):
        qrels = load_qrels(qrels, iprob, warn)
    elif iprob is not None:
        _attach_iprob(qrels, iprob, warn)
    settings = make_settings(gain, topicwise, compat)
    evaluator = Evaluator(qrels, resolve_measures(measures), order=order, depth=depth,
                          complete=complete, dedupe=dedupe, settings=settings, warn=warn)
    if jobs == 0:
        jobs = os.cpu_count() or 1
    frames = []
    for scores in evaluator.score_all(iter_runs(runs), jobs):
        if on_run is not None:
            on_run(scores)
        frames.append(scores.frame())
    if not frames:
        return pd.DataFrame(columns=["runid", "topic", *(m.name for m in evaluator.measures)])
    return pd.concat(frames, ignore_index=True)
