"""Number formatting exactly as C's printf does it.

Python's ``%`` formatting rounds correctly from the binary value with ties to
even, as glibc's printf does; what differs is NaN, which C on x86-64 prints as
``-nan`` for the NaN that 0.0/0.0 produces (ndeval's undefined values).
"""
from __future__ import annotations

import math


def c_fixed(value: float, digits: int = 6) -> str:
    """``printf("%.<digits>f", value)`` as glibc prints it."""
    if math.isnan(value):
        return "-nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%.*f" % (digits, value)
