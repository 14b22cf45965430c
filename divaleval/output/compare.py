"""The report of ``divaleval compare``: the runs' means and the compared pairs, as a table, CSV or JSON lines.

* ``table``: a heading (runs, topics, trials), each run's means, then one row
  per (measure, pair): the difference with its interval, d_z and the p-values;
* ``csv``: the rows of :func:`divaleval.meta.compare_runs`, every column;
* ``json``: the same rows, one object per line (NaN as null).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .tables import REPORT_FORMATS, csv_text, format_p, json_lines, run_names, text_table

if TYPE_CHECKING:
    import pandas as pd

    from ..meta import ScoreCube

COMPARE_FORMATS = REPORT_FORMATS


def comparison_table(cube: ScoreCube, rows: pd.DataFrame, trials: int, alpha: float) -> str:
    """The comparison as text tables: the means, then the differences (intervals at level 1 - alpha)."""
    means = cube.means()
    names, legend = run_names(cube.runs, cube.runids)
    header = f"{len(cube.runs)} runs, {len(cube.topics)} topics; randomised tests: {trials} trials"
    means_table = text_table([[run, *(f"{v:.4f}" for v in means[r])] for r, run in enumerate(names.values())],
                             ["run", *cube.measures])
    level = f"{100 * (1 - alpha):g}% CI"
    body = [[row.measure, names[row.run_a], names[row.run_b], f"{row.diff:+.4f}",
             f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]",
             f"{row.effect_dz:+.3f}", format_p(row.p_t), format_p(row.p_t_holm), format_p(row.p_rand, trials),
             format_p(row.p_rand_holm, trials), format_p(row.p_hsd, trials)]
            for row in rows.itertuples(index=False)]
    tests = text_table(body, ["measure", "run A", "run B", "A - B", level, "d_z", "p(t)", "Holm", "p(rand)", "Holm",
                              "p(HSD)"], names=3)
    return f"{header}\n\nMeans\n{means_table}\n\nDifferences (two-sided p-values)\n{tests}" + legend


def render_comparison(cube: ScoreCube, rows: pd.DataFrame, fmt: str, trials: int, alpha: float) -> str:
    """The report in one of :data:`COMPARE_FORMATS`, as ``divaleval compare`` prints it (a line end at the end)."""
    if fmt == "csv":
        return csv_text(rows)
    if fmt == "json":
        return json_lines(rows)
    return comparison_table(cube, rows, trials, alpha) + "\n"
