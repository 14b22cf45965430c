"""The report of ``divaleval topics-needed``: the topics a new collection needs, per measure and design.

* ``table``: a heading (the pilot, the variance estimate, the requirement of
  each design), then one row per measure: sigma^2 and, per design, the topics
  needed with the power they reach (the interval: its expected width);
* ``csv``: the rows of :func:`divaleval.design.topic_set_sizes`, one per
  (measure, design), every column;
* ``json``: the same rows, one object per line (NaN and no topic set size as null).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..stats.topicset import MAX_TOPICS
from .tables import REPORT_FORMATS, csv_text, fixed, json_lines, text_table

if TYPE_CHECKING:
    import pandas as pd

TOPICSET_FORMATS = REPORT_FORMATS

ESTIMATORS = {
    "residual": "the residual variance V_E of the two-way ANOVA without replication (topics x runs)",
    "within": "the within-run variance V_E of the one-way ANOVA (runs as groups)",
}


def _topics(row) -> str:
    if row.topics is not None:
        return str(int(row.topics))
    return "-" if not row.variance > 0 else f">{MAX_TOPICS}"


def _requirements(frame: pd.DataFrame) -> list[str]:
    first = frame.iloc[0]
    lines = []
    designs = list(dict.fromkeys(frame["design"]))
    if "ttest" in designs:
        lines.append(f"  paired t-test: power {first.power:g} to detect a difference of {first.min_diff:g} "
                     "between two systems (two-sided)")
    if "anova" in designs:
        systems = int(frame.loc[frame["design"] == "anova", "systems"].iloc[0])
        lines.append(f"  one-way ANOVA: power {first.power:g} to detect a range of {first.min_diff:g} between the "
                     f"means of {systems} systems")
    if "ci" in designs:
        width = frame.loc[frame["design"] == "ci", "ci_width"].iloc[0]
        lines.append(f"  CI: the {100 * (1 - first.alpha):g}% interval of a difference between two systems no "
                     f"wider than {width:g} (expected width)")
    return lines


def topic_set_table(frame: pd.DataFrame) -> str:
    """The topic set sizes as a text table, one row per measure."""
    if frame.empty:
        return "no measure\n"
    first = frame.iloc[0]
    header = [f"Topic set size design (Sakai 2016): a pilot of {first.pilot_runs} runs x {first.pilot_topics} "
              f"topics; alpha = {first.alpha:g}",
              f"sigma^2: {ESTIMATORS[first.estimator]}; the t-test and the CI use sigma_t^2 = 2 sigma^2",
              *_requirements(frame)]
    designs = list(dict.fromkeys(frame["design"]))
    columns = ["measure", "sigma^2"]
    for design in designs:
        columns += {"ttest": ["t-test", "power"], "anova": ["ANOVA", "power"], "ci": ["CI", "E(width)"]}[design]
    body = []
    for measure, rows in frame.groupby("measure", sort=False):
        line = [measure, f"{rows['variance'].iloc[0]:.6f}"]
        by_design = {row.design: row for row in rows.itertuples(index=False)}
        for design in designs:
            row = by_design[design]
            line += [_topics(row), fixed(row.achieved, 4 if design == "ci" else 3)]
        body.append(line)
    return "\n".join(header) + "\n\nTopics needed\n" + text_table(body, columns) + "\n"


def render_topic_set_sizes(frame: pd.DataFrame, fmt: str) -> str:
    """The report in one of :data:`TOPICSET_FORMATS`, as ``divaleval topics-needed`` prints it."""
    if fmt == "csv":
        return csv_text(frame)
    if fmt == "json":
        return json_lines(frame)
    return topic_set_table(frame)
