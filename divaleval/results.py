"""What scoring a run gives: its per-topic scores and means, keyed by the run's source.

A result belongs to a run *file* (or, for standard input and runs given in
memory, a label), not to its runtag: two files with one runtag are two results.
The runtag is kept beside the key, as the ``runid`` ndeval prints.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from .measures import Measure

RUN = "run"  # the name of the key of every frame of results: the run's source


@dataclass
class RunScores:
    """The scores of one run: per topic, and the mean."""

    source: str          # the run's file (unique within one evaluation), or a label
    runid: str           # the runtag of its first line
    topic_ids: list[str]
    measures: list["Measure"]
    matrix: np.ndarray   # (topics, measures)
    mean: np.ndarray     # (measures,)
    summary_rows: tuple = ()  # further (label, (measures,) values) rows printed after the mean (TRisk)

    def frame(self) -> pd.DataFrame:
        """One row per topic: index ``run`` (the source), columns ``runid``, ``topic`` and one per measure."""
        import pandas as pd  # frames are for the library; the command line streams without them

        data = {"runid": [self.runid] * len(self.topic_ids), "topic": self.topic_ids}
        for j, m in enumerate(self.measures):
            data[m.name] = self.matrix[:, j]
        return pd.DataFrame(data, index=pd.Index([self.source] * len(self.topic_ids), name=RUN))


@dataclass
class RawScores:
    """A run scored but not yet finished: what a worker process sends back."""

    source: str              # the run's key (unique within the evaluation)
    name: str                # its file, or label, as messages name it
    runid: str
    topics: np.ndarray       # qrels topic indices scored
    matrix: np.ndarray       # raw kernel output, NaN where undefined
    messages: list[str]      # warnings about this run, in order


def scores_frame(results: list[RunScores], measure_names: list[str]) -> pd.DataFrame:
    """The per-topic frames of several runs, in their order (empty, with its columns, for none)."""
    import pandas as pd

    if not results:
        return pd.DataFrame(columns=["runid", "topic", *measure_names], index=pd.Index([], name=RUN))
    return pd.concat([scores.frame() for scores in results])
