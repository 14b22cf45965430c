"""Preference-based measures (Chandar & Carterette 2013): nPrf on pairwise and conditional judgments.

:mod:`.utility` holds the utilities of ranked documents and the ideal rankings;
:mod:`.nprf` the stopping distributions P(k) and the measure.
"""
from . import nprf

__all__ = ["nprf"]
