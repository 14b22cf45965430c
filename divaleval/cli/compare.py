"""``divaleval compare QRELS RUN... [--baseline RUN]``: is run A really better than run B?"""
from __future__ import annotations

import sys

import click

from ..cluster import map_blocks
from ..meta import compare_runs, topic_differences
from ..output.plots import check_plot_path, plot_topic_differences
from .group import CONTEXT, main_group
from .progress import Progress
from .scoring import (INPUTS_HELP, check_output_path, cluster_of, format_p, json_records, load_cube,
                      reported_errors, score_input_options, text_table)
from .types import PlainFloat

MAX_PLOTTED_PAIRS = 12

EPILOG = INPUTS_HELP + """

\b
Per measure: each run's mean; for every run against --baseline (else every
pair of runs): the difference of means with its 95% t interval, the effect
size d_z (mean difference / sd of the differences), and two-sided p-values of
the paired t-test and of Fisher's randomisation test (each also Holm-adjusted
over the pairs compared under the measure), and of the randomised Tukey HSD
test over all the runs (its own multiple-comparison correction). Tests are
over topics; randomised ones draw -B trials from --seed.

\b
Examples:
  divaleval compare qrels.txt runs/ --baseline bm25.txt -m alpha-nDCG@20,ERR-IA@20
  divaleval compare -f csv -B 1000 --seed 7 qrels.txt runA.txt runB.txt runC.txt > tests.csv
  divaleval -f json -m ndeval qrels.txt runs/ > scores.jsonl
  divaleval compare --scores scores.jsonl --baseline runA.txt -m alpha-nDCG@20 --plot diff.png
  divaleval compare --scheduler local:2 -B 100000 --seed 7 qrels.txt runs/   # trials on 2 workers
"""


@main_group.command("compare", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Compare runs: differences, intervals, paired t, randomisation, Tukey HSD.")
@score_input_options
@click.option("--baseline", metavar="RUN", help="Compare every run with this one (its file, file name or runtag).")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="The intervals are at level 1 - alpha.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True, help="Output: a table, CSV (one row per measure and pair), JSON lines.")
@click.option("--plot", metavar="FILE", help="Draw per-topic differences of the compared pairs under the first "
                                             "measure (or --plot-measure) to FILE (.png, .pdf, .svg).")
@click.option("--plot-measure", metavar="NAME", help="The measure --plot draws.")
def compare_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                    judged_only, rel_min, jobs, scheduler, ship_runs, trials, seed, quiet, baseline, alpha, fmt, plot,
                    plot_measure):
    """Compare runs per measure, with significance tests over topics."""
    with reported_errors(), cluster_of(scheduler, ship_runs, jobs) as cluster:
        if plot:
            check_plot_path(plot)
            check_output_path(plot, inputs + score_files)
        cube = load_cube(inputs, score_files, measures, missing, quiet, iprob=iprob, order=order, gain=gain,
                         topicwise=topicwise, compat=compat, depth=depth, dedupe=dedupe, judged_only=judged_only,
                         rel_min=rel_min, jobs=jobs, scheduler=cluster)
        drawn = plot_measure or cube.measures[0]
        if plot:
            if drawn not in cube.measures:
                raise click.UsageError(f"--plot-measure {drawn!r} is not among the measures: "
                                       f"{', '.join(cube.measures)}")
            differences = topic_differences(cube, drawn, baseline)
            if differences[["run_a", "run_b"]].drop_duplicates().shape[0] > MAX_PLOTTED_PAIRS:
                raise click.UsageError(f"--plot draws at most {MAX_PLOTTED_PAIRS} pairs: choose a --baseline "
                                       "or fewer runs")
        with Progress("divaleval compare", 2 * trials, unit="trials", enabled=False if quiet else None) as bar:
            rows = compare_runs(cube, baseline, trials=trials, seed=seed, level=1 - alpha, progress=bar.advance,
                                map_blocks=map_blocks(cluster))
        if plot:
            plot_topic_differences(differences, plot, drawn)
    if fmt == "csv":
        rows.to_csv(sys.stdout, index=False, lineterminator="\n")
    elif fmt == "json":
        for line in json_records(rows):
            click.echo(line)
    else:
        click.echo(_table(cube, rows, trials, alpha))


def _table(cube, rows, trials: int, alpha: float) -> str:
    means = cube.means()
    header = f"{len(cube.runs)} runs, {len(cube.topics)} topics; randomised tests: {trials} trials"
    means_table = text_table([[run, *(f"{v:.4f}" for v in means[r])] for r, run in enumerate(cube.runs)],
                             ["run", *cube.measures])
    level = f"{100 * (1 - alpha):g}% CI"
    body = [[row.measure, row.run_a, row.run_b, f"{row.diff:+.4f}", f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]",
             f"{row.effect_dz:+.3f}", format_p(row.p_t), format_p(row.p_t_holm), format_p(row.p_rand, trials),
             format_p(row.p_rand_holm, trials), format_p(row.p_hsd, trials)]
            for row in rows.itertuples(index=False)]
    tests = text_table(body, ["measure", "run A", "run B", "A - B", level, "d_z", "p(t)", "Holm", "p(rand)", "Holm",
                              "p(HSD)"], names=3)
    return f"{header}\n\nMeans\n{means_table}\n\nDifferences (two-sided p-values)\n{tests}"
