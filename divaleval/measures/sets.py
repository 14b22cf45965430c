"""Named measure sets, usable as ``-m NAME``."""
from __future__ import annotations

NDEVAL_SET = [
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20",
    "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20",
    "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
    "NRBP", "nNRBP", "MAP-IA",
    "P-IA@5", "P-IA@10", "P-IA@20",
    "strec@5", "strec@10", "strec@20",
]

# What NTCIR's diversity tasks report.
NTCIR_SET = [f"{name}@{k}" for k in (10, 20, 30) for name in ("I-rec", "D-nDCG", "D#-nDCG")]

MEASURE_SETS: dict[str, list[str]] = {
    "ndeval": NDEVAL_SET,
    "ntcir": NTCIR_SET,
}

DEFAULT_SET = "ndeval"

# "all": every measure in the catalogue, at these cutoffs where it takes one.
ALL_CUTOFFS = (5, 10, 20)
