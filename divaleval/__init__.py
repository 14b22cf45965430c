"""divaleval: an exact, fast evaluator for diversified and multi-aspect rankings.

The library API is what the command line uses::

    import divaleval
    scores = divaleval.evaluate("qrels.txt", ["runA.txt", "runB.txt"], measures=["alpha-nDCG@20"])
    means = divaleval.mean_rows(scores)

Judgments and runs can also be built in memory: :meth:`Qrels.from_frame`,
:meth:`Qrels.from_arrays`, :meth:`RunTable.from_arrays`.
"""
from __future__ import annotations

__version__ = "0.1.0"

import os as _os

# Before pyarrow loads: Arrow's allocator (mimalloc) gives the pages of freed buffers back after 50 ms
# instead of holding them for longer, so that the parser buffers of runs read one after another do not
# pile up (peak memory for many runs stays near that for one, at no measurable cost in time). A value
# the user set is kept.
_os.environ.setdefault("MIMALLOC_PURGE_DELAY", "50")

from .aggregate import mean_rows, topic_mean
from .api import (
    asl_curves, check_axioms, compare, discriminative_power, evaluate, gold_agreement, load_aspects,
    load_preferences, load_qrels, make_evaluator, make_settings, meta_evaluate, metric_unanimity, rank_correlation,
    read_score_cube, resolve_measures, risk, risk_runs, score_cube, score_runs, simulate_preferences,
)
from .api import topic_set_sizes
from .errors import DivalevalError, DivalevalWarning, InputError, UsageError
from .evaluator import Evaluator
from .io import RunTable
from .measures import catalogue, parse_measure, parse_measures
from .model import Qrels
from .results import RunScores

__all__ = [
    "__version__",
    "evaluate",
    "score_runs",
    "check_axioms",
    "make_evaluator",
    "load_qrels",
    "load_aspects",
    "load_preferences",
    "simulate_preferences",
    "make_settings",
    "mean_rows",
    "topic_mean",
    "Evaluator",
    "RunScores",
    "Qrels",
    "RunTable",
    "resolve_measures",
    "catalogue",
    "parse_measure",
    "parse_measures",
    "score_cube",
    "read_score_cube",
    "ScoreCube",
    "compare",
    "rank_correlation",
    "discriminative_power",
    "asl_curves",
    "metric_unanimity",
    "meta_evaluate",
    "gold_agreement",
    "topic_set_sizes",
    "risk",
    "risk_runs",
    "DivalevalError",
    "InputError",
    "UsageError",
    "DivalevalWarning",
]


def __getattr__(name: str):
    """``divaleval.ScoreCube``, imported when first asked for (evaluating runs does not need it)."""
    if name == "ScoreCube":
        from .meta import ScoreCube

        return ScoreCube
    raise AttributeError(f"module 'divaleval' has no attribute {name!r}")
