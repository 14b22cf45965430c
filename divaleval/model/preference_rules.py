"""How a tool reads, estimates, simulates and scores preference judgments: :class:`PreferenceRules`.

Apart from :mod:`divaleval.model.preferences` because every evaluation's
:class:`~divaleval.model.conventions.Conventions` carry a rule set, while only one with
preference judgments needs their model.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..io.lines import REPEAT_BLANK, SKIP_BLANK  # (not io.preferences: only preferences load that reader)

PREFERENCE_IDEALS = ("greedy", "largest")


@dataclass(frozen=True)
class PreferenceRules:
    """How preference judgments are read, estimated, simulated and scored. Hashable: it keys cached ideals.

    The defaults are the paper's (and divaleval's own); a tool's rules live in :mod:`divaleval.compat`.

    blank_lines: what a blank line of a judgments file is, ``skip`` or
        ``repeat`` (the judgment above it again).
    smoothing: utilities are preferred / (shown + this); with it > 0 an
        estimate is never undefined (0 when nothing was shown).
    utility_with_unconditional: from rank 2 on, F also takes U(d_i) itself
        (the paper's F ranges over U(d_i | d_j), j < i, only).
    minimum_skips_unseen_given: F = minimum leaves out the documents above
        that were never the given document of a triplet.
    cumulate_weighted_utility: Prf@K = sum_{k<=K} sum_{i<=k} P(i) U_i instead
        of the paper's sum_{k<=K} P(k) sum_{i<=k} U_i.
    ideal: ``greedy`` (the paper's greedy ranking) or ``largest`` (the K
        largest utilities of the (given document, document) table, sorted).
    simulated_covered_weight: in simulated conditional preferences, an
        intent the given document is relevant to counts this much (the paper: 0).
    """

    blank_lines: str = SKIP_BLANK
    smoothing: float = 0.0
    utility_with_unconditional: bool = False
    minimum_skips_unseen_given: bool = False
    cumulate_weighted_utility: bool = False
    ideal: str = "greedy"
    simulated_covered_weight: float = 0.0

    def __post_init__(self) -> None:
        if self.blank_lines not in (SKIP_BLANK, REPEAT_BLANK):
            raise ValueError(f"blank_lines must be {SKIP_BLANK} or {REPEAT_BLANK}")
        if self.ideal not in PREFERENCE_IDEALS:
            raise ValueError(f"ideal must be one of {', '.join(PREFERENCE_IDEALS)}")


PAPER_RULES = PreferenceRules()
