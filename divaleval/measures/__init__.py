"""The measure catalogue.

Every measure registers itself with :func:`~divaleval.measures.core.measure`
when its module is imported, and no module is imported before a measure of it is
asked for: :data:`REGISTRY` knows every family's name and module from an index
(:mod:`.core.index`, written by :mod:`.core.indexer`), so that an evaluation imports
the measures it computes and no others, while :func:`catalogue`, ``-m all`` and
``--list-measures`` import them all. The modules:

* :mod:`.core`: definitions, registry, aliases, parsing, sets, kernel helpers, the cache;
* :mod:`.novelty`: ndeval's novelty-biased measures and their graded forms (wg-alpha-nDCG, EU, CT);
* :mod:`.ncu`: the NCU family (nDCG, Q, AP, ERR, RBP, iRBU, ...) and its I-rec, D-, D#- and IA- forms;
* :mod:`.multiaspect`: TOMA, CAM and MM;
* :mod:`.preference`: nPrf, on preference judgments (Chandar & Carterette 2013);
* one file each: MAP-IA, P-IA, strec, S-RR, RBU, GAP, bpref, infAP;
* :mod:`.counts`: trec_eval's binary ad hoc measures (NumRet, Recall, R-Prec, Success, SetP, AP_cut,
  GMAP, IPrec, Judged, Unjudged...).
"""
from __future__ import annotations

from .core import (
    ALIASES,
    DEFAULT_SET,
    MEASURE_SETS,
    NONE,
    OPTIONAL,
    REGISTRY,
    REQUIRED,
    Measure,
    MeasureDef,
    Param,
    catalogue,
    describe_sets,
    measure,
    parse_measure,
    parse_measures,
)

__all__ = [
    "ALIASES", "DEFAULT_SET", "MEASURE_SETS", "NONE", "OPTIONAL", "REGISTRY", "REQUIRED", "Measure", "MeasureDef",
    "Param", "catalogue", "describe_sets", "measure", "parse_measure", "parse_measures",
]
