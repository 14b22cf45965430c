"""Risk-sensitive evaluation against a baseline run, for any measure (URisk and TRisk; :mod:`divaleval.stats.risk`).

A run's per-topic scores become risk-adjusted differences from the baseline's
on the same topics; their mean is URisk, and two rows follow it: TRisk and its
two-sided p-value. A topic the baseline did not answer counts as a baseline
score of 0 (what the baseline scores with ``-c``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from ..results import RunScores
from ..stats.risk import risk_adjusted, risk_test

if TYPE_CHECKING:
    import pandas as pd

TRISK_ROW, TRISK_P_ROW = "TRisk", "TRisk-p"
RISK_COLUMNS = ["run", "runid", "baseline", "measure", "topics", "alpha", "URisk", "TRisk", "p"]


def risk_scores(run: RunScores, baseline: RunScores, alpha: float,
                warn: Callable[[str], None] = lambda message: None) -> RunScores:
    """The run's risk-adjusted differences from the baseline (per topic), URisk as the mean, TRisk and p after it."""
    if [m.name for m in run.measures] != [m.name for m in baseline.measures]:
        raise ValueError("the run and the baseline were scored with different measures")
    by_topic = dict(zip(baseline.topic_ids, baseline.matrix))
    zeros = np.zeros(len(run.measures))
    base = np.array([by_topic.get(topic, zeros) for topic in run.topic_ids]).reshape(run.matrix.shape)
    z = risk_adjusted(run.matrix, base, alpha)
    if len(run.topic_ids) < 2:
        warn(f"{run.source}: TRisk needs at least two topics; printed as 0 (p = 1)")
        urisk = np.cumsum(z, axis=0)[-1] / len(z) if len(z) else zeros
        trisk, p = zeros, np.ones(len(run.measures))
    else:
        test = risk_test(z)
        urisk, trisk, p = test.urisk, test.trisk, test.p
    return RunScores(run.source, run.runid, run.topic_ids, run.measures, z, urisk,
                     summary_rows=((TRISK_ROW, trisk), (TRISK_P_ROW, p)))


def risk_frame(scores: list[RunScores], baseline: str, alpha: float) -> pd.DataFrame:
    """One row per (run, measure) of :func:`risk_scores` results against the baseline named ``baseline``:
    URisk, TRisk, p (columns :data:`RISK_COLUMNS`)."""
    import pandas as pd

    rows = []
    for result in scores:
        summary = dict(result.summary_rows)
        for j, m in enumerate(result.measures):
            rows.append([result.source, result.runid, baseline, m.name, len(result.topic_ids), alpha,
                         float(result.mean[j]), float(summary[TRISK_ROW][j]), float(summary[TRISK_P_ROW][j])])
    return pd.DataFrame(rows, columns=RISK_COLUMNS)
