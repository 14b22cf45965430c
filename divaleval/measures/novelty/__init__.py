"""Measures built on novelty gains (1 - alpha)^c(r, i): ndeval's, and their graded, weighted forms.

:mod:`.gains` holds ndeval's binary novelty gains and greedy ideal; :mod:`.graded`
the gains with intent weights and graded relevance that wg-alpha-nDCG, EU and CT share.

Each measure's module registers it when imported, and the catalogue imports it when it is asked for
(:mod:`divaleval.measures.core.table`): ndeval's measures do not load the graded ones.
"""
