"""Per topic and measure, the best, median and worst score over all runs: the summary a track sends out.

TREC and NTCIR send each participant its run's per-topic scores beside the
best, median and worst of all submitted runs. Here they are over the runs of the
cube: ``best`` = max, ``worst`` = min, ``median`` the middle score (the mean of
the two middle ones for an even number of runs, as ``numpy.median``);
``best_run`` is the first run (in the cube's order) with the best score and
``best_count`` how many runs share it (every run, on a topic all score 0).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..meta import ScoreCube

if TYPE_CHECKING:
    import pandas as pd

SUMMARY_COLUMNS = ["topic", "measure", "best", "median", "worst", "best_run", "best_count"]


def topic_summary(cube: ScoreCube, labels: Sequence[str]) -> pd.DataFrame:
    """One row per (topic, measure), topics in the cube's order and measures within: :data:`SUMMARY_COLUMNS`
    (runs named by ``labels``)."""
    import pandas as pd

    values = cube.values                                   # (runs, topics, measures)
    best = values.max(axis=0)
    worst = values.min(axis=0)
    median = np.median(values, axis=0)
    at_best = values == best[None]
    first = at_best.argmax(axis=0)                         # the first run with the best score
    names = np.asarray(labels, dtype=object)
    return pd.DataFrame({
        "topic": np.repeat(np.array(cube.topics, dtype=object), len(cube.measures)),
        "measure": np.tile(np.array(cube.measures, dtype=object), len(cube.topics)),
        "best": best.ravel(), "median": median.ravel(), "worst": worst.ravel(),
        "best_run": names[first.ravel()], "best_count": at_best.sum(axis=0).ravel(),
    }, columns=SUMMARY_COLUMNS)


def run_topic_view(cube: ScoreCube, summary: pd.DataFrame, run: int, measure: str) -> pd.DataFrame:
    """One run's per-topic scores under ``measure`` beside the topic's best, median and worst, with its
    difference from the median (``vs_median``): topic, score, best, median, worst, vs_median."""
    block = summary[summary["measure"] == measure]
    frame = block[["topic", "best", "median", "worst"]].reset_index(drop=True)
    frame.insert(1, "score", cube.values[run, :, cube.measures.index(measure)])
    frame["vs_median"] = frame["score"] - frame["median"]
    return frame
