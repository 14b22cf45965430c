"""Preference-based measures (Chandar & Carterette 2013): nPrf on pairwise and conditional judgments.

:mod:`.utility` holds the utilities of ranked documents and the ideal rankings;
:mod:`.nprf` the stopping distributions P(k) and the measure.

nprf.py registers nPrf when imported, and the catalogue imports it when nPrf is asked for
(:mod:`divaleval.measures.core.table`).
"""
