"""Reading NTCIREVAL's oracle tables and naming their values as divaleval measures."""
from __future__ import annotations

import csv
from pathlib import Path

# (NTCIREVAL measure without "@cutoff", source) -> divaleval measure name pattern ({k}: the cutoff).
DIVERSITY = {
    ("I-rec", "D-NTCIR-eval"): "I-rec@{k}",
    ("MSnDCG", "D-NTCIR-eval"): "D-nDCG@{k}",
    ("Q", "D-NTCIR-eval"): "D-Q@{k}",
    ("ERR", "D-NTCIR-eval"): "D-ERR@{k}",
    ("nERR", "D-NTCIR-eval"): "D-nERR@{k}",
    ("EBR", "D-NTCIR-eval"): "D-EBR@{k}",
    ("RBP", "D-NTCIR-eval"): "D-RBP@{k}",
    ("iRBU", "D-NTCIR-eval"): "D-iRBU@{k}",
    ("D#-Q", "D-NTCIR-eval"): "D#-Q@{k}",
    ("D#-MSnDCG", "D-NTCIR-eval"): "D#-nDCG@{k}",
    ("D#-RBP", "D-NTCIR-eval"): "D#-RBP@{k}",
    ("D#-EBR", "D-NTCIR-eval"): "D#-EBR@{k}",
    ("D#-RBU", "D-NTCIR-eval"): "D#-RBU@{k}",
    ("RBP", "D-NTCIR-eval2"): "D-RBP(p=0.99)@{k}",
    ("D#-ERR", "D-NTCIR-eval2"): "D#-ERR@{k}",
    ("D#-nDCG", "D-NTCIR-eval2"): "D#-nDCG@{k}",
    ("D#-RBP", "D-NTCIR-eval2"): "D#-RBP(p=0.99)@{k}",
    ("IA-MSnDCG", "D-NTCIR-IAeval-more"): "IA-nDCG@{k}",
    ("IA-Q", "D-NTCIR-IAeval-more"): "IA-Q@{k}",
    ("IA-ERR", "D-NTCIR-IAeval-more"): "IA-ERR@{k}",
    ("IA-nERR", "D-NTCIR-IAeval-more"): "IA-nERR@{k}",
    ("IA-RBP", "D-NTCIR-IAeval-more"): "IA-RBP@{k}",
    ("IA-iRBU", "D-NTCIR-IAeval-more"): "IA-iRBU@{k}",
}
ADHOC = {
    **{(m, "NTCIR-eval-adhoc"): f"{d}@{{k}}" for m, d in [
        ("AP", "AP"), ("Q", "Q"), ("MSnDCG", "nDCG"), ("Prec", "Prec"), ("RBP", "RBP"), ("nRBP", "nRBP"),
        ("ERR", "ERR"), ("nERR", "nERR"), ("EBR", "EBR"), ("nEBR", "nEBR"), ("iRBU", "iRBU"),
        ("niRBU", "niRBU")]},
    # Without a cutoff: the whole list.
    **{(m, "NTCIR-eval-adhoc", "whole"): d for m, d in [
        ("RR", "RR"), ("AP", "AP"), ("Q-measure", "Q"), ("RBP", "RBP"), ("ERR", "ERR"), ("EBR", "EBR"),
        ("iRBU", "iRBU")]},
}


def _named_rows(path: Path, mapping: dict, cutoff: int):
    """(row, divaleval measure name) for the rows of an oracle table that the mapping names."""
    with open(path) as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            name, _, at = row["measure"].partition("@")
            pattern = mapping.get((name, row["source"]) if at else (name, row["source"], "whole"))
            if pattern is not None:
                yield row, pattern.format(k=cutoff)


def expected_values(path: Path, mapping: dict, cutoff: int) -> dict[tuple[str, str, str], float]:
    """(run, topic, divaleval measure) -> value."""
    return {(row["run"], row["topic"], name): float(row["value"]) for row, name in _named_rows(path, mapping, cutoff)}


def expected_means(path: Path, mapping: dict, cutoff: int) -> dict[tuple[str, str], float]:
    """(run, divaleval measure) -> mean."""
    return {(row["run"], name): float(row["mean"]) for row, name in _named_rows(path, mapping, cutoff)}
