"""The settings of one evaluation that measure kernels read: gains, topicwise levels, conventions."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..io.table import LEVEL_MAX
from .conventions import NATIVE, Conventions
from .gains import TOPICWISE_RULES, GainTable


@dataclass(frozen=True)
class Settings:
    """Hashable: the qrels-only quantities that depend on settings are cached under them."""

    gain: GainTable = GainTable("exp")
    topicwise: str = "sumlog"
    conventions: Conventions = NATIVE
    rel_min: int = 1  # binary measures count a level >= rel_min as relevant (trec_eval's -l, --rel-min)

    @classmethod
    def parse(cls, gain: str = "exp", topicwise: str = "sumlog", conventions: Conventions = NATIVE,
              rel_min: int = 1) -> "Settings":
        """Settings from option values; a bad value is a :class:`UsageError`."""
        if topicwise not in TOPICWISE_RULES:
            raise UsageError(f"topicwise rule must be one of {', '.join(TOPICWISE_RULES)}, not {topicwise!r}")
        if not isinstance(rel_min, (int, np.integer)) or isinstance(rel_min, bool) or not 1 <= rel_min <= LEVEL_MAX:
            raise UsageError(f"the relevance threshold must be an integer level in [1, {LEVEL_MAX}], not {rel_min!r}")
        return cls(GainTable.parse(gain), topicwise, conventions, int(rel_min))
