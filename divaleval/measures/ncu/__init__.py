"""The NCU family (Sakai & Zeng 2019) and its diversity forms: one table (:mod:`.family`),
one set of kernels (:mod:`.kernels`) on gain lists (:mod:`.lists`), one file per form."""
from . import adhoc, diversity, intent_aware

__all__ = ["adhoc", "diversity", "intent_aware"]
