"""Named measure sets, usable as ``-m NAME``."""
from __future__ import annotations

from .definition import ASPECTS, INTENTS, NONE, PREFERENCES, REQUIRED
from .registry import catalogue

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

# What NTCIR-10 INTENT-2 reported at cutoff 10, intent types included (DIN-NTCIR-eval, DIN-NTCIR-PQeval).
INTENT2_SET = ["I-rec@10", "D-nDCG@10", "D#-nDCG@10", "DIN-nDCG@10", "DIN#-nDCG@10", "P+Q@10", "P+Q#@10"]

MEASURE_SETS: dict[str, list[str]] = {
    "ndeval": NDEVAL_SET,
    "ntcir": NTCIR_SET,
    "intent2": INTENT2_SET,
}

DEFAULT_SET = "ndeval"

# "all": every measure in the catalogue, at these cutoffs where it takes one.
ALL_CUTOFFS = (5, 10, 20)
# Sets that follow the catalogue, by the judgments their measures need.
CATALOGUE_SETS = {"all": INTENTS, "aspects": ASPECTS, "preferences": PREFERENCES}


def expand_set(name: str) -> list[str] | None:
    """The measures of a set name, or None. ``all`` is every measure of intentwise qrels at
    cutoffs 5, 10, 20; ``aspects`` every multi-aspect measure (TOMA, CAM, MM) with its defaults;
    ``preferences`` every measure of preference judgments (nPrf) likewise."""
    if name in CATALOGUE_SETS:
        names = []
        for definition in catalogue():
            if definition.judgments != CATALOGUE_SETS[name]:
                continue
            if definition.cutoff != REQUIRED:
                names.append(definition.name)
            if definition.cutoff != NONE:
                names += [f"{definition.name}@{k}" for k in ALL_CUTOFFS]
        return names
    return MEASURE_SETS.get(name)


def describe_sets() -> str:
    """One line naming every set and what it holds (for the catalogue)."""
    listed = "; ".join(f"{name} = {', '.join(items)}" for name, items in MEASURE_SETS.items())
    return (f"Sets: {listed}; all = every measure of intentwise qrels above, at cutoffs "
            f"{', '.join(map(str, ALL_CUTOFFS[:-1]))} and {ALL_CUTOFFS[-1]} where it takes one; "
            "aspects = every measure of multi-aspect qrels (--aspect); preferences = every measure of "
            "preference judgments (--prefs).")
