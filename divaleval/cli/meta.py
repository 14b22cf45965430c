"""``divaleval meta QRELS RUN... -m ...``: how good is a measure? Meta-evaluation over many runs."""
from __future__ import annotations

import sys

import click

from ..api import meta_evaluate
from ..io.gold import read_gold
from ..meta import DEFAULT_READING, METHODS, READINGS, SECTIONS, chosen_methods, chosen_sections
from ..output.meta import META_FORMATS, render_meta
from ..output.paths import FIGURE, check_outputs
from ..output.plots import plot_asl_curves, plot_tau_heatmap
from .group import CONTEXT, main_group
from .progress import Progress
from .scaleout import placement
from .scoring import INPUTS_HELP, load_cube, reported_errors, score_input_options
from .types import PlainFloat

EPILOG = INPUTS_HELP + """

\b
Sections (-s, repeatable; default: tau-matrix, power, mu, and gold with --gold):
  tau-matrix  Kendall's tau-b between the system rankings (by mean) of every two measures
  tau         the same pair by pair, with its Fisher-z interval (none where |tau| = 1 or
              there are 4 runs or fewer) and the tied pairs of each ranking
  power       discriminative power: pairs of runs significant at --alpha and the smallest
              significant difference, per test, each labelled family-wise or per pair
  mu          Metric Unanimity of each measure against all the others (Amigo et al. 2018),
              under the --mu-reading of "unanimous improvement"
  gold        agreement with --gold preferences: (agree - disagree) / pairs, with its interval
  asl         every pair's p-value (ASL) per measure and method, sorted: the ASL curves
-f csv writes one section; -f json writes JSON lines, each with its "section".

\b
Tests of discriminative power (--method, repeatable; default: tukey, bootstrap):
  tukey           randomised Tukey HSD: family-wise over all the pairs of runs
  bootstrap       studentised paired bootstrap (Sakai 2006): per pair, not corrected
  bootstrap-maxt  the same bootstrap, family-wise over all the pairs (single-step max-t)
Readings of Metric Unanimity (--mu-reading; default: strict):
  strict          every other measure improves strictly (Sakai & Zeng 2019)
  pareto          every other measure improves or ties, at least one improves

\b
Examples (from the root of the repository, on its sample data):
  divaleval meta -m ndeval -m D#-nDCG@10,D#-Q@10,D#-ERR@10 -B 1000 sample_data/qrels.txt sample_data/runs/
  divaleval -f json -m ndeval,D#-nDCG@10 sample_data/qrels.txt sample_data/runs/ > scores.jsonl
  divaleval meta --scores scores.jsonl -s tau -f csv > tau.csv
  divaleval meta --scores scores.jsonl -s power -s asl -B 1000 --plot asl.png --plot-tau tau.png
  divaleval meta --scores scores.jsonl -s power --method tukey --method bootstrap-maxt
  divaleval meta --scores scores.jsonl -s mu --mu-reading pareto
  divaleval meta --scheduler local:2 -m ndeval -B 1000 sample_data/qrels.txt sample_data/runs/  # on 2 Dask workers
"""


@main_group.command("meta", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Meta-evaluate measures: tau between them, discriminative power, unanimity, gold.")
@score_input_options
@click.option("-s", "--section", "sections", multiple=True, type=click.Choice(SECTIONS), help="What to print.")
@click.option("--method", "methods", multiple=True, type=click.Choice(METHODS),
              help="Tests of discriminative power (default: tukey and bootstrap).")
@click.option("--mu-reading", type=click.Choice(READINGS), default=DEFAULT_READING, show_default=True,
              help="What a unanimous improvement of the other measures is, for Metric Unanimity.")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level; intervals are at level 1 - alpha.")
@click.option("--gold", metavar="FILE", help="Gold preferences, lines 'topic runA runB winner'.")
@click.option("-f", "--format", "fmt", type=click.Choice(META_FORMATS), default="table",
              show_default=True, help="Output format.")
@click.option("--plot", metavar="FILE", help="Draw the ASL curves of the measures to FILE (.png, .pdf, .svg).")
@click.option("--plot-tau", metavar="FILE", help="Draw a heat map of tau between the measures to FILE.")
def meta_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                 judged_only, rel_min, jobs, scheduler, ship_runs, trials, seed, quiet, sections, methods, mu_reading,
                 alpha, gold, fmt, plot, plot_tau):
    """Meta-evaluate measures over the per-topic scores of many runs."""
    sections = chosen_sections(sections, gold=bool(gold))
    methods = chosen_methods(methods)
    if fmt == "csv" and len(sections) != 1:
        raise click.UsageError("-f csv writes one section: choose it with -s")
    if "gold" in sections and not gold:
        raise click.UsageError("-s gold needs --gold FILE")
    plotted = [*(["asl"] if plot else []), *(["tau-matrix"] if plot_tau else [])]
    with reported_errors():
        # Before anything is read or scored:
        check_outputs([("--plot", plot), ("--plot-tau", plot_tau)], kind=FIGURE,
                      inputs=inputs + score_files + tuple(path for path in (iprob, gold) if path))
        with placement(jobs, scheduler, ship_runs) as place:
            preferences = read_gold(gold) if gold else None
            cube = load_cube(inputs, score_files, measures, missing, quiet, iprob=iprob, order=order, gain=gain,
                             topicwise=topicwise, compat=compat, depth=depth, dedupe=dedupe, judged_only=judged_only,
                             rel_min=rel_min, jobs=place.jobs, scheduler=place.cluster)
            with Progress("divaleval meta", len(methods) * trials, unit="trials",
                          enabled=False if quiet else None) as bar:
                report = meta_evaluate(cube, sections, methods=methods, alpha=alpha, trials=trials, seed=seed,
                                       gold=preferences, mu_reading=mu_reading, also=plotted,
                                       scheduler=place.cluster, progress=bar.advance)
        sys.stdout.write(render_meta(report, fmt))
        sys.stdout.flush()  # before the figures: one that fails to be written loses nothing else
        if plot:
            plot_asl_curves(report.tables["asl"], plot, alpha)
        if plot_tau:
            plot_tau_heatmap(report.tables["tau-matrix"], plot_tau)
