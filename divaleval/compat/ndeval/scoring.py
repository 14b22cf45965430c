"""Scoring a run as ndeval does: its 21 columns, in its order, zero rows for run topics the qrels lack,
and the NaNs it makes (0 / 0, a NaN alpha or beta)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...engine import score_matrix
from ...errors import WarningSink
from ...measures import REGISTRY, Measure
from ...memory import release_unused_memory
from ...model.qrels import Qrels
from ...ranking import rank_run
from .options import Options
from .ordering import group_table, topic_groups
from .reading import read_run

CUTOFFS = (5, 10, 20)
ALPHA_MEASURES = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP")  # those alpha changes
BETA_MEASURES = ("NRBP", "nNRBP")


def ndeval_measures(alpha: float, beta: float) -> list[Measure]:
    """ndeval's 21 columns, in its order, with its alpha and beta."""
    def bind(name: str, cutoff: int | None = None, **params: float) -> Measure:
        return REGISTRY[name].bind(params, cutoff)

    measures = []
    for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG"):
        measures += [bind(name, k, alpha=alpha) for k in CUTOFFS]
    measures += [bind("NRBP", alpha=alpha, beta=beta), bind("nNRBP", alpha=alpha, beta=beta), bind("MAP-IA")]
    for name in ("P-IA", "strec"):
        measures += [bind(name, k) for k in CUTOFFS]
    return measures


COLUMNS = [
    f"{name}@{k}" for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in CUTOFFS
] + ["NRBP", "nNRBP", "MAP-IA"] + [f"{name}@{k}" for name in ("P-IA", "strec") for k in CUTOFFS]


def _columns_of(measures: tuple[str, ...]) -> np.ndarray:
    """The positions of these measures' columns (at every cutoff)."""
    return np.array([j for j, column in enumerate(COLUMNS) if column.split("@")[0] in measures])


ALPHA_COLUMNS = _columns_of(ALPHA_MEASURES)
BETA_COLUMNS = _columns_of(BETA_MEASURES)
C_NAN = math.copysign(math.nan, -1.0)  # what 0.0 / 0.0 gives in C on x86 (printed -nan)


@dataclass
class ScoredRun:
    runid: str
    topics: list[int]        # every run topic, ascending
    matrix: np.ndarray       # (topics, 21); zero rows for topics the qrels lack
    in_qrels: int            # run topics that the qrels have


def score(qrels: Qrels, path: str, opts: Options, measures: list[Measure], warn: WarningSink) -> ScoredRun:
    run = read_run(path, opts.traditional, warn)
    rows: dict[int, np.ndarray] = {}
    in_qrels = 0
    judged_topics = qrels.rel_count.sum(axis=1) > 0
    for lines in topic_groups(run.topic):
        table, order = group_table(run, lines, opts.traditional)
        ranked = rank_run(table, qrels, order=order, depth=opts.depth or None, duplicates_within_depth=True,
                          advice=False)
        known = score_matrix(qrels, ranked, measures, ranked.topics)
        known[np.isnan(known)] = C_NAN  # the only NaN ndeval makes with a numeric alpha and beta is 0/0
        for values, t in zip(known, ranked.topics):
            if judged_topics[t]:
                _mark_nan_parameters(values, opts)
            rows[int(qrels.topic_ids[t])] = values
        for topic in ranked.unknown_topics:
            rows[int(topic)] = np.zeros(len(measures))
        in_qrels += len(ranked.topics)
        del table, ranked
        release_unused_memory()  # the group's hash tables and temporaries
    topics = sorted(rows)
    matrix = np.array([rows[t] for t in topics]).reshape(len(topics), len(measures))
    return ScoredRun(run.runid, topics, matrix, in_qrels)


def _mark_nan_parameters(values: np.ndarray, opts: Options) -> None:
    """A NaN alpha (or beta) makes every value that depends on it NaN, of its sign, in a topic with relevant
    documents (one without stops before using them)."""
    if math.isnan(opts.beta):
        values[BETA_COLUMNS] = opts.beta
    if math.isnan(opts.alpha):
        values[ALPHA_COLUMNS] = opts.alpha
