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
pair of runs): the difference of means and two-sided p-values of the paired
t-test and of Fisher's randomisation test (each also Holm-adjusted over the
family of --correct: the pairs of each measure, or all pairs of all measures),
and of the randomised Tukey HSD test over all the runs (its own correction).
Beside them, 1 - alpha intervals simultaneous over the same family, which
exclude 0 only when the adjusted test rejects: Bonferroni t intervals (with
Holm's p) and the HSD's from its range distribution; --bootstrap adds the
paired bootstrap test with its Bonferroni bootstrap-t interval, --unadjusted
the per-pair t interval. Effect sizes: d_z (with its interval), Sakai's ES_E2
(over the two-way ANOVA residual variance), Hedges' g_av. Randomised p-values
are (b + 1) / (B + 1) of -B trials from --seed; -f csv/json add their
Monte-Carlo standard errors.

\b
Examples (from the root of the repository, on its sample data):
  divaleval compare --baseline bm25.txt -m alpha-nDCG@20,ERR-IA@20 sample_data/qrels.txt sample_data/runs/
  divaleval compare -f csv -B 1000 --seed 7 sample_data/qrels.txt sample_data/runs/ > tests.csv
  divaleval compare --correct all --bootstrap -m alpha-nDCG@20,ERR-IA@20 sample_data/qrels.txt sample_data/runs/
  divaleval -f json -m ndeval sample_data/qrels.txt sample_data/runs/ > scores.jsonl
  divaleval compare --scores scores.jsonl --baseline bm25 -m alpha-nDCG@20 --plot diff.png
  divaleval compare --scheduler local:2 -B 1000 sample_data/qrels.txt sample_data/runs/   # trials on 2 workers
"""


@main_group.command("compare", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Compare runs: differences, simultaneous intervals, t, randomisation, Tukey HSD, "
                               "effect sizes.")
@score_input_options
@click.option("--baseline", metavar="RUN", help="Compare every run with this one (its file, file name or runtag).")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Tests at level alpha; the intervals at 1 - alpha.")
@click.option("--correct", type=click.Choice(("pairs", "all")), default="pairs", show_default=True,
              help="The family of Holm's and Bonferroni's correction: the pairs of each measure, or every pair of "
                   "every measure.")
@click.option("--bootstrap", is_flag=True, help="Add the paired bootstrap test (Holm) with its Bonferroni "
                                                "bootstrap-t interval (-B more trials).")
@click.option("--unadjusted", is_flag=True, help="Add the per-pair t interval, not adjusted for the family.")
@click.option("-f", "--format", "fmt", type=click.Choice(COMPARE_FORMATS), default="table",
              show_default=True, help="Output: a table, CSV (one row per measure and pair), JSON lines.")
@click.option("--plot", metavar="FILE", help="Draw per-topic differences of the compared pairs under the first "
                                             "measure (or --plot-measure) to FILE (.png, .pdf, .svg).")
@click.option("--plot-measure", metavar="NAME", help="The measure --plot draws.")
def compare_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                    judged_only, rel_min, jobs, scheduler, ship_runs, trials, seed, quiet, baseline, alpha, correct,
                    bootstrap, unadjusted, fmt, plot, plot_measure):
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
            with Progress("divaleval compare", (3 if bootstrap else 2) * trials, unit="trials",
                          enabled=False if quiet else None) as bar:
                rows = compare(cube, baseline, trials=trials, seed=seed, level=1 - alpha, correct=correct,
                               bootstrap=bootstrap, scheduler=place.cluster, progress=bar.advance)
        sys.stdout.write(render_comparison(cube, rows, fmt, trials, alpha, unadjusted))
        if plot:  # after the table: a figure that fails to be written loses nothing else
            sys.stdout.flush()
            plot_topic_differences(differences, plot, drawn)
