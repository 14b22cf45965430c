"""The library API: a thin facade over the layers; the command line calls exactly this.

>>> import divaleval
>>> scores = divaleval.evaluate("sample_data/qrels.txt", "sample_data/runs/", measures=["alpha-nDCG@20"])
>>> divaleval.mean_rows(scores)  # doctest: +SKIP
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

import numpy as np
import pyarrow as pa

from .arrays import group_positions
from .compat import conventions as mode_conventions
from .errors import UsageError, WarningSink, warn_to_stderr
from .evaluator import Evaluator, RunLike, run_inputs
from .io import IntentProbabilities, RunTable, read_iprob, read_qrels, read_run
from .io.aspects import AspectSpec, parse_aspect_specs, read_aspect
from .io.preferences import REPEAT_BLANK, SKIP_BLANK, PreferenceTable, read_preferences, read_profiles
from .io.source import InputFile
from .measures import DEFAULT_SET, Measure, parse_measures
from .memory import release_unused_memory
from .model import Qrels, Settings, build_aspect_qrels, build_qrels
from .model.conventions import Conventions
from .model.preference_simulation import profiles_of, simulate
from .model.preferences import build_preference_qrels
from .ranking import rank_run
from .results import RunScores, scores_frame

if TYPE_CHECKING:
    import pandas as pd


def load_qrels(
    qrels: str | InputFile,
    iprob: str | IntentProbabilities | None = None,
    warn: WarningSink = warn_to_stderr,
) -> Qrels:
    """Read intentwise qrels (and optionally intent probabilities) into array form."""
    loaded = build_qrels(read_qrels(qrels))
    release_unused_memory()  # the reading's temporaries are gone: let peak memory follow what is kept
    return loaded if iprob is None else _with_iprob(loaded, iprob, warn)


def _with_iprob(qrels: Qrels, iprob: str | IntentProbabilities, warn: WarningSink) -> Qrels:
    return qrels.with_iprob(iprob if isinstance(iprob, IntentProbabilities) else read_iprob(iprob), warn)


def load_aspects(specs: list[str] | list[AspectSpec]) -> Qrels:
    """Multi-aspect qrels from ``NAME=FILE[,options]`` specifications (see :class:`divaleval.io.aspects.AspectSpec`)."""
    if all(isinstance(spec, str) for spec in specs):
        specs = parse_aspect_specs(specs)
    return build_aspect_qrels([read_aspect(spec) for spec in specs])


def load_preferences(judgments: str | InputFile | PreferenceTable, compat: str | None = None) -> Qrels:
    """Preference judgments (pairwise and triplets, :mod:`divaleval.io.preferences`) as qrels for nPrf.

    judgments: a file (``-`` for stdin, ``.gz`` allowed) or a table (``PreferenceTable.from_arrays``).
    compat: a compatibility mode, whose conventions may say how the file is read.
    """
    if not isinstance(judgments, PreferenceTable):
        repeat = mode_conventions(compat).blank_judgment_repeats
        judgments = read_preferences(judgments, blank_lines=REPEAT_BLANK if repeat else SKIP_BLANK)
    return build_preference_qrels(judgments)


def simulate_preferences(
    qrels: str | Qrels,
    profiles: str | None = None,
    *,
    kind: str = "both",
    ties: str = "random",
    seed: int = 0,
    compat: str | None = None,
    pool: list[str] | tuple[str, ...] = (),
    pool_depth: int = 20,
    warn: WarningSink = warn_to_stderr,
) -> Iterator[PreferenceTable]:
    """Simulated preference judgments (Chandar & Carterette 2013, sec. 4), one table per topic and profile.

    profiles: a file ``topic profile intent [intent ...]``; None: the TREC
        profile (every intent) of every topic.
    kind: ``both``, ``pairs`` or ``triplets``. ties: ``random`` (a seeded coin)
        or ``alphabetical`` (the docno first in byte order).
    pool: runs whose first ``pool_depth`` documents of each topic (in score
        order) are the only ones judged; empty: every relevant document.
    Everything is read and checked before the first table is yielded.
    """
    conventions = mode_conventions(compat)
    if not isinstance(qrels, Qrels):
        qrels = load_qrels(qrels, warn=warn)
    chosen = profiles_of(qrels, None if profiles is None else read_profiles(profiles), warn)
    pooled = None
    if pool:
        pooled = np.zeros(len(qrels.row_key), dtype=bool)
        for _, run in run_inputs(list(pool)):
            ranked = rank_run(read_run(run) if isinstance(run, str) else run, qrels, order="score",
                              depth=pool_depth)
            pooled[ranked.row[ranked.row >= 0]] = True
    return simulate(qrels, chosen, kind=kind, ties=ties, seed=seed,
                    covered_weight=conventions.simulated_covered_weight, pool=pooled)


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


def make_settings(gain: str = "exp", topicwise: str = "sumlog", compat: str | None = None) -> Settings:
    """Settings from option values (a compatibility mode by its name); a bad value is a :class:`UsageError`."""
    return Settings.parse(gain, topicwise, mode_conventions(compat))


def make_evaluator(
    qrels: str | Qrels,
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
) -> Evaluator:
    """An :class:`Evaluator` from the options of :func:`evaluate` (usage errors first, then the qrels)."""
    warn = warn or warn_to_stderr
    settings = make_settings(gain, topicwise, compat)
    chosen = resolve_measures(measures)
    if not isinstance(qrels, Qrels):
        qrels = load_qrels(qrels, iprob, warn)
    elif iprob is not None:
        qrels = _with_iprob(qrels, iprob, warn)
    return Evaluator(qrels, chosen, order=order, depth=depth, complete=complete, dedupe=dedupe,
                     settings=settings, warn=warn)


def score_runs(qrels: str | Qrels, runs: RunLike | Iterable[RunLike],
               measures: Iterable[str | Measure] | str | None = None, *, jobs: int = 1,
               **options) -> Iterator[RunScores]:
    """Score runs one at a time: each run's :class:`RunScores`, in order, as soon as it is scored.

    The options are those of :func:`evaluate`. Nothing is held once yielded, so
    memory stays flat in the number of runs (the command line prints this way).
    """
    evaluator = make_evaluator(qrels, measures, **options)
    conventions = evaluator.settings.conventions
    if conventions.drop_scores_at_most is not None or conventions.lines_per_topic is not None:
        runs = _runs_as_read_by(conventions, runs)
    yield from evaluator.score_all(runs, (os.cpu_count() or 1) if jobs == 0 else jobs)


def _runs_as_read_by(conventions: Conventions, runs: RunLike | Iterable[RunLike]) -> Iterator[RunTable]:
    """Each run with only the lines a convention reads: the first N of each topic (file order), scores above a floor."""
    for source, run in run_inputs(runs):
        table = read_run(run) if isinstance(run, str) else run
        keep = np.ones(len(table), dtype=bool)
        if conventions.lines_per_topic is not None:
            by_topic = np.argsort(table.topic.codes, kind="stable")
            position = np.empty(len(table), dtype=np.int64)
            position[by_topic] = group_positions(table.topic.codes[by_topic])
            keep &= position <= conventions.lines_per_topic
        if conventions.drop_scores_at_most is not None:
            keep &= table.score > conventions.drop_scores_at_most
        lines = np.flatnonzero(keep)
        yield RunTable(source, table.runid, table.topic.take(lines), table.docno.take(pa.array(lines)),
                       table.rank[lines], table.score[lines], table.line[lines])


def evaluate(
    qrels: str | Qrels,
    runs: RunLike | Iterable[RunLike],
    measures: Iterable[str | Measure] | str | None = None,
    *,
    on_run: Callable[[RunScores], None] | None = None,
    jobs: int = 1,
    **options,
) -> pd.DataFrame:
    """Score runs against intentwise qrels; one row per (run, topic).

    qrels: a path (``-`` for stdin, ``.gz`` allowed) or a :class:`Qrels` (loaded,
        built in memory with ``Qrels.from_frame`` / ``from_arrays``, or multi-aspect).
    runs: a path, a directory (every file in it, by name), a run in memory
        (``RunTable.from_arrays``), or a list of them (checked whole before the
        first is scored), or any iterable of them (consumed as they are scored).
    measures: names such as ``"alpha-nDCG@20"`` or ``"alpha-nDCG(alpha=0.8)@30"``,
        other tools' names (``"alpha_nDCG@20"``, ``"ndcg_cut.10"``), set names
        (``"ndeval"``), or :class:`Measure` objects; default: the ndeval set.
    order: ``"score"`` (score descending, ties by docno descending; default),
        ``"rank"`` (the rank column) or ``"file"`` (line order); a compatibility
        mode may change the default.
    depth: evaluate only the first ``depth`` documents of each topic.
    complete: score every qrels topic; a topic missing from a run scores 0.
    dedupe: keep the first-ranked copy of a repeated docno instead of failing.
    gain: gain table of graded measures: ``"exp"`` (2^L - 1), ``"linear"`` or ``"1:3:7:15"``.
    topicwise: how ad hoc measures get one level from intentwise qrels: ``"sumlog"``
        (floor(log2(S+1)), S the sum of the levels; Sakai & Zeng) or ``"max"``.
    compat: the name of a compatibility mode (:data:`divaleval.compat.MODES`),
        which reproduces a reference tool's order, depth and rounding.
    iprob: intent probabilities (the intent weights of D- and IA-measures); a
        loaded :class:`Qrels` given here is not changed.
    warn: where warnings go (default: standard error).
    on_run: called with each run's :class:`RunScores` as soon as it is scored.
    jobs: score runs in this many worker processes (0: one per core); the
        results, and the output built from them, are identical whatever it is.

    Returns a DataFrame indexed by ``run`` (each run's source: its file, or its
    label) with columns ``runid`` (the runtag), ``topic`` and one per measure
    (canonical names). No value is NaN: a topic without relevant documents
    scores 0 and is named in a warning. Means: :func:`divaleval.mean_rows`.
    Runs one at a time without a frame: :func:`score_runs`.
    """
    results = []
    for scores in score_runs(qrels, runs, measures, jobs=jobs, **options):
        if on_run is not None:
            on_run(scores)
        results.append(scores)
    return scores_frame(results, [m.name for m in resolve_measures(measures)])
