"""Conventions: the rules a reference tool follows where they differ from divaleval's own.

An evaluation consults one :class:`Conventions` object instead of asking which
tool it imitates. :data:`NATIVE` is divaleval's own: every rounding step is the
identity and the defaults are the native command's, so it changes nothing.
The objects that reproduce a tool live in :mod:`divaleval.compat`, one file each.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .preference_rules import PAPER_RULES, PreferenceRules

CONVENTION_DUPLICATES = ("error", "keep")


def round_decimals(values: np.ndarray, decimals: int | None) -> np.ndarray:
    """Each value as printf's ``%.<decimals>f`` prints it, read back; unchanged for None."""
    if decimals is None:
        return values
    values = np.asarray(values, dtype=np.float64)
    return np.array([float(f"{v:.{decimals}f}") for v in values.reshape(-1)]).reshape(values.shape)


def round_significant(values: np.ndarray, digits: int | None) -> np.ndarray:
    """Each value as printf's ``%.<digits>g`` prints it, read back; unchanged for None."""
    if digits is None:
        return values
    values = np.asarray(values, dtype=np.float64)
    return np.array([float(f"{v:.{digits}g}") for v in values.reshape(-1)]).reshape(values.shape)


@dataclass(frozen=True)
class Conventions:
    """How runs are read and numbers rounded. Hashable: it keys cached quantities.

    order, depth: the defaults when the user gives none (an explicit option wins).
    duplicates: a docno repeated within a topic is an ``error`` (``--dedupe``
        keeps the first copy) or ``keep`` (evaluated at each of its ranks).
    value_decimals: per-topic values are rounded to this many decimals.
    component_decimals: the components of combined measures (D#, IA) are
        rounded to this many decimals before they are combined.
    mean_decimals: means are rounded to this many decimals.
    global_gain_digits: global gains GG(d) are rounded to this many significant digits.
    run_gain_decimals: the global gains a run's documents carry are rounded further, to this many
        decimals (the ideal lists keep ``global_gain_digits``).
    top_gain_from_table: ad hoc measures take hg from an explicit gain table
        (its largest gain) rather than from the ideal list.
    drop_scores_at_most: run lines whose score is <= this are left out.
    lines_per_topic: only the first N lines of each topic of a run (file order) are read.
    preference_rules: how preference judgments are read, estimated, simulated
        and scored: a rule set of their own
        (:class:`~divaleval.model.preference_rules.PreferenceRules`), so that a kind of
        judgments adds its rules here as one field, not flag by flag.
    """

    name: str = "native"
    summary: str = "divaleval's own conventions"
    order: str = "score"
    depth: int | None = None
    duplicates: str = "error"
    value_decimals: int | None = None
    component_decimals: int | None = None
    mean_decimals: int | None = None
    global_gain_digits: int | None = None
    run_gain_decimals: int | None = None
    top_gain_from_table: bool = False
    drop_scores_at_most: float | None = None
    lines_per_topic: int | None = None
    preference_rules: PreferenceRules = PAPER_RULES

    def __post_init__(self) -> None:
        if self.duplicates not in CONVENTION_DUPLICATES:
            raise ValueError(f"duplicates must be one of {', '.join(CONVENTION_DUPLICATES)}")

    def round_values(self, values: np.ndarray) -> np.ndarray:
        return round_decimals(values, self.value_decimals)

    def round_components(self, values: np.ndarray) -> np.ndarray:
        return round_decimals(values, self.component_decimals)

    def round_means(self, values: np.ndarray) -> np.ndarray:
        return round_decimals(values, self.mean_decimals)

    def round_global_gains(self, values: np.ndarray) -> np.ndarray:
        return round_significant(values, self.global_gain_digits)

    def round_run_gains(self, values: np.ndarray) -> np.ndarray:
        return round_decimals(values, self.run_gain_decimals)


NATIVE = Conventions()
