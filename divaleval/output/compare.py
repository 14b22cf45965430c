"""The report of ``divaleval compare``: the runs' means and the compared pairs, as a table, CSV or JSON lines.

* ``table``: a heading (runs, topics, trials, the family of the corrections and
  the intervals that go with them), each run's means, then one row per
  (measure, pair) with the difference, each test's interval beside its
  p-values, and a table of effect sizes;
* ``csv``: the rows of :func:`divaleval.meta.compare_runs`, every column (the
  unadjusted interval only when asked), then what the heading says: ``alpha``,
  ``correct``, ``family``, ``trials``, ``rand_exact``;
* ``json``: the same, one object per line (NaN as null).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .tables import REPORT_FORMATS, csv_text, format_p, json_lines, run_names, text_table

if TYPE_CHECKING:
    import pandas as pd

    from ..meta import ScoreCube

COMPARE_FORMATS = REPORT_FORMATS
UNADJUSTED_COLUMNS = ["ci_unadjusted_low", "ci_unadjusted_high"]


def _interval(low: float, high: float) -> str:
    return f"[{low:+.4f}, {high:+.4f}]"


def _settings(rows: pd.DataFrame, trials: int, alpha: float) -> dict:
    """What the rows were computed with (compare_runs's attrs; a frame without them: one family per measure)."""
    measures = max(1, rows["measure"].nunique())
    fallback = {"alpha": alpha, "correct": "pairs", "family": len(rows) // measures, "pairs": len(rows) // measures,
                "trials": trials, "exact": False, "bootstrap": "p_boot" in rows}
    return {**fallback, **rows.attrs.get("compare", {})}


def comparison_heading(cube: ScoreCube, rows: pd.DataFrame, settings: dict) -> str:
    """Runs, topics, how randomised p-values are computed, the family and the intervals in force."""
    alpha, family, trials = settings["alpha"], settings["family"], settings["trials"]
    level = f"{100 * (1 - alpha):g}%"
    ses = [rows[c].max() for c in ("p_rand_se", "p_hsd_se", "p_boot_se") if c in rows and len(rows)]
    lines = [f"{len(cube.runs)} runs, {len(cube.topics)} topics; randomised tests: {trials} trials, "
             f"p = (b + 1) / (B + 1) (Phipson & Smyth 2010), Monte-Carlo SE at most {max(ses, default=0):.4f}"
             + ("; the randomisation test exact (every sign vector)" if settings["exact"] else "")]
    if settings["correct"] == "all":
        scope = f"every pair of every measure ({family} comparisons)"
    else:
        scope = f"the {family} pairs of each measure" if family > 1 else "the one pair of each measure"
    lines.append(f"Family (--correct {settings['correct']}): Holm and Bonferroni over {scope}; "
                 f"Tukey HSD over all pairs of the {len(cube.runs)} runs, per measure")
    lines.append(f"{level} intervals, simultaneous over their family, exclude 0 only when the adjusted test rejects: "
                 f"Bonf. t = Bonferroni t (each at {100 * (1 - alpha / family):.4g}%) beside Holm's p; "
                 "HSD = from the randomised HSD's range distribution"
                 + ("; Bonf. boot = Bonferroni bootstrap-t" if settings["bootstrap"] else ""))
    return "\n".join(lines)


def comparison_table(cube: ScoreCube, rows: pd.DataFrame, trials: int, alpha: float,
                     unadjusted: bool = False) -> str:
    """The comparison as text tables: the means, the differences with their tests and intervals, effect sizes."""
    settings = _settings(rows, trials, alpha)
    means = cube.summaries()
    names, legend = run_names(cube.runs, cube.runids)
    means_table = text_table([[run, *(f"{v:.4f}" for v in means[r])] for r, run in enumerate(names.values())],
                             ["run", *cube.measures])
    otherwise = cube.summarised_otherwise()
    if otherwise:   # the tests below are about arithmetic means of per-topic values, whatever a measure prints
        means_table += (f"\n({', '.join(otherwise)}: the summary divaleval prints (a geometric mean, or a count's "
                        "sum); A - B and the tests below are of the arithmetic means of the per-topic values)")
    level = f"{100 * (1 - settings['alpha']):g}%"
    bootstrap = "p_boot" in rows
    body, effects = [], []
    for row in rows.itertuples(index=False):
        cells = [row.measure, names[row.run_a], names[row.run_b], f"{row.diff:+.4f}"]
        if unadjusted:
            cells.append(_interval(row.ci_unadjusted_low, row.ci_unadjusted_high))
        cells += [_interval(row.ci_t_low, row.ci_t_high), format_p(row.p_t), format_p(row.p_t_holm),
                  format_p(row.p_rand, trials), format_p(row.p_rand_holm, trials),
                  _interval(row.ci_hsd_low, row.ci_hsd_high), format_p(row.p_hsd, trials)]
        if bootstrap:
            cells += [_interval(row.ci_boot_low, row.ci_boot_high), format_p(row.p_boot, trials),
                      format_p(row.p_boot_holm, trials)]
        body.append(cells)
        effects.append([row.measure, names[row.run_a], names[row.run_b], f"{row.effect_dz:+.3f}",
                        f"[{row.effect_dz_low:+.3f}, {row.effect_dz_high:+.3f}]", f"{row.es_e2:+.3f}",
                        f"{row.g_av:+.3f}"])
    headers = ["measure", "run A", "run B", "A - B"] + ([f"{level} CI (unadjusted)"] if unadjusted else [])
    headers += [f"{level} CI (Bonf. t)", "p(t)", "Holm", "p(rand)", "Holm", f"{level} CI (HSD)", "p(HSD)"]
    if bootstrap:
        headers += [f"{level} CI (Bonf. boot)", "p(boot)", "Holm"]
    tests = text_table(body, headers, names=3)
    alpha = settings["alpha"]
    stepped = int(((rows["p_t_holm"] < alpha) & (rows["ci_t_low"] <= 0) & (rows["ci_t_high"] >= 0)).sum())
    if stepped:   # the one way the two can differ: Holm steps down, a single-step interval cannot
        tests += (f"\n({stepped} pair{'s' if stepped > 1 else ''}: Holm p(t) < {alpha:g} but the Bonferroni "
                  "interval includes 0; Holm steps down, so it rejects where no single-step interval can)")
    sizes = text_table(effects, ["measure", "run A", "run B", "d_z", f"{level} CI of d_z (Bonf.)", "ES_E2", "g_av"],
                       names=3)
    return (f"{comparison_heading(cube, rows, settings)}\n\nMeans\n{means_table}\n\n"
            f"Differences (two-sided p-values)\n{tests}\n\n"
            "Effect sizes: d_z = (A - B) / sd of the differences, its interval from the noncentral t; "
            "ES_E2 = (A - B) / sqrt(V_E), V_E the residual variance of the two-way ANOVA (topics x runs) "
            "of all the runs (Sakai); g_av = Hedges' g over the mean of A's and B's sd (Lakens 2013)\n"
            f"{sizes}" + legend)


def comparison_records(rows: pd.DataFrame, trials: int, alpha: float, unadjusted: bool = False) -> pd.DataFrame:
    """The rows as -f csv and -f json write them: every column, and the heading's settings as columns."""
    settings = _settings(rows, trials, alpha)
    frame = rows if unadjusted else rows.drop(columns=[c for c in UNADJUSTED_COLUMNS if c in rows])
    return frame.assign(alpha=settings["alpha"], correct=settings["correct"], family=settings["family"],
                        trials=settings["trials"], rand_exact=bool(settings["exact"]))


def render_comparison(cube: ScoreCube, rows: pd.DataFrame, fmt: str, trials: int, alpha: float,
                      unadjusted: bool = False) -> str:
    """The report in one of :data:`COMPARE_FORMATS`, as ``divaleval compare`` prints it (a line end at the end).

    ``unadjusted`` adds the per-pair t interval, not adjusted for the family.
    """
    if fmt == "csv":
        return csv_text(comparison_records(rows, trials, alpha, unadjusted))
    if fmt == "json":
        return json_lines(comparison_records(rows, trials, alpha, unadjusted))
    return comparison_table(cube, rows, trials, alpha, unadjusted) + "\n"
