"""``divaleval compare QRELS RUN... [--baseline RUN]``: is run A really better than run B?"""
from __future__ import annotations

import sys

import click

from ..api import compare
from ..meta import topic_differences
from ..output.compare import COMPARE_FORMATS, render_comparison
from ..output.plots import check_plot_path, plot_topic_differences
from .group import CONTEXT, main_group
from .progress import Progress
from .scaleout import placement
from .scoring import INPUTS_HELP, load_cube, reported_errors, score_input_options
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
Examples (from the root of the repository, on its sample data):
  divaleval compare --baseline bm25.txt -m alpha-nDCG@20,ERR-IA@20 sample_data/qrels.txt sample_data/runs/
  divaleval compare -f csv -B 1000 --seed 7 sample_data/qrels.txt sample_data/runs/ > tests.csv
  divaleval -f json -m ndeval sample_data/qrels.txt sample_data/runs/ > scores.jsonl
  divaleval compare --scores scores.jsonl --baseline bm25 -m alpha-nDCG@20 --plot diff.png
  divaleval compare --scheduler local:2 -B 1000 sample_data/qrels.txt sample_data/runs/   # trials on 2 workers
"""


@main_group.command("compare", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Compare runs: differences, intervals, paired t, randomisation, Tukey HSD.")
@score_input_options
@click.option("--baseline", metavar="RUN", help="Compare every run with this one (its file, file name or runtag).")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="The intervals are at level 1 - alpha.")
@click.option("-f", "--format", "fmt", type=click.Choice(COMPARE_FORMATS), default="table",
              show_default=True, help="Output: a table, CSV (one row per measure and pair), JSON lines.")
@click.option("--plot", metavar="FILE", help="Draw per-topic differences of the compared pairs under the first "
                                             "measure (or --plot-measure) to FILE (.png, .pdf, .svg).")
@click.option("--plot-measure", metavar="NAME", help="The measure --plot draws.")
def compare_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                    judged_only, rel_min, jobs, scheduler, ship_runs, trials, seed, quiet, baseline, alpha, fmt, plot,
                    plot_measure):
    """Compare runs per measure, with significance tests over topics."""
    with reported_errors():
        if plot:  # before anything is read or scored
            check_plot_path(plot, "--plot", inputs + score_files + ((iprob,) if iprob else ()))
        with placement(jobs, scheduler, ship_runs) as place:
            cube = load_cube(inputs, score_files, measures, missing, quiet, iprob=iprob, order=order, gain=gain,
                             topicwise=topicwise, compat=compat, depth=depth, dedupe=dedupe, judged_only=judged_only,
                             rel_min=rel_min, jobs=place.jobs, scheduler=place.cluster)
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
                rows = compare(cube, baseline, trials=trials, seed=seed, level=1 - alpha, scheduler=place.cluster,
                               progress=bar.advance)
        sys.stdout.write(render_comparison(cube, rows, fmt, trials, alpha))
        if plot:  # after the table: a figure that fails to be written loses nothing else
            sys.stdout.flush()
            plot_topic_differences(differences, plot, drawn)
