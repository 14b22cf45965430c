"""The report of ``divaleval meta`` (:class:`divaleval.meta.MetaReport`): text tables, CSV or JSON lines.

* ``table``: a heading (runs, topics, measures, the tests' trials), then each
  section's table under a line saying what it is;
* ``csv``: the table of the one section asked for (the tau matrix with its
  measures as the first column);
* ``json``: every section's rows, one object per line, each with its ``section``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .tables import REPORT_FORMATS, csv_text, fixed, json_lines, run_names, text_table

if TYPE_CHECKING:
    import pandas as pd

    from ..meta import MetaReport

META_FORMATS = REPORT_FORMATS


def render_meta(report: MetaReport, fmt: str) -> str:
    """The report in one of :data:`META_FORMATS`, as ``divaleval meta`` prints it (``csv``: one section)."""
    if fmt == "csv":
        if len(report.sections) != 1:
            raise ValueError("CSV holds one section")
        section = report.sections[0]
        return csv_text(report.tables[section], index=section == "tau-matrix")
    if fmt == "json":
        parts = []
        for section in report.sections:
            frame = report.tables[section]
            if section == "tau-matrix":
                frame = frame.reset_index()
            parts.append(json_lines(frame, section=section))
        return "".join(parts)
    return "".join(text + "\n" for text in
                   [heading(report), *("\n" + RENDER[section](report) for section in report.sections)])


def heading(report: MetaReport) -> str:
    cube = report.cube
    text = f"{len(cube.runs)} runs, {len(cube.topics)} topics, {len(cube.measures)} measures"
    if {"power", "asl"} & set(report.sections):
        text += f"; {' and '.join(report.methods)} tests with B = {report.trials} trials, seed {report.seed}"
    return text


def _ties(correlations: pd.DataFrame, measures) -> dict[str, int]:
    """Per measure, the pairs of runs its ranking ties (equal means)."""
    ties = dict(zip(correlations["measure_a"], correlations["ties_a"]))
    ties.update(zip(correlations["measure_b"], correlations["ties_b"]))
    return {m: int(ties.get(m, 0)) for m in measures}


def _level(report: MetaReport) -> str:
    return f"{100 * (1 - report.alpha):g}%"


def tau_matrix_table(report: MetaReport) -> str:
    cube, matrix = report.cube, report.tables["tau-matrix"]
    names = list(matrix.index)
    rows = [[f"{i + 1} {name}", *("" if j <= i else fixed(matrix.iat[i, j]) for j in range(1, len(names)))]
            for i, name in enumerate(names[:-1])]
    tied = {m: n for m, n in _ties(report.tables["tau"], cube.measures).items() if n}
    ties = ", ".join(f"{m} {n}" for m, n in tied.items()) if tied else "none"
    return (f"Kendall's tau-b between the system rankings of {len(cube.runs)} runs (intervals: -s tau)\n"
            + text_table(rows, ["", *map(str, range(2, len(names) + 1))])
            + f"\nPairs of runs tied in a ranking (equal means): {ties}")


def tau_table(report: MetaReport) -> str:
    level = _level(report)
    rows = [[r.measure_a, r.measure_b, fixed(r.tau), f"[{fixed(r.ci_low)}, {fixed(r.ci_high)}]", r.ties_a, r.ties_b]
            for r in report.tables["tau"].itertuples(index=False)]
    return (f"Kendall's tau-b over {len(report.cube.runs)} runs, {level} interval by Fisher's z "
            f"(ties: pairs of runs with equal means in each ranking)\n"
            + text_table(rows, ["measure A", "measure B", "tau", f"{level} CI", "ties A", "ties B"], names=2))


def power_table(report: MetaReport) -> str:
    frame = report.tables["power"]
    methods = list(dict.fromkeys(frame["method"]))
    rows = []
    for measure in report.cube.measures:
        row = [measure]
        for method in methods:
            r = frame[(frame["measure"] == measure) & (frame["method"] == method)].iloc[0]
            row += [f"{r.significant}/{r.pairs} = {100 * r.share:.1f}%", fixed(r.min_significant_diff, 4)]
        rows.append(row)
    headers = ["measure"]
    for method in methods:
        name = "HSD" if method == "tukey" else "bootstrap"
        headers += [f"{name} p < {report.alpha:g}", f"{name} min diff"]
    return ("Discriminative power: pairs of runs significantly different, smallest significant difference of means\n"
            + text_table(rows, headers))


def mu_table(report: MetaReport) -> str:
    frame = report.tables["mu"]
    ordered = frame.sort_values("mu", ascending=False, kind="stable")
    rows = [[r.measure, fixed(r.mu, 4)] for r in ordered.itertuples(index=False)]
    note = "\n(-: the other measures never improve unanimously, P(M) = 0)" if frame["mu"].isna().any() else ""
    return ("Metric Unanimity against the other measures (highest first)\n"
            + text_table(rows, ["measure", "MU"]) + note)


def gold_table(report: MetaReport) -> str:
    frame = report.tables["gold"]
    rows = [[r.measure, r.agree, r.disagree, r.ties, fixed(r.tau), f"[{fixed(r.ci_low)}, {fixed(r.ci_high)}]"]
            for r in frame.sort_values("tau", ascending=False, kind="stable").itertuples(index=False)]
    pairs = int(frame["pairs"].iloc[0]) if len(frame) else 0
    return (f"Agreement with {pairs} gold preferences: tau = (agree - disagree) / pairs\n"
            + text_table(rows, ["measure", "agree", "disagree", "ties", "tau", f"{_level(report)} CI"]))


def asl_table(report: MetaReport) -> str:
    names, legend = run_names(report.cube.runs, report.cube.runids)
    rows = [[r.measure, r.method, r.rank, names[r.run_a], names[r.run_b], f"{r.diff:+.4f}", f"{r.p:.4f}"]
            for r in report.tables["asl"].itertuples(index=False)]
    return ("ASL curves: every pair's p-value, sorted per measure and method\n"
            + text_table(rows, ["measure", "method", "rank", "run A", "run B", "A - B", "p"], names=2) + legend)


RENDER: dict[str, Callable[[MetaReport], str]] = {
    "tau-matrix": tau_matrix_table, "tau": tau_table, "power": power_table, "mu": mu_table, "gold": gold_table,
    "asl": asl_table,
}
