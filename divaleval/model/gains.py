"""Gain tables and topicwise levels: how relevance levels become gains.

* ``exp`` (default): gain(L) = 2^L - 1 (NTCIREVAL's diversity scripts, ERR);
* ``linear``: gain(L) = L;
* an explicit table ``G1:G2:...``, the gains of levels 1, 2, ... (NTCIREVAL's ``-g``);
  a level above the table takes its last gain.
Levels <= 0 have gain 0.

A topicwise (intent-agnostic) level is derived from intentwise levels by
Sakai & Zeng's rule, ``sumlog``: floor(log2(S + 1)) with S the sum of the positive
levels (4 and 3 give S = 7, level 3), or by ``max``, the largest level.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError

TOPICWISE_RULES = ("sumlog", "max")


@dataclass(frozen=True)
class GainTable:
    kind: str                            # "exp", "linear" or "table"
    table: tuple[float, ...] = ()        # gains of levels 1.. for "table"

    @staticmethod
    def parse(text: str) -> "GainTable":
        text = text.strip()
        if text in ("exp", "linear"):
            return GainTable(text)
        try:
            values = tuple(float(v) for v in text.split(":"))
        except ValueError:
            raise UsageError(f"gain table {text!r}: expected exp, linear or G1:G2:... (numbers)") from None
        if not values or any(not np.isfinite(v) or v < 0 for v in values):
            raise UsageError(f"gain table {text!r}: gains must be finite and >= 0")
        return GainTable("table", values)

    def __str__(self) -> str:
        return self.kind if self.kind != "table" else ":".join(f"{v:g}" for v in self.table)

    def gains(self, levels: np.ndarray) -> np.ndarray:
        """Gain of each level (float64), 0 for levels <= 0."""
        levels = np.asarray(levels)
        positive = np.maximum(levels, 0).astype(np.int64)
        if self.kind == "exp":
            out = np.exp2(positive.astype(np.float64)) - 1.0
        elif self.kind == "linear":
            out = positive.astype(np.float64)
        else:
            table = np.concatenate([[0.0], np.asarray(self.table)])
            out = table[np.minimum(positive, len(self.table))]
        return out

    def top_gain(self) -> float | None:
        """The largest gain of an explicit table (NTCIREVAL's hg with -g), else None."""
        return max(self.table) if self.kind == "table" else None


def topicwise_levels(levels: np.ndarray, rule: str) -> np.ndarray:
    """One level per document from its (documents, intents) levels."""
    positive = np.maximum(levels.astype(np.int64), 0)
    if rule == "max":
        return positive.max(axis=1, initial=0)
    total = positive.sum(axis=1)
    # floor(log2(S + 1)) in integers: the bit length of S + 1, minus one; below 2**53, S + 1 is exact as a
    # double and frexp's exponent is that bit length.
    if total.max(initial=0) < 2 ** 53 - 1:
        return (np.frexp((total + 1).astype(np.float64))[1] - 1).astype(np.int64)
    return np.frompyfunc(lambda s: (int(s) + 1).bit_length() - 1, 1, 1)(total).astype(np.int64)
