"""The library API: a thin facade over the layers; the command line calls exactly this.

>>> import divaleval
>>> scores = divaleval.evaluate("sample_data/qrels.txt", "sample_data/runs/", measures=["alpha-nDCG@20"])
>>> divaleval.mean_rows(scores)  # doctest: +SKIP
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, NamedTuple, Union

from .placement import Scheduler, placed
from .compat import conventions as mode_conventions
from .errors import InputError, UsageError, WarningSink, warning_sink
from .evaluator import Evaluator, RunLike, pooled_documents
from .io import RunTable
from .io.frames import qrels_table, runs_given
from .io.source import STDIN_NAME, STDIN_ONCE, InputFile, display_name
from .measures import DEFAULT_SET, Measure, parse_measures
from .measures.core import INTENTS
from .memory import release_unused_memory
from .model.judged import JudgedDocuments
from .model.qrels import Qrels, build_qrels
from .model.settings import Settings
from .model import stored
from .results import RunScores, scores_frame

# Judgments and runs in memory (divaleval.io.frames): a DataFrame, a dict in pytrec_eval's shape
# ({topic: {docno: level or score}}), or an iterable of namedtuples (ir_measures', ir_datasets').
QrelsLike = Union["pd.DataFrame", Mapping[str, Mapping[str, int]], Iterable[NamedTuple]]
RunsLike = Union[RunLike, "pd.DataFrame", Mapping, Iterable]

if TYPE_CHECKING:  # (and imported where used: evaluating runs needs none of them)
    import pandas as pd

    from .io.iprob import IntentProbabilities

    from .io.aspects import AspectSpec
    from .io.preferences import PreferenceTable
    from .model.aspects import AspectQrels
    from .model.preferences import PreferenceQrels

    from .io.gold import GoldPreferences

    from . import axioms
    from .meta import MetaReport, ScoreCube


def load_qrels(
    qrels: str | InputFile | QrelsLike,
    iprob: str | IntentProbabilities | None = None,
    warn: WarningSink | bool | None = None,
) -> Qrels:
    """Read intentwise qrels (and optionally intent probabilities) into array form.

    qrels: a file (``-`` for stdin, ``.gz`` allowed), or judgments in memory
        (:mod:`divaleval.io.frames`): a DataFrame (columns ``topic, intent, docno,
        level``, ir_measures' ``query_id, iteration, doc_id, relevance`` or PyTerrier's
        ``qid, docno, label``), a dict ``{topic: {docno: level}}`` or namedtuples
        (ir_measures' ``Qrel``, ir_datasets' qrels); ``iteration`` is the intent.
    warn: where warnings go: None (default) Python warnings of the category
        :class:`~divaleval.errors.DivalevalWarning`, False nowhere, or a callable
        given each message.

    A file read before (the same bytes) is taken from the cache of qrels
    (:mod:`divaleval.model.stored`; ``DIVALEVAL_CACHE=0`` turns it off): the same values.
    """
    loaded = (stored.load_qrels(qrels) if isinstance(qrels, (str, InputFile))
              else build_qrels(qrels_table(qrels)))
    release_unused_memory()  # the reading's temporaries are gone: let peak memory follow what is kept
    return loaded if iprob is None else _with_iprob(loaded, iprob, warning_sink(warn))


def _with_iprob(qrels: JudgedDocuments, iprob: str | IntentProbabilities, warn: WarningSink) -> Qrels:
    if not isinstance(qrels, Qrels):
        raise UsageError("intent probabilities (iprob) weigh the intents of intentwise qrels; "
                         f"{qrels.name} has no intents")
    from .io.iprob import IntentProbabilities, read_iprob  # (here: most evaluations have no iprob file)

    return qrels.with_iprob(iprob if isinstance(iprob, IntentProbabilities) else read_iprob(iprob), warn)


def load_aspects(specs: list[str] | list[AspectSpec]) -> AspectQrels:
    """Multi-aspect qrels from ``NAME=FILE[,options]`` specifications (see :class:`divaleval.io.aspects.AspectSpec`)."""
    from .io.aspects import parse_aspect_specs, read_aspect  # (here: intentwise qrels need no aspect reader)
    from .model.aspects import build_aspect_qrels

    if all(isinstance(spec, str) for spec in specs):
        specs = parse_aspect_specs(specs)
    return build_aspect_qrels([read_aspect(spec) for spec in specs])


def load_preferences(judgments: str | InputFile | PreferenceTable, compat: str | None = None) -> PreferenceQrels:
    """Preference judgments (pairwise and triplets, :mod:`divaleval.io.preferences`) in array form, for nPrf.

    judgments: a file (``-`` for stdin, ``.gz`` allowed) or a table (``PreferenceTable.from_arrays``).
    compat: a compatibility mode, whose conventions may say how the file is read.
    """
    from .io.preferences import PreferenceTable, read_preferences  # (here, as load_aspects' imports)
    from .model.preferences import build_preference_qrels

    if not isinstance(judgments, PreferenceTable):
        judgments = read_preferences(judgments, blank_lines=mode_conventions(compat).preference_rules.blank_lines)
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
    warn: WarningSink | bool | None = None,
) -> Iterator[PreferenceTable]:
    """Simulated preference judgments (Chandar & Carterette 2013, sec. 4), one table per topic and profile.

    profiles: a file ``topic profile intent [intent ...]``; None: the TREC
        profile (every intent) of every topic.
    kind: ``both``, ``pairs`` or ``triplets``. ties: ``random`` (a seeded coin)
        or ``alphabetical`` (the docno first in byte order).
    pool: runs whose first ``pool_depth`` documents of each topic (in score
        order) are the only ones judged; empty: every relevant document.
    Everything is read and checked before the first table is yielded. warn: as :func:`load_qrels`'s.
    """
    from .io.preferences import read_profiles
    from .model.preference_simulation import profiles_of, simulate

    warn = warning_sink(warn)
    conventions = mode_conventions(compat)
    if not isinstance(qrels, JudgedDocuments):
        qrels = load_qrels(qrels, warn=warn)
    elif not isinstance(qrels, Qrels):
        raise UsageError(f"preferences are simulated from intentwise qrels; {qrels.name} has no intents")
    chosen = profiles_of(qrels, None if profiles is None else read_profiles(profiles), warn)
    pooled = pooled_documents(qrels, list(pool), pool_depth) if pool else None
    return simulate(qrels, chosen, kind=kind, ties=ties, seed=seed,
                    covered_weight=conventions.preference_rules.simulated_covered_weight, pool=pooled)


def resolve_measures(measures: Iterable[str | Measure] | str | None) -> list[Measure]:
    """Measure objects from names, sets (``ndeval``) or objects; default: the ndeval set."""
    if measures is None:
        measures = [DEFAULT_SET]
    elif isinstance(measures, (str, Measure)):
        measures = [measures]
    # (a dict, not a list's `in`: -m all's 289 measures took 40,000 comparisons of dataclasses, 0.1 s a call)
    resolved: dict[Measure, None] = {}
    for m in measures:
        for item in ([m] if isinstance(m, Measure) else parse_measures([m])):
            resolved.setdefault(item)
    if not resolved:
        raise UsageError("no measure to compute")
    return list(resolved)


def make_settings(gain: str = "exp", topicwise: str = "sumlog", compat: str | None = None,
                  rel_min: int = 1) -> Settings:
    """Settings from option values (a compatibility mode by its name); a bad value is a :class:`UsageError`."""
    return Settings.parse(gain, topicwise, mode_conventions(compat), rel_min)


def make_evaluator(
    qrels: str | JudgedDocuments | QrelsLike,
    measures: Iterable[str | Measure] | str | None = None,
    *,
    order: str | None = None,
    depth: int | None = None,
    complete: bool = False,
    dedupe: bool = False,
    skip_bad: bool = False,
    gain: str = "exp",
    topicwise: str = "sumlog",
    compat: str | None = None,
    iprob: str | IntentProbabilities | None = None,
    warn: WarningSink | bool | None = None,
    judged_only: bool = False,
    rel_min: int = 1,
) -> Evaluator:
    """An :class:`Evaluator` from the options of :func:`evaluate` (usage errors first, then the qrels)."""
    warn = warning_sink(warn)
    settings = make_settings(gain, topicwise, compat, rel_min)
    chosen = resolve_measures(measures)
    if not isinstance(qrels, JudgedDocuments):
        qrels = load_qrels(qrels, iprob, warn)
    elif iprob is not None:
        qrels = _with_iprob(qrels, iprob, warn)
    return Evaluator(qrels, chosen, order=order, depth=depth, complete=complete, dedupe=dedupe,
                     skip_bad=skip_bad, settings=settings, warn=warn, judged_only=judged_only)


def score_runs(qrels: str | JudgedDocuments | QrelsLike, runs: RunsLike,
               measures: Iterable[str | Measure] | str | None = None, *, jobs: int = 1,
               scheduler: Scheduler = None, **options) -> Iterator[RunScores]:
    """Score runs one at a time: each run's :class:`RunScores`, in order, as soon as it is scored.

    The options are those of :func:`evaluate`. Nothing is held once yielded, so
    memory stays flat in the number of runs (the command line prints this way).
    """
    runs = runs_given(runs)
    check_stdin_once(qrels, runs, options.get("iprob"))
    with placed(jobs, scheduler) as place:
        evaluator = make_evaluator(qrels, measures, **options)
        yield from place.score_all(evaluator, runs)


def risk_runs(qrels: str | JudgedDocuments | QrelsLike, runs: RunsLike, baseline: RunLike,
              measures: Iterable[str | Measure] | str | None = None, *, risk_alpha: float = 0.0, jobs: int = 1,
              scheduler: Scheduler = None, **options) -> Iterator[RunScores]:
    """Score runs against a baseline run, one at a time (risk-sensitive evaluation, any measure).

    Each run's :class:`RunScores` holds, per topic, the risk-adjusted difference
    z = x - b (or (1 + risk_alpha)(x - b) where the run loses); its mean is URisk,
    and its ``summary_rows`` are TRisk and TRisk's two-sided p-value (Dinçer,
    Macdonald & Ounis 2014; see :mod:`divaleval.stats.risk`). The baseline is
    scored first with the same options (a topic it lacks scores 0); the other
    options are those of :func:`evaluate`.
    """
    from .meta.risk import risk_scores  # (imported here: evaluating without a baseline never loads meta/, stats/)
    from .stats.risk import checked_alpha

    alpha = checked_alpha(risk_alpha)
    runs, baseline = runs_given(runs), _one_run(baseline)
    listed = [runs] if isinstance(runs, (str, RunTable)) else list(runs)
    check_stdin_once(qrels, [*listed, baseline], options.get("iprob"))

    with placed(jobs, scheduler) as place:
        evaluator = make_evaluator(qrels, measures, **options)
        base = evaluator.score(baseline)
        for scores in place.score_all(evaluator, listed):
            yield risk_scores(scores, base, alpha, evaluator.warn)


def risk(qrels: str | JudgedDocuments | QrelsLike, runs: RunsLike, baseline: RunLike,
         measures: Iterable[str | Measure] | str | None = None, *, risk_alpha: float = 0.0, **options
         ) -> pd.DataFrame:
    """URisk, TRisk and its p-value of every run against ``baseline``, one row per (run, measure)
    (columns ``run, runid, baseline, measure, topics, alpha, URisk, TRisk, p``); see :func:`risk_runs`."""
    from .meta.risk import risk_frame

    baseline = _one_run(baseline)
    results = list(risk_runs(qrels, runs, baseline, measures, risk_alpha=risk_alpha, **options))
    return risk_frame(results, display_name(baseline) if isinstance(baseline, str) else baseline.name,
                      float(risk_alpha))


def _one_run(run: RunLike | RunsLike) -> RunLike:
    """One run (a baseline): a path, a table, or a run in memory."""
    given = runs_given(run)
    if isinstance(given, (str, RunTable)):
        return given
    given = list(given)
    if len(given) != 1:
        raise UsageError(f"one run expected, not {len(given)}")
    return given[0]


def check_stdin_once(qrels, runs, iprob=None) -> None:
    """Standard input can feed one input only: say so before reading any (an :class:`InputError`)."""
    listed = [runs] if isinstance(runs, str) else list(runs) if isinstance(runs, (list, tuple)) else []
    named = sum(isinstance(item, str) and item == STDIN_NAME for item in [qrels, iprob, *listed])
    if named > 1:
        raise InputError(display_name(STDIN_NAME), None, STDIN_ONCE)


def evaluate(
    qrels: str | JudgedDocuments | QrelsLike,
    runs: RunsLike,
    measures: Iterable[str | Measure] | str | None = None,
    *,
    on_run: Callable[[RunScores], None] | None = None,
    jobs: int = 1,
    scheduler: Scheduler = None,
    **options,
) -> pd.DataFrame:
    """Score runs against intentwise qrels; one row per (run, topic).

    qrels: a path (``-`` for stdin, ``.gz`` allowed), judgments in memory (a DataFrame,
        a dict ``{topic: {docno: level}}`` or namedtuples: see :func:`load_qrels`), or
        loaded judgments: a :class:`Qrels` (loaded, built in memory with ``Qrels.from_frame``
        / ``from_arrays``), multi-aspect qrels (:func:`load_aspects`) or preference
        judgments (:func:`load_preferences`).
    runs: a path, a directory (every file in it, by name), a run in memory (a
        DataFrame with divaleval's ``topic, docno, score[, rank, runid]``, ir_measures'
        ``query_id, doc_id, score`` or PyTerrier's ``qid, docno, score, rank`` columns,
        one run per runtag of a ``runid`` column; a dict ``{topic: {docno: score}}``;
        namedtuples such as ir_measures' ``ScoredDoc``; ``RunTable.from_arrays``), a dict
        ``{name: run}``, or a list of them (checked whole before the first is scored), or
        any iterable of them (consumed as they are scored).
    measures: names such as ``"alpha-nDCG@20"`` or ``"alpha-nDCG(alpha=0.8)@30"``,
        other tools' names (``"alpha_nDCG@20"``, ``"ndcg_cut.10"``), set names
        (``"ndeval"``), or :class:`Measure` objects; default: the ndeval set.
    order: ``"score"`` (score descending, ties by docno descending; default),
        ``"rank"`` (the rank column) or ``"file"`` (line order); a compatibility
        mode may change the default.
    depth: evaluate only the first ``depth`` documents of each topic.
    complete: score every qrels topic; a topic missing from a run scores 0.
    dedupe: keep the first-ranked copy of a repeated docno instead of failing.
    skip_bad: a run that cannot be read (or shares no topic with the qrels) is
        named in a warning and left out, instead of stopping the evaluation.
    gain: gain table of graded measures: ``"exp"`` (2^L - 1), ``"linear"`` or ``"1:3:7:15"``.
    topicwise: how ad hoc measures get one level from intentwise qrels: ``"sumlog"``
        (floor(log2(S+1)), S the sum of the levels; Sakai & Zeng) or ``"max"``.
    compat: the name of a compatibility mode (:data:`divaleval.compat.MODES`),
        which reproduces a reference tool's order, depth and rounding.
    iprob: intent probabilities (the intent weights of D- and IA-measures; a
        4th column ``inf``/``nav`` types the intents for DIN- and P+Q); a
        loaded :class:`Qrels` given here is not changed.
    judged_only: condensed lists (trec_eval's -J): documents the qrels do not
        judge are removed (after ``depth``) before any measure is computed.
    rel_min: binary measures count levels >= rel_min as relevant (trec_eval's -l).
    warn: where warnings go: None (default) Python warnings of the category
        :class:`~divaleval.errors.DivalevalWarning` (``warnings.catch_warnings``
        and pytest capture them), False nowhere, or a callable given each message.
    on_run: called with each run's :class:`RunScores` as soon as it is scored.
    jobs: score runs in this many worker processes (0: one per core); the
        results, and the output built from them, are identical whatever it is.
    scheduler: score runs on a Dask cluster (the extra ``divaleval[dask]``):
        ``"tcp://HOST:PORT"``, a scheduler file, ``"local:N"`` (N worker
        processes here), or a :class:`divaleval.cluster.Cluster`; identical
        results again.

    Returns a DataFrame indexed by ``run`` (each run's source: its file, or its
    label) with columns ``runid`` (the runtag), ``topic`` and one per measure
    (canonical names). No value is NaN: a topic without relevant documents
    scores 0 and is named in a warning. Means: :func:`divaleval.mean_rows`.
    Runs one at a time without a frame: :func:`score_runs`.
    """
    results = []
    for scores in score_runs(qrels, runs, measures, jobs=jobs, scheduler=scheduler, **options):
        if on_run is not None:
            on_run(scores)
        results.append(scores)
    return scores_frame(results, [m.name for m in resolve_measures(measures)])


def check_axioms(
    measures: Iterable[str | Measure] | str | None = None,
    constraints: Iterable[str] | None = None,
    *,
    cases: int | None = None,
    seed: int | None = None,
    max_length: int = 10,
    gain: str = "exp",
    topicwise: str = "max",
    progress: Callable[[str], None] | None = None,
) -> axioms.AxiomReport:
    """Check measures against the RBU paper's ten formal constraints (see :mod:`divaleval.axioms`).

    measures: as for :func:`evaluate` (default: a measure for every row of the
        paper's Table 1 that divaleval has); measures of intentwise judgments only.
    constraints: keys (``Pri``, ``Deep``, ...), numbers or titles; default: all ten.
    cases: cases drawn per constraint and relevance kind (binary, graded);
        quantified constraints spread them over their grid.
    seed: the random generation's seed (same seed, same report).
    max_length: documents in a generated ranking, never more than a measure's cutoff
        (DeepTh's rankings, 2n long, excepted).
    gain, topicwise: the evaluation's settings (as :func:`evaluate`'s); topicwise
        defaults to ``max``, the paper's level of a document for ad hoc measures.
    """
    from . import axioms  # the checker, only when asked for (it is not needed to evaluate runs)

    cases = axioms.DEFAULT_CASES if cases is None else cases
    seed = axioms.DEFAULT_SEED if seed is None else seed
    chosen = resolve_measures(axioms.PAPER_MEASURES if measures is None else measures)
    for m in chosen:
        if m.definition.judgments != INTENTS:
            raise UsageError(f"{m.name} is a measure of multi-aspect judgments; the constraints are stated for "
                             f"intents (aspects of one topic)")
    picked = axioms.CONSTRAINTS if constraints is None else [axioms.constraint_named(c) for c in constraints]
    if not picked:
        raise UsageError("no constraint to check")
    options = axioms.Options(max_length=max_length, gain=gain, topicwise=topicwise)
    make_settings(gain, topicwise)  # a bad value is a usage error before any work
    return axioms.check(chosen, picked, cases=cases, seed=seed, options=options, progress=progress)


def _meta():
    """The meta-evaluation package, imported when first used: evaluating runs never needs it."""
    from . import meta

    return meta


# -- comparing runs and meta-evaluation (over a score cube: runs x topics x measures) ---------------

ScoresLike = Union["ScoreCube", "pd.DataFrame"]


def score_cube(qrels: str | JudgedDocuments | QrelsLike, runs: RunsLike,
               measures: Iterable[str | Measure] | str | None = None, *, missing: str = "error",
               complete: bool = True, jobs: int = 1, scheduler: Scheduler = None,
               on_run: Callable[[RunScores], None] | None = None, **options) -> ScoreCube:
    """Score runs into a :class:`~divaleval.meta.ScoreCube` (every qrels topic, as ``-c``, by default).

    The options are those of :func:`evaluate`; ``missing`` is what to do with a
    topic some runs have no score for (see :mod:`divaleval.meta.cube`).
    """
    meta = _meta()
    scored = score_runs(qrels, runs, measures, jobs=jobs, scheduler=scheduler, complete=complete, **options)
    if on_run is not None:
        scored = _reported(scored, on_run)
    return meta.cube_from_scores(scored, missing)


def _reported(scored: Iterator[RunScores], on_run: Callable[[RunScores], None]) -> Iterator[RunScores]:
    for scores in scored:
        on_run(scores)
        yield scores


def read_score_cube(paths: str | Iterable[str], measures: Iterable[str] | str | None = None, *,
                    missing: str = "error", warn: WarningSink | bool | None = None) -> ScoreCube:
    """A score cube from files written by ``divaleval -f json`` or in ndeval's CSV (divaleval's default).

    measures: the columns to keep (names as printed, or measure and set names,
    e.g. ``"ndeval"``); default: every column, the same in every file.
    """
    from .io.scores import chosen_columns, read_scores

    meta = _meta()
    tables = [read_scores(path, warning_sink(warn)) for path in ([paths] if isinstance(paths, str) else paths)]
    names = chosen_columns(tables, measures, lambda item: [m.name for m in resolve_measures([item])])
    return meta.cube_from_tables(tables, names, missing)


def as_cube(scores: ScoresLike, missing: str = "error") -> ScoreCube:
    """A score cube, or one built from a frame of :func:`evaluate`."""
    meta = _meta()
    return scores if isinstance(scores, meta.ScoreCube) else meta.cube_from_frame(scores, missing)


def compare(scores: ScoresLike, baseline: str | None = None, *, trials: int = 10_000, seed: int | None = 0,
            level: float = 0.95, correct: str = "pairs", bootstrap: bool = False, scheduler: Scheduler = None,
            progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Compare runs per measure: every run against ``baseline`` (a file, file name or runtag), else every pair.

    One row per (measure, pair): ``mean_a``, ``mean_b``, ``diff`` (a - b); two-sided
    p-values, each with the interval that agrees with it at alpha = 1 - ``level``:
    paired t (``p_t``, Holm-adjusted ``p_t_holm``, Bonferroni interval
    ``ci_t_low``/``ci_t_high``), Fisher randomisation (``p_rand``, its Monte-Carlo
    error ``p_rand_se``, ``p_rand_holm``), the randomised Tukey HSD over all runs
    (``p_hsd``, ``p_hsd_se``, ``ci_hsd_low``/``ci_hsd_high``) and, with
    ``bootstrap``, the paired bootstrap (``p_boot``...); Holm's and Bonferroni's
    family is ``correct``: ``pairs`` (the pairs of each measure) or ``all`` (every
    row); effect sizes ``effect_dz`` (with its interval), ``es_e2``, ``g_av``; the
    unadjusted t interval ``ci_unadjusted_low``/``ci_unadjusted_high``. ``trials``
    trials are drawn from ``seed`` (on a Dask cluster with ``scheduler``: the same
    p-values whatever its number of workers). ``progress`` is told of each block
    of trials done (their number). Rendered as ``divaleval compare`` prints it:
    :func:`divaleval.output.compare.render_comparison`.
    """
    meta = _meta()
    with placed(scheduler=scheduler) as place:
        return meta.compare_runs(as_cube(scores), baseline, trials=trials, seed=seed, level=level, correct=correct,
                                 bootstrap=bootstrap, progress=progress, map_blocks=place.map_blocks)


def rank_correlation(scores: ScoresLike, level: float = 0.95) -> pd.DataFrame:
    """Kendall's tau-b between every two measures' system rankings, with its Fisher-z interval and ties."""
    meta = _meta()
    return meta.rank_correlation(as_cube(scores), level)


def discriminative_power(scores: ScoresLike, *, methods: Iterable[str] | None = None, trials: int = 10_000,
                         seed: int | None = 0, alpha: float = 0.05, scheduler: Scheduler = None) -> pd.DataFrame:
    """Per measure and method (``tukey``, ``bootstrap``, ``bootstrap-maxt``; default the first two), with the
    error it controls (family-wise or per pair): pairs of runs significant at ``alpha``, and the smallest
    significant difference (trials on a Dask cluster with ``scheduler``)."""
    meta = _meta()
    with placed(scheduler=scheduler) as place:
        significance = meta.pair_significance(as_cube(scores), meta.chosen_methods(methods),
                                              trials=trials, seed=seed, map_blocks=place.map_blocks)
    return meta.power_summary(significance, alpha)


def asl_curves(scores: ScoresLike, *, methods: Iterable[str] | None = None, trials: int = 10_000,
               seed: int | None = 0, scheduler: Scheduler = None) -> pd.DataFrame:
    """Per measure and method, every pair of runs with its p-value (ASL), sorted, ranked from 1."""
    meta = _meta()
    with placed(scheduler=scheduler) as place:
        significance = meta.pair_significance(as_cube(scores), meta.chosen_methods(methods),
                                              trials=trials, seed=seed, map_blocks=place.map_blocks)
    return meta.asl_curves(significance)


def metric_unanimity(scores: ScoresLike, reading: str = "strict") -> pd.DataFrame:
    """Metric Unanimity of every measure against the others (Amigó et al. 2018, sec. 6.1), under the ``reading``
    of a unanimous improvement: ``strict`` (every other measure >) or ``pareto`` (>=, at least one >)."""
    meta = _meta()
    return meta.metric_unanimity(as_cube(scores), reading)


def gold_agreement(scores: ScoresLike, gold: str | GoldPreferences, level: float = 0.95) -> pd.DataFrame:
    """Agreement of every measure with gold preferences (a file ``topic runA runB winner``)."""
    from .io.gold import GoldPreferences, read_gold

    meta = _meta()
    return meta.gold_agreement(as_cube(scores), gold if isinstance(gold, GoldPreferences) else read_gold(gold),
                               level)


def meta_evaluate(scores: ScoresLike, sections: Iterable[str] | None = None, *, methods: Iterable[str] | None = None,
                  alpha: float = 0.05, trials: int = 10_000, seed: int | None = 0,
                  gold: str | GoldPreferences | None = None, mu_reading: str = "strict", also: Iterable[str] = (),
                  scheduler: Scheduler = None, progress: Callable[[int], None] | None = None) -> MetaReport:
    """The tables of ``divaleval meta``: the ``sections`` asked for (:data:`divaleval.meta.SECTIONS`; default
    tau-matrix, power, mu, and gold with ``gold``), and those of ``also`` (computed, not printed). Metric
    Unanimity under ``mu_reading`` (:data:`divaleval.meta.READINGS`).

    The trials of the tests run on a Dask cluster with ``scheduler``; ``progress`` is told of each block
    done. Rendered as the command prints it: :func:`divaleval.output.meta.render_meta`.
    """
    from .io.gold import read_gold

    meta = _meta()
    if isinstance(gold, str):
        gold = read_gold(gold)
    with placed(scheduler=scheduler) as place:
        return meta.meta_report(as_cube(scores), sections, methods=methods, alpha=alpha, trials=trials, seed=seed,
                                gold=gold, mu_reading=mu_reading, also=also, progress=progress,
                                map_blocks=place.map_blocks)


def topic_set_sizes(scores: ScoresLike, designs: Iterable[str] | None = None, *, alpha: float = 0.05,
                    power: float = 0.80, min_diff: float = 0.10, ci_width: float = 0.10, systems: int | None = None,
                    variance: str = "residual") -> pd.DataFrame:
    """Topic set size design (Sakai 2016): the topics a new collection needs, per measure of a pilot's scores.

    For each measure, sigma^2 is estimated on the pilot's topics x runs matrix
    (``variance``: ``residual``, the two-way ANOVA's V_E, or ``within``, the
    one-way ANOVA's), and each of ``designs`` (``ttest``, ``anova``, ``ci``;
    default all) gives the smallest number of topics for: a two-sided paired
    t-test at level ``alpha`` to detect a difference ``min_diff`` with
    probability ``power``; a one-way ANOVA over ``systems`` systems (default:
    the pilot's runs) to detect a range ``min_diff`` of their means with that
    power; a ``1 - alpha`` interval of a difference no wider than ``ci_width``
    (expected). Exact power, from the noncentral t and F distributions. One row
    per (measure, design); rendered as ``divaleval topics-needed`` prints it:
    :func:`divaleval.output.topicset.render_topic_set_sizes`.
    """
    from .design import check_pilot, topic_set_sizes as sizes
    from .stats.topicset import Requirement

    cube = as_cube(scores)
    check_pilot(cube)  # before the default number of systems is taken from it
    requirement = Requirement(alpha=alpha, power=power, min_diff=min_diff, ci_width=ci_width,
                              systems=len(cube.runs) if systems is None else systems)
    return sizes(cube, requirement, designs, variance)
