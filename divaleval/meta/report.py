"""A meta-evaluation report: the sections asked for (:data:`SECTIONS`), each a table, over one score cube.

Sections: ``tau-matrix`` and ``tau`` (Kendall's tau-b between the measures'
system rankings), ``power`` and ``asl`` (discriminative power and the ASL
curves, from one set of pairwise tests, each labelled with the error it
controls), ``mu`` (Metric Unanimity, under the reading of "unanimous" asked
for), ``gold`` (agreement with gold preferences). A table is computed only when a section
printed, or one asked for besides (``also``: a figure drawn from it), needs it;
the tests of ``power`` and ``asl`` are drawn once for both.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from ..errors import UsageError
from ..io.gold import GoldPreferences
from ..stats.blocks import Progress, SeedLike
from .correlation import rank_correlation, tau_matrix
from .cube import ScoreCube
from .gold import gold_agreement
from .power import DEFAULT_METHODS, asl_curves, pair_significance, power_summary
from .unanimity import DEFAULT_READING, check_reading, metric_unanimity

if TYPE_CHECKING:
    import pandas as pd

SECTIONS = ("tau-matrix", "tau", "power", "mu", "gold", "asl")
DEFAULT_SECTIONS = ("tau-matrix", "power", "mu")


def chosen_sections(sections: Iterable[str] | None, gold: bool) -> list[str]:
    """The sections asked for, once each; none: :data:`DEFAULT_SECTIONS`, and ``gold`` with gold preferences."""
    chosen = list(dict.fromkeys(sections or ()))
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        raise UsageError(f"unknown section {unknown[0]!r}: choose among {', '.join(SECTIONS)}")
    return chosen or [*DEFAULT_SECTIONS, *(["gold"] if gold else [])]


def chosen_methods(methods: Iterable[str] | None) -> list[str]:
    """The tests of discriminative power asked for, once each; none: :data:`DEFAULT_METHODS`."""
    return list(dict.fromkeys(methods or ())) or list(DEFAULT_METHODS)


@dataclass
class MetaReport:
    """The tables of a meta-evaluation (by section), and what they were computed with."""

    cube: ScoreCube
    sections: list[str]                 # printed, in order
    methods: list[str]
    trials: int
    seed: SeedLike
    alpha: float                        # significance level; intervals at 1 - alpha
    mu_reading: str = DEFAULT_READING   # what "unanimous improvement" means (meta.unanimity.READINGS)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)   # the sections' and those asked for besides


def meta_report(cube: ScoreCube, sections: Iterable[str] | None = None, *, methods: Iterable[str] | None = None,
                alpha: float = 0.05, trials: int = 10_000, seed: SeedLike = 0, gold: GoldPreferences | None = None,
                mu_reading: str = DEFAULT_READING, also: Iterable[str] = (), progress: Progress | None = None,
                map_blocks: Callable = map) -> MetaReport:
    """The tables of ``sections`` (default: :func:`chosen_sections`) and of ``also``, over the cube."""
    printed = chosen_sections(sections, gold is not None)
    needed = set(printed) | set(also)
    if "gold" in needed and gold is None:
        raise UsageError("the gold section needs gold preferences")
    report = MetaReport(cube, printed, chosen_methods(methods), trials, seed, alpha, check_reading(mu_reading))
    tables = report.tables
    if {"tau-matrix", "tau"} & needed:
        correlations = rank_correlation(cube, 1 - alpha)
        tables["tau"] = correlations
        tables["tau-matrix"] = tau_matrix(correlations).reindex(
            index=list(cube.measures), columns=list(cube.measures)).rename_axis("measure")
    if {"power", "asl"} & needed:
        significance = pair_significance(cube, report.methods, trials=trials, seed=seed, progress=progress,
                                         map_blocks=map_blocks)
        tables["power"] = power_summary(significance, alpha)
        tables["asl"] = asl_curves(significance)
    if "mu" in needed:
        tables["mu"] = metric_unanimity(cube, mu_reading)
    if "gold" in needed:
        tables["gold"] = gold_agreement(cube, gold, 1 - alpha)
    return report
