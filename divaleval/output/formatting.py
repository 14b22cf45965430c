"""Number formatting exactly as C's printf does it.

Python's ``%`` formatting rounds correctly from the binary value with ties to
even, as glibc's printf does; what differs is NaN, which C on x86-64 prints as
``-nan`` for the NaN that 0.0/0.0 produces (ndeval's undefined values).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..native import fixed_rows


def c_fixed(value: float, digits: int = 6) -> str:
    """``printf("%.<digits>f", value)`` as glibc prints it."""
    if math.isnan(value):
        return "-nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%.*f" % (digits, value)


@lru_cache(maxsize=16)
def _row_template(width: int, digits: int, sep: str) -> str:
    return sep.join([f"%.{digits}f"] * width)


def c_fixed_rows(matrix: np.ndarray, digits: int = 6, sep: str = ",") -> list[str]:
    """Each row of a 2-d ``matrix`` as its values printed by :func:`c_fixed`, joined by ``sep``
    (one formatting operation per row, or the compiled kernel's exact printing: output is a hot path for
    many runs of many topics)."""
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    rows = fixed_rows(matrix, digits, sep)  # the same text, without the GIL (None: not taken)
    if rows is not None:
        return rows
    if not np.isfinite(matrix).all():
        return [sep.join(c_fixed(v, digits) for v in row) for row in matrix.tolist()]
    template = _row_template(matrix.shape[1], digits, sep)
    return [template % tuple(row) for row in matrix.tolist()]
