"""``divaleval meta QRELS RUN... -m ...``: how good is a measure? Meta-evaluation over many runs."""
from __future__ import annotations

import sys

import click

from ..cluster import map_blocks
from ..io.gold import read_gold
from ..meta import (METHODS, asl_curves, gold_agreement, metric_unanimity, pair_significance, power_summary,
                    rank_correlation, tau_matrix)
from ..output.plots import check_plot_path, plot_asl_curves, plot_tau_heatmap
from .group import CONTEXT, main_group
from .progress import Progress
from .scoring import (INPUTS_HELP, check_output_path, cluster_of, json_records, load_cube, reported_errors,
                      score_input_options, text_table)
from .types import PlainFloat

SECTIONS = ("tau-matrix", "tau", "power", "mu", "gold", "asl")
DEFAULT_SECTIONS = ("tau-matrix", "power", "mu")

EPILOG = INPUTS_HELP + """

\b
Sections (-s, repeatable; default: tau-matrix, power, mu, and gold with --gold):
  tau-matrix  Kendall's tau-b between the system rankings (by mean) of every two measures
  tau         the same pair by pair, with its Fisher-z interval and the tied pairs of each ranking
  power       discriminative power: pairs of runs significant at --alpha and the smallest
              significant difference, by the randomised Tukey HSD and the paired bootstrap
  mu          Metric Unanimity of each measure against all the others (Amigo et al. 2018)
  gold        agreement with --gold preferences: (agree - disagree) / pairs, with its interval
  asl         every pair's p-value (ASL) per measure and method, sorted: the ASL curves
-f csv writes one section; -f json writes JSON lines, each with its "section".

\b
Examples:
  divaleval meta -m ndeval -m D#-nDCG@10,D#-Q@10,D#-ERR@10 -B 1000 qrels.txt runs/ --plot asl.png
  divaleval -f json -m ndeval qrels.txt runs/ > scores.jsonl
  divaleval meta --scores scores.jsonl -s tau -f csv > tau.csv
  divaleval meta --scores scores.jsonl --gold prefs.txt -s gold
  divaleval meta --scheduler tcp://10.0.0.5:8786 -m ndeval -B 10000 qrels.txt runs/  # on a Dask cluster
"""


@main_group.command("meta", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Meta-evaluate measures: tau between them, discriminative power, unanimity, gold.")
@score_input_options
@click.option("-s", "--section", "sections", multiple=True, type=click.Choice(SECTIONS), help="What to print.")
@click.option("--method", "methods", multiple=True, type=click.Choice(METHODS),
              help="Tests of discriminative power (default: both).")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level; intervals are at level 1 - alpha.")
@click.option("--gold", metavar="FILE", help="Gold preferences, lines 'topic runA runB winner'.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True, help="Output format.")
@click.option("--plot", metavar="FILE", help="Draw the ASL curves of the measures to FILE (.png, .pdf, .svg).")
@click.option("--plot-tau", metavar="FILE", help="Draw a heat map of tau between the measures to FILE.")
def meta_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                 judged_only, rel_min, jobs, scheduler, ship_runs, trials, seed, quiet, sections, methods, alpha, gold,
                 fmt, plot, plot_tau):
    """Meta-evaluate measures over the per-topic scores of many runs."""
    sections = list(dict.fromkeys(sections)) or [*DEFAULT_SECTIONS, *(["gold"] if gold else [])]
    methods = list(dict.fromkeys(methods)) or list(METHODS)
    if fmt == "csv" and len(sections) != 1:
        raise click.UsageError("-f csv writes one section: choose it with -s")
    if "gold" in sections and not gold:
        raise click.UsageError("-s gold needs --gold FILE")
    with reported_errors(), cluster_of(scheduler, ship_runs, jobs) as cluster:
        for path in (plot, plot_tau):
            if path:
                check_plot_path(path)
                check_output_path(path, inputs + score_files + ((gold,) if gold else ()))
        preferences = read_gold(gold) if gold else None
        cube = load_cube(inputs, score_files, measures, missing, quiet, iprob=iprob, order=order, gain=gain,
                         topicwise=topicwise, compat=compat, depth=depth, dedupe=dedupe, judged_only=judged_only,
                         rel_min=rel_min, jobs=jobs, scheduler=cluster)
        tables = {}
        if {"tau-matrix", "tau"} & set(sections) or plot_tau:
            correlations = rank_correlation(cube, 1 - alpha)
            tables["tau"] = correlations
            tables["tau-matrix"] = tau_matrix(correlations).reindex(
                index=list(cube.measures), columns=list(cube.measures)).rename_axis("measure")
        if {"power", "asl"} & set(sections) or plot:
            with Progress("divaleval meta", len(methods) * trials, unit="trials", enabled=False if quiet else None) as bar:
                significance = pair_significance(cube, methods, trials=trials, seed=seed, progress=bar.advance,
                                                 map_blocks=map_blocks(cluster))
            tables["power"] = power_summary(significance, alpha)
            tables["asl"] = asl_curves(significance)
        if "mu" in sections:
            tables["mu"] = metric_unanimity(cube)
        if "gold" in sections:
            tables["gold"] = gold_agreement(cube, preferences, 1 - alpha)
        if plot:
            plot_asl_curves(tables["asl"], plot, alpha)
        if plot_tau:
            plot_tau_heatmap(tables["tau-matrix"], plot_tau)
    if fmt == "csv":
        frame = tables[sections[0]]
        frame.to_csv(sys.stdout, index=sections[0] == "tau-matrix", lineterminator="\n")
    elif fmt == "json":
        for section in sections:
            frame = tables[section]
            if section == "tau-matrix":
                frame = frame.reset_index()
            for line in json_records(frame, section=section):
                click.echo(line)
    else:
        click.echo(_header(cube, trials, seed, methods, sections))
        for section in sections:
            click.echo("\n" + RENDER[section](tables, cube, alpha))


def _header(cube, trials: int, seed: int, methods: list[str], sections: list[str]) -> str:
    text = f"{len(cube.runs)} runs, {len(cube.topics)} topics, {len(cube.measures)} measures"
    if {"power", "asl"} & set(sections):
        text += f"; {' and '.join(methods)} tests with B = {trials} trials, seed {seed}"
    return text


def _fixed(value: float, digits: int = 3) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


def _ties(correlations, measures) -> dict[str, int]:
    """Per measure, the pairs of runs its ranking ties (equal means)."""
    ties = dict(zip(correlations["measure_a"], correlations["ties_a"]))
    ties.update(zip(correlations["measure_b"], correlations["ties_b"]))
    return {m: int(ties.get(m, 0)) for m in measures}


def _render_tau_matrix(tables, cube, alpha) -> str:
    matrix = tables["tau-matrix"]
    names = list(matrix.index)
    rows = [[f"{i + 1} {name}", *("" if j <= i else _fixed(matrix.iat[i, j]) for j in range(1, len(names)))]
            for i, name in enumerate(names[:-1])]
    tied = {m: n for m, n in _ties(tables["tau"], cube.measures).items() if n}
    ties = ", ".join(f"{m} {n}" for m, n in tied.items()) if tied else "none"
    return (f"Kendall's tau-b between the system rankings of {len(cube.runs)} runs (intervals: -s tau)\n"
            + text_table(rows, ["", *map(str, range(2, len(names) + 1))])
            + f"\nPairs of runs tied in a ranking (equal means): {ties}")


def _render_tau(tables, cube, alpha) -> str:
    frame = tables["tau"]
    level = f"{100 * (1 - alpha):g}%"
    rows = [[r.measure_a, r.measure_b, _fixed(r.tau), f"[{_fixed(r.ci_low)}, {_fixed(r.ci_high)}]", r.ties_a, r.ties_b]
            for r in frame.itertuples(index=False)]
    return (f"Kendall's tau-b over {len(cube.runs)} runs, {level} interval by Fisher's z "
            f"(ties: pairs of runs with equal means in each ranking)\n"
            + text_table(rows, ["measure A", "measure B", "tau", f"{level} CI", "ties A", "ties B"], names=2))


def _render_power(tables, cube, alpha) -> str:
    frame = tables["power"]
    methods = list(dict.fromkeys(frame["method"]))
    rows = []
    for measure in cube.measures:
        row = [measure]
        for method in methods:
            r = frame[(frame["measure"] == measure) & (frame["method"] == method)].iloc[0]
            row += [f"{r.significant}/{r.pairs} = {100 * r.share:.1f}%", _fixed(r.min_significant_diff, 4)]
        rows.append(row)
    headers = ["measure"]
    for method in methods:
        name = "HSD" if method == "tukey" else "bootstrap"
        headers += [f"{name} p < {alpha:g}", f"{name} min diff"]
    return ("Discriminative power: pairs of runs significantly different, smallest significant difference of means\n"
            + text_table(rows, headers))


def _render_mu(tables, cube, alpha) -> str:
    ordered = tables["mu"].sort_values("mu", ascending=False, kind="stable")
    rows = [[r.measure, _fixed(r.mu, 4)] for r in ordered.itertuples(index=False)]
    note = ("\n(-: the other measures never improve unanimously, P(M) = 0)"
            if tables["mu"]["mu"].isna().any() else "")
    return ("Metric Unanimity against the other measures (highest first)\n"
            + text_table(rows, ["measure", "MU"]) + note)


def _render_gold(tables, cube, alpha) -> str:
    frame = tables["gold"]
    level = f"{100 * (1 - alpha):g}%"
    rows = [[r.measure, r.agree, r.disagree, r.ties, _fixed(r.tau), f"[{_fixed(r.ci_low)}, {_fixed(r.ci_high)}]"]
            for r in frame.sort_values("tau", ascending=False, kind="stable").itertuples(index=False)]
    pairs = int(frame["pairs"].iloc[0]) if len(frame) else 0
    return (f"Agreement with {pairs} gold preferences: tau = (agree - disagree) / pairs\n"
            + text_table(rows, ["measure", "agree", "disagree", "ties", "tau", f"{level} CI"]))


def _render_asl(tables, cube, alpha) -> str:
    rows = [[r.measure, r.method, r.rank, r.run_a, r.run_b, f"{r.diff:+.4f}", f"{r.p:.4f}"]
            for r in tables["asl"].itertuples(index=False)]
    return ("ASL curves: every pair's p-value, sorted per measure and method\n"
            + text_table(rows, ["measure", "method", "rank", "run A", "run B", "A - B", "p"], names=2))


RENDER = {"tau-matrix": _render_tau_matrix, "tau": _render_tau, "power": _render_power, "mu": _render_mu,
          "gold": _render_gold, "asl": _render_asl}
