"""The NCU family (Sakai & Zeng 2019) and its diversity forms: one table (:mod:`.family`),
one set of kernels (:mod:`.kernels`) on gain lists (:mod:`.lists`), one file per form
(:mod:`.intent_types`: the forms that know informational and navigational intents)."""
from . import adhoc, diversity, intent_aware, intent_types

__all__ = ["adhoc", "diversity", "intent_aware", "intent_types"]
