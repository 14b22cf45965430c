"""The judgments in array form, and what an evaluation is configured with.

Every kind of judgments is its own class over one index of judged documents:

* :mod:`.judged`: :class:`JudgedDocuments`, per topic the judged documents as
  rows sorted by docno: all that matching a run and ranking it need (row keys,
  docnos, where each topic's rows start), and the cache of what measures derive;
* :mod:`.qrels`: :class:`Qrels`, intentwise (and ad hoc) qrels: a level per
  (row, intent), relevant counts and intent weights; most measures need these;
* :mod:`.aspects`: :class:`AspectQrels`, multi-aspect qrels: intentwise qrels
  whose intents are the aspects, with the :class:`Aspect` of each (TOMA, CAM, MM);
* :mod:`.preferences`: :class:`PreferenceQrels`, preference judgments: the
  counts of each document, shown and preferred, with no intents (nPrf);
* :mod:`.preference_rules`: :class:`PreferenceRules`, how a tool reads and scores them.

A measure fits judgments of the class of its kind (a type test,
:meth:`divaleval.measures.Measure.check`); a new kind of judgments is a new
subclass of :class:`JudgedDocuments`, and widens no other class.

* :mod:`.preference_simulation`: preference judgments simulated from intentwise qrels;
* :mod:`.gains`: how levels become gains; :mod:`.settings`: one evaluation's settings;
* :mod:`.conventions`: where a reference tool's rules differ from divaleval's own;
* :mod:`.text_keys`: the hashed (topic, docno) keys runs are matched with.

Nothing here reads a file (that is :mod:`divaleval.io`) or knows a measure.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

# Each name is imported from its module when first asked for (PEP 562, as divaleval.io does): scoring
# intentwise qrels loads neither the multi-aspect nor the preference model, nor their readers.
if TYPE_CHECKING:
    from .aspects import Aspect, AspectQrels, build_aspect_qrels
    from .conventions import NATIVE, Conventions
    from .gains import TOPICWISE_RULES, GainTable, topicwise_levels
    from .judged import JudgedDocuments
    from .preference_rules import PreferenceRules
    from .preferences import PreferenceQrels, build_preference_qrels
    from .qrels import Qrels, build_qrels
    from .settings import Settings

_SOURCES = {
    **dict.fromkeys(["Aspect", "AspectQrels", "build_aspect_qrels"], "aspects"),
    **dict.fromkeys(["NATIVE", "Conventions"], "conventions"),
    **dict.fromkeys(["TOPICWISE_RULES", "GainTable", "topicwise_levels"], "gains"),
    "JudgedDocuments": "judged",
    **dict.fromkeys(["PreferenceQrels", "build_preference_qrels"], "preferences"),
    "PreferenceRules": "preference_rules",
    **dict.fromkeys(["Qrels", "build_qrels"], "qrels"),
    "Settings": "settings",
}


__getattr__ = lazy_names(__name__, _SOURCES)


__all__ = [
    "Aspect", "AspectQrels", "build_aspect_qrels", "NATIVE", "Conventions", "TOPICWISE_RULES", "GainTable",
    "topicwise_levels", "JudgedDocuments", "PreferenceQrels", "PreferenceRules", "build_preference_qrels",
    "Qrels", "build_qrels", "Settings",
]
