"""The settings of one evaluation that measure kernels read: gains, topicwise levels, conventions."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from .conventions import NATIVE, Conventions
from .gains import TOPICWISE_RULES, GainTable


@dataclass(frozen=True)
class Settings:
    """Hashable: the qrels-only quantities that depend on settings are cached under them."""

    gain: GainTable = GainTable("exp")
    topicwise: str = "sumlog"
    conventions: Conventions = NATIVE

    @classmethod
    def parse(cls, gain: str = "exp", topicwise: str = "sumlog", conventions: Conventions = NATIVE) -> "Settings":
        """Settings from option values; a bad value is a :class:`UsageError`."""
        if topicwise not in TOPICWISE_RULES:
            raise UsageError(f"topicwise rule must be one of {', '.join(TOPICWISE_RULES)}, not {topicwise!r}")
        return cls(GainTable.parse(gain), topicwise, conventions)
