"""The NCU family (Sakai & Zeng 2019) and its diversity forms: one table (:mod:`.family`),
one set of kernels (:mod:`.kernels`) on gain lists (:mod:`.lists`), one file per form
(:mod:`.intent_types`: the forms that know informational and navigational intents).

Each module of a form registers its measures when imported, and the catalogue imports it when one
of them is asked for (:mod:`divaleval.measures.core.table`).
"""
