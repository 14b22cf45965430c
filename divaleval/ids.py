"""Ordering of topic and intent ids.

Ids are strings. Numeric ids sort by value (``2`` before ``10``), as in ndeval
and trec_eval; other ids sort as strings, after the numeric ones.
"""
from __future__ import annotations

import numpy as np


def natural_key(identifier: str) -> tuple:
    if identifier.isascii() and identifier.isdigit():
        return (0, int(identifier), identifier)
    return (1, 0, identifier)


def sort_labels(codes: np.ndarray, labels, key=None) -> tuple[np.ndarray, list[str]]:
    """Re-code ``codes`` (into ``labels``) so that code order is label order.

    Sorting uses ``key`` (default: plain string order, which for UTF-8 text is
    the byte order ``strcmp`` uses). Labels are sorted once, not per value.
    """
    labels = list(labels)
    order = sorted(range(len(labels)), key=(lambda j: key(labels[j])) if key else labels.__getitem__)
    remap = np.empty(len(labels), dtype=np.int32 if len(labels) < 2**31 else np.int64)
    remap[np.asarray(order, dtype=np.int64)] = np.arange(len(labels))
    return remap[codes], [labels[j] for j in order]
