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

# (typing.TYPE_CHECKING without importing typing, 7 ms that a call handed to a server would pay: type checkers
# and griffe know the name)
TYPE_CHECKING = False

# What each public name is imported from: ``import divaleval`` loads none of them (PEP 562's module
# __getattr__ below imports one when first asked for), so that ``divaleval --version`` and ``--help`` start
# without numpy, pyarrow or pandas. ``from divaleval import evaluate`` works as before. The same imports,
# for type checkers and the API reference (griffe reads them), are below; tests/test_startup.py holds the two
# equal.
if TYPE_CHECKING:
    from .aggregate import mean_rows, topic_mean
    from .api import (
        asl_curves, check_axioms, compare, discriminative_power, evaluate, gold_agreement, load_aspects,
        load_preferences, load_qrels, make_evaluator, make_settings, meta_evaluate, metric_unanimity,
        rank_correlation, read_score_cube, resolve_measures, risk, risk_runs, score_cube, score_runs,
        simulate_preferences, topic_set_sizes,
    )
    from .errors import DivalevalError, DivalevalWarning, InputError, UsageError
    from .evaluator import Evaluator
    from .io import RunTable
    from .measures import catalogue, parse_measure, parse_measures
    from .meta import ScoreCube
    from .model import Qrels
    from .results import RunScores

_PUBLIC = {
    **dict.fromkeys(["mean_rows", "topic_mean"], "aggregate"),
    **dict.fromkeys(["asl_curves", "check_axioms", "compare", "discriminative_power", "evaluate", "gold_agreement",
                     "load_aspects", "load_preferences", "load_qrels", "make_evaluator", "make_settings",
                     "meta_evaluate", "metric_unanimity", "rank_correlation", "read_score_cube", "resolve_measures",
                     "risk", "risk_runs", "score_cube", "score_runs", "simulate_preferences", "topic_set_sizes"],
                    "api"),
    **dict.fromkeys(["DivalevalError", "DivalevalWarning", "InputError", "UsageError"], "errors"),
    "Evaluator": "evaluator",
    "RunTable": "io",
    **dict.fromkeys(["catalogue", "parse_measure", "parse_measures"], "measures"),
    "Qrels": "model",
    "RunScores": "results",
    "ScoreCube": "meta",
}

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
    """A public name (imported from its module when first asked for), or a submodule (``divaleval.api``)."""
    import importlib

    module = _PUBLIC.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # asked for once
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module 'divaleval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
