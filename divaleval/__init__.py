"""divaleval: an exact, fast evaluator for diversified and multi-aspect rankings.

The library API is what the command line uses::

    import divaleval
    scores = divaleval.evaluate("qrels.txt", ["runA.txt", "runB.txt"], measures=["alpha-nDCG@20"])
    means = divaleval.mean_rows(scores)
"""
from __future__ import annotations

__version__ = "0.1.0"

from .aggregate import mean_rows, topic_mean
from .api import Evaluator, RunScores, evaluate, load_qrels, resolve_measures
from .errors import DivalevalError, InputError, UsageError
from .io.aspects import load_aspects
from .measures import catalogue, parse_measure, parse_measures

__all__ = [
    "__version__",
    "evaluate",
    "load_qrels",
    "load_aspects",
    "mean_rows",
    "topic_mean",
    "Evaluator",
    "RunScores",
    "resolve_measures",
    "catalogue",
    "parse_measure",
    "parse_measures",
    "DivalevalError",
    "InputError",
    "UsageError",
]
