"""Measures built on novelty gains (1 - alpha)^c(r, i): ndeval's, and their graded, weighted forms.

:mod:`.gains` holds ndeval's binary novelty gains and greedy ideal; :mod:`.graded`
the gains with intent weights and graded relevance that wg-alpha-nDCG, EU and CT share.
"""
from . import alpha_dcg, alpha_ndcg, ct, err_ia, eu, nerr_ia, nnrbp, nrbp, wg_alpha_ndcg

__all__ = ["alpha_dcg", "alpha_ndcg", "ct", "err_ia", "eu", "nerr_ia", "nnrbp", "nrbp", "wg_alpha_ndcg"]
