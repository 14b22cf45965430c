"""Multi-aspect measures (Maistro et al. 2021): TOMA on the weights of :mod:`.spaces`, CAM and MM
over the aspects; all on a single-aspect measure of the NCU family (:mod:`.common`).

Each measure's module registers it when imported, and the catalogue imports it when it is asked for
(:mod:`divaleval.measures.core.table`).
"""
