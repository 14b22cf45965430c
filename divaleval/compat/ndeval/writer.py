"""ndeval's CSV: a row per topic, then the mean, printed as its C prints them."""
from __future__ import annotations

import math
from typing import TextIO

import numpy as np

from ...aggregate import topic_mean
from ...model.qrels import Qrels
from ...output.formatting import c_fixed
from ...output.streams import write_text
from .options import Options
from .risk import risk_rows
from .scoring import C_NAN, COLUMNS, ScoredRun


def c_mean(matrix: np.ndarray, divisor: int) -> np.ndarray:
    """Column sums in row order, as ndeval adds them, divided by ``divisor`` (aggregate's topic mean).

    A sum meeting NaNs is the last NaN added (its sign printed as ndeval
    prints it); any other NaN is C's 0 / 0.
    """
    mean = topic_mean(matrix, divisor, last_nan=True)
    mean[np.isnan(mean) & ~np.isnan(matrix).any(axis=0)] = C_NAN
    return mean


def c_number(value: float) -> str:
    """printf("%.6f") of a value, NaN with its sign as glibc prints it."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return c_fixed(value)


def csv_text(qrels: Qrels, run: ScoredRun, baseline: ScoredRun | None, opts: Options) -> str:
    """ndeval's CSV: a row per topic, then the mean (over the run's topics in the qrels, or with -c all of them)."""
    divisor = qrels.n_topics if opts.complete else run.in_qrels
    if baseline is None:
        label, base = run.runid, ScoredRun(run.runid, [], np.zeros((0, len(COLUMNS))), 0)
    else:
        label, base = f"{run.runid} (rel to. {baseline.runid}; rs=1+a; a={opts.risk_alpha_text})", baseline
    topics, printed, added = risk_rows(run, base, opts)
    if baseline is not None:
        divisor = max(divisor, len(topics))
    lines = [",".join(["runid", "topic", *COLUMNS])]
    lines += [",".join([label, str(topic), *map(c_number, values)]) for topic, values in zip(topics, printed)]
    lines.append(",".join([label, "amean", *map(c_number, c_mean(added, divisor))]))
    return "\n".join(lines) + "\n"


def write_csv(out: TextIO, qrels: Qrels, run: ScoredRun, baseline: ScoredRun | None, opts: Options) -> None:
    """The CSV, with the runids' bytes as they were in the run files."""
    write_text(out, csv_text(qrels, run, baseline, opts))
