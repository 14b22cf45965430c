"""The measure catalogue.

Every measure registers itself with :func:`~divaleval.measures.core.measure`
when its module is imported; the imports below are the whole catalogue:

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

from . import bpref, counts, gap, infap, map_ia, multiaspect, ncu, novelty, p_ia, preference, rbu, srr, strec  # noqa: F401 (they register)
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
