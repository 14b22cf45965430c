"""Ordering of topic and intent ids.

Ids are strings. Numeric ids sort by value (``2`` before ``10``), as in ndeval
and trec_eval; other ids sort as strings, after the numeric ones.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np


def natural_key(identifier: str) -> tuple:
    if identifier.isascii() and identifier.isdigit():
        return (0, int(identifier), identifier)
    return (1, 0, identifier)


def natural_order(identifiers: Iterable[str]) -> list[str]:
    return sorted(identifiers, key=natural_key)


def factorize_sorted(values: np.ndarray, key=None) -> tuple[np.ndarray, list[str]]:
    """Codes of ``values`` into their sorted distinct values.

    Sorting uses ``key`` (default: plain string order, which for UTF-8 text is
    the byte order ``strcmp`` uses).
    """
    import pandas as pd

    codes, uniques = pd.factorize(values, sort=False)
    uniques = list(uniques)
    order = sorted(range(len(uniques)), key=(lambda j: key(uniques[j])) if key else uniques.__getitem__)
    remap = np.empty(len(uniques), dtype=np.int64)
    remap[np.asarray(order, dtype=np.int64)] = np.arange(len(uniques), dtype=np.int64)
    return remap[codes], [uniques[j] for j in order]
