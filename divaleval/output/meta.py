"""The report of ``divaleval meta`` (:class:`divaleval.meta.MetaReport`): text tables, CSV or JSON lines.

* ``table``: a heading (runs, topics, measures, the tests' trials), then each
  section's table under a line saying what it is;
* ``csv``: the table of the one section asked for (the tau matrix with its
  measures as the first column);
* ``json``: every section's rows, one object per line, each with its ``section``.

What a table says in its heading is in the rows of the CSV and JSON too
(:func:`machine_frame`): the interval level of ``tau`` and ``gold``, the
tests' error control, alpha, trials and seed of ``power`` and ``asl``, the
reading of ``mu``. An undefined number (an interval that does not exist, an MU
with no unanimous case) is ``-`` in a table, empty in CSV, null in JSON.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from ..meta.power import CONTROL
from ..meta.unanimity import READING_RULES, READINGS
from .tables import REPORT_FORMATS, csv_text, fixed, json_lines, run_names, text_table

if TYPE_CHECKING:
    import pandas as pd

    from ..meta import MetaReport

META_FORMATS = REPORT_FORMATS

METHOD_NAMES = {"tukey": "HSD", "bootstrap": "bootstrap", "bootstrap-maxt": "bootstrap max-t"}
CONTROL_NAMES = {"family-wise": "family-wise", "per-pair": "per pair"}
METHOD_DESCRIPTIONS = {
    "tukey": "randomised Tukey HSD (Sakai 2014), family-wise over the {pairs} pairs of runs",
    "bootstrap": "studentised paired bootstrap (Sakai 2006), per pair: not corrected for the {pairs} pairs",
    "bootstrap-maxt": "the same bootstrap, family-wise over the {pairs} pairs by its largest |t| "
                      "(single-step max-t, Westfall & Young 1993)",
}


def render_meta(report: MetaReport, fmt: str) -> str:
    """The report in one of :data:`META_FORMATS`, as ``divaleval meta`` prints it (``csv``: one section)."""
    if fmt == "csv":
        if len(report.sections) != 1:
            raise ValueError("CSV holds one section")
        section = report.sections[0]
        return csv_text(machine_frame(report, section), index=section == "tau-matrix")
    if fmt == "json":
        parts = []
        for section in report.sections:
            frame = machine_frame(report, section)
            if section == "tau-matrix":
                frame = frame.reset_index()
            parts.append(json_lines(frame, section=section))
        return "".join(parts)
    return "".join(text + "\n" for text in
                   [heading(report), *("\n" + RENDER[section](report) for section in report.sections)])


def machine_frame(report: MetaReport, section: str) -> pd.DataFrame:
    """A section's table for CSV and JSON, with what the text table says around it as columns."""
    frame = report.tables[section]
    if section in ("tau", "gold"):
        return frame.assign(level=1 - report.alpha)
    if section in ("power", "asl"):
        seed = int(report.seed) if isinstance(report.seed, (int, np.integer)) else None
        return frame.assign(trials=report.trials, seed=seed)
    return frame


def heading(report: MetaReport) -> str:
    cube = report.cube
    text = f"{len(cube.runs)} runs, {len(cube.topics)} topics, {len(cube.measures)} measures"
    if {"power", "asl"} & set(report.sections):
        methods = report.methods
        named = " and ".join(methods) if len(methods) < 3 else f"{', '.join(methods[:-1])} and {methods[-1]}"
        text += f"; {named} tests with B = {report.trials} trials, seed {report.seed}"
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


def interval(low: float, high: float) -> str:
    """``[low, high]``, or ``-`` for an interval that does not exist."""
    return "-" if low != low or high != high else f"[{fixed(low)}, {fixed(high)}]"


def undefined_note(frame: pd.DataFrame, systems: str) -> str:
    """Why an interval is ``-``, when one is (``systems``: what L is)."""
    if not frame["ci_low"].isna().any():
        return ""
    text = (f"\n(-: no interval: Fisher's z needs L > 4, its variance being 0.437/(L - 4), L = {systems}, "
            f"and |tau| < 1, atanh(+-1) being infinite")
    return text + ("; no tau: a ranking ties every run)" if frame["tau"].isna().any() else ")")


def tau_table(report: MetaReport) -> str:
    level = _level(report)
    frame = report.tables["tau"]
    rows = [[r.measure_a, r.measure_b, fixed(r.tau), interval(r.ci_low, r.ci_high), r.ties_a, r.ties_b]
            for r in frame.itertuples(index=False)]
    return (f"Kendall's tau-b over {len(report.cube.runs)} runs, {level} interval by Fisher's z "
            f"(ties: pairs of runs with equal means in each ranking)\n"
            + text_table(rows, ["measure A", "measure B", "tau", f"{level} CI", "ties A", "ties B"], names=2)
            + undefined_note(frame, "the runs"))


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
    headers = ["\n\nmeasure"]
    for method in methods:   # three lines: the test, the error it controls, the column
        name = f"{METHOD_NAMES.get(method, method)}\n{CONTROL_NAMES[CONTROL[method]]}"
        headers += [f"{name}\np < {report.alpha:g}", f"{name}\nmin diff"]
    pairs = len(report.cube.runs) * (len(report.cube.runs) - 1) // 2
    legend = "".join(f"\n  {METHOD_NAMES.get(m, m)}: {METHOD_DESCRIPTIONS[m].format(pairs=pairs)}" for m in methods)
    return ("Discriminative power: pairs of runs significantly different, smallest significant difference of means"
            + legend + "\n" + text_table(rows, headers))


def mu_table(report: MetaReport) -> str:
    frame = report.tables["mu"]
    ordered = frame.sort_values("mu", ascending=False, kind="stable")
    rows = [[r.measure, fixed(r.mu, 4)] for r in ordered.itertuples(index=False)]
    note = "\n(-: the other measures never improve unanimously, P(M) = 0)" if frame["mu"].isna().any() else ""
    top = ordered["mu"].iloc[0] if len(ordered) else np.nan
    sharing = int((ordered["mu"] == top).sum()) if top == top else 0
    if sharing > 1:
        note += f"\n({sharing} of {len(ordered)} measures share the highest MU, {fixed(top, 5)})"
    reading = report.mu_reading
    other = next(r for r in READINGS if r != reading)
    return (f"Metric Unanimity against the other measures (highest first)\n"
            f"Reading: {reading}: a unanimous improvement is {READING_RULES[reading]}; "
            f"the other reading: --mu-reading {other}\n"
            + text_table(rows, ["measure", "MU"]) + note)


def gold_table(report: MetaReport) -> str:
    frame = report.tables["gold"]
    rows = [[r.measure, r.agree, r.disagree, r.ties, fixed(r.tau), interval(r.ci_low, r.ci_high)]
            for r in frame.sort_values("tau", ascending=False, kind="stable").itertuples(index=False)]
    pairs = int(frame["pairs"].iloc[0]) if len(frame) else 0
    return (f"Agreement with {pairs} gold preferences: tau = (agree - disagree) / pairs, interval over "
            f"L = (1 + sqrt(1 + 8 pairs)) / 2\n"
            + text_table(rows, ["measure", "agree", "disagree", "ties", "tau", f"{_level(report)} CI"])
            + undefined_note(frame, "(1 + sqrt(1 + 8 pairs)) / 2"))


def asl_table(report: MetaReport) -> str:
    names, legend = run_names(report.cube.runs, report.cube.runids)
    rows = [[r.measure, r.method, r.control, r.rank, names[r.run_a], names[r.run_b], f"{r.diff:+.4f}", f"{r.p:.4f}"]
            for r in report.tables["asl"].itertuples(index=False)]
    return ("ASL curves: every pair's p-value, sorted per measure and method (control: family-wise over all the "
            "pairs of runs of a measure, or per pair)\n"
            + text_table(rows, ["measure", "method", "control", "rank", "run A", "run B", "A - B", "p"], names=3)
            + legend)


RENDER: dict[str, Callable[[MetaReport], str]] = {
    "tau-matrix": tau_matrix_table, "tau": tau_table, "power": power_table, "mu": mu_table, "gold": gold_table,
    "asl": asl_table,
}
