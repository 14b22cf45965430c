"""The judgments in array form, and what an evaluation is configured with.

* :mod:`.qrels`: intentwise (and ad hoc) qrels as arrays, intent weights;
* :mod:`.aspects`: multi-aspect qrels;
* :mod:`.gains`: how levels become gains; :mod:`.settings`: one evaluation's settings;
* :mod:`.conventions`: where a reference tool's rules differ from divaleval's own.

Nothing here reads a file (that is :mod:`divaleval.io`) or knows a measure.
"""
from .aspects import Aspect, build_aspect_qrels
from .conventions import NATIVE, Conventions
from .gains import TOPICWISE_RULES, GainTable, topicwise_levels
from .qrels import Qrels, build_qrels
from .settings import Settings

__all__ = [
    "Aspect", "build_aspect_qrels", "NATIVE", "Conventions", "TOPICWISE_RULES", "GainTable",
    "topicwise_levels", "Qrels", "build_qrels", "Settings",
]
