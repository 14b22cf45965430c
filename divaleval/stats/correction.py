"""Multiple-comparison correction: Holm's step-down adjustment."""
from __future__ import annotations

import numpy as np


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values; the family is axis 0 (one column per independent family).

    Sorted ascending, p_(i) becomes max_{j <= i} min(1, (m - j + 1) p_(j)) (Holm 1979),
    so adjusted values keep the order of the raw ones. A NaN p-value is left NaN
    and does not count in the family.
    """
    p = np.asarray(p, dtype=np.float64)
    flat = p.reshape(p.shape[0], -1) if p.ndim else p.reshape(1, 1)
    adjusted = np.full(flat.shape, np.nan)
    for column in range(flat.shape[1]):
        values = flat[:, column]
        known = np.flatnonzero(~np.isnan(values))
        if not known.size:
            continue
        order = known[np.argsort(values[known], kind="stable")]
        m = order.size
        scaled = np.minimum(1.0, (m - np.arange(m)) * values[order])
        adjusted[order, column] = np.maximum.accumulate(scaled)
    return adjusted.reshape(p.shape)
