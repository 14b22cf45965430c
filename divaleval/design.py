"""Topic set size design over a score cube: for each measure, the topics a new collection needs.

Each measure's topics x runs matrix of the pilot (the runs and topics scored, or
read back with ``--scores``) gives a variance estimate (two-way ANOVA residual
or one-way within-run variance, :mod:`divaleval.stats.topicset`), and each
asked-for design (paired t-test, one-way ANOVA, confidence interval) the
smallest topic set size meeting the :class:`~divaleval.stats.topicset.Requirement`.
Rendered by :mod:`divaleval.output.topicset`.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

import pandas as pd

from .errors import UsageError
from .stats.topicset import DESIGNS, SIZERS, VARIANCE_ESTIMATES, VARIANCES, Requirement

if TYPE_CHECKING:
    from .meta import ScoreCube

COLUMNS = ["measure", "design", "estimator", "variance", "variance_used", "alpha", "power", "min_diff", "ci_width",
           "systems", "topics", "achieved", "pilot_runs", "pilot_topics"]


def chosen_designs(designs: Iterable[str] | None) -> tuple[str, ...]:
    """The designs asked for, in :data:`DESIGNS` order (``all`` or None: every one)."""
    names = list(DESIGNS if designs is None else designs)
    if "all" in names:
        return DESIGNS
    unknown = [name for name in names if name not in DESIGNS]
    if unknown or not names:
        raise UsageError(f"design must be one of {', '.join(DESIGNS)} or all, not {', '.join(unknown) or 'none'}")
    return tuple(design for design in DESIGNS if design in names)


def check_pilot(cube: ScoreCube) -> None:
    """A pilot gives a variance only with 2 runs and 2 topics or more."""
    if len(cube.runs) < 2 or len(cube.topics) < 2:
        raise UsageError(f"topic set size design needs a pilot of at least 2 runs and 2 topics, not "
                         f"{len(cube.runs)} run(s) x {len(cube.topics)} topic(s)")


def topic_set_sizes(cube: ScoreCube, requirement: Requirement, designs: Iterable[str] | None = None,
                    variance: str = "residual") -> pd.DataFrame:
    """One row per (measure, design): the pilot's variance estimate (``variance``: sigma^2; ``variance_used``:
    sigma_t^2 = 2 sigma^2 for the t-test and the interval, sigma^2 for the ANOVA), the requirement, the
    ``topics`` needed (NaN: more than MAX_TOPICS, or a zero variance) and what they ``achieved`` (the power,
    or the interval's expected width)."""
    if variance not in VARIANCES:
        raise UsageError(f"variance must be one of {', '.join(VARIANCES)}, not {variance!r}")
    check_pilot(cube)
    estimate = VARIANCE_ESTIMATES[variance]
    picked = chosen_designs(designs)
    rows = []
    for measure in cube.measures:
        sigma2 = estimate(cube.matrix(measure))
        for design in picked:
            size = SIZERS[design](sigma2, requirement)
            test = design != "ci"
            rows.append({
                "measure": measure, "design": design, "estimator": variance, "variance": sigma2,
                "variance_used": sigma2 if design == "anova" else 2.0 * sigma2, "alpha": requirement.alpha,
                "power": requirement.power if test else math.nan,
                "min_diff": requirement.min_diff if test else math.nan,
                "ci_width": math.nan if test else requirement.ci_width,
                "systems": requirement.systems if design == "anova" else 2,
                "topics": size.topics, "achieved": size.achieved,
                "pilot_runs": len(cube.runs), "pilot_topics": len(cube.topics),
            })
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["topics"] = pd.Series([row["topics"] for row in rows], dtype=object)  # whole numbers, None: no size
    return frame
