"""``divaleval topics-needed QRELS RUN...``: how many topics a new test collection needs (Sakai 2016)."""
from __future__ import annotations

import sys

import click

from ..api import topic_set_sizes
from ..output.topicset import TOPICSET_FORMATS, render_topic_set_sizes
from ..stats.topicset import DESIGNS, VARIANCES
from .group import CONTEXT, main_group
from .scaleout import placement
from .scoring import INPUTS_HELP, load_cube, reported_errors, score_input_options
from .types import PlainFloat, PlainInt

RANDOMISED_ONLY = ("trials", "seed")  # options of the commands that run randomised tests: none here

EPILOG = INPUTS_HELP + """

\b
Topic set size design (Sakai 2016, Information Retrieval Journal 19(3)): the
runs given are a pilot. Per measure, sigma^2 is estimated on its topics x runs
scores (--variance residual: the residual variance V_E of the two-way ANOVA
without replication; within: the one-way ANOVA's within-run variance), and
each --design gives the fewest topics a new collection needs: ttest, for a
two-sided paired t-test at --alpha to detect a difference --min-diff between
two systems with probability --power (sigma_t^2 = 2 sigma^2); anova, for a
one-way ANOVA over --systems systems to detect a range --min-diff of their
means; ci, for a 1 - alpha interval of a difference no wider than --ci-width
(expected). Exact power (noncentral t and F), not the tools' approximations.

\b
Examples (from the root of the repository, on its sample data):
  divaleval topics-needed -m alpha-nDCG@20,ERR-IA@20 sample_data/qrels.txt sample_data/runs/
  divaleval topics-needed --design ttest --min-diff 0.05 --power 0.9 sample_data/qrels.txt sample_data/runs/
  divaleval topics-needed -f csv --design anova --systems 10 --alpha 0.01 sample_data/qrels.txt sample_data/runs/
  divaleval -f json -m ndeval sample_data/qrels.txt sample_data/runs/ > scores.jsonl
  divaleval topics-needed --scores scores.jsonl --design ci --ci-width 0.1 -f json
"""


def _without(*names: str):
    """Drop options the shared input options bring that mean nothing to this command."""
    def apply(function):
        function.__click_params__ = [param for param in function.__click_params__ if param.name not in names]
        return function
    return apply


@main_group.command("topics-needed", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Topic set size design: the topics a new collection needs, from a pilot's scores.")
@_without(*RANDOMISED_ONLY)
@score_input_options
@click.option("--design", "designs", multiple=True, type=click.Choice([*DESIGNS, "all"]),
              help="ttest, anova or ci (repeatable; default: all).")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="The tests' significance level; the interval's level is 1 - alpha.")
@click.option("--power", type=PlainFloat(0, 1, min_open=True, max_open=True), default=None,
              help="The power wanted, 1 - beta (default: 0.8).")
@click.option("--beta", type=PlainFloat(0, 1, min_open=True, max_open=True), default=None,
              help="The type II error rate, instead of --power.")
@click.option("--min-diff", type=PlainFloat(min=0, min_open=True), default=0.10, show_default=True, metavar="D",
              help="The difference to detect: between two systems (ttest), the range of the means (anova).")
@click.option("--ci-width", type=PlainFloat(min=0, min_open=True), default=0.10, show_default=True,
              metavar="W", help="The widest interval of a difference (ci).")
@click.option("--systems", type=PlainInt(min=2), default=None, metavar="M",
              help="Systems the ANOVA compares (default: the pilot's runs).")
@click.option("--variance", type=click.Choice(VARIANCES), default="residual", show_default=True,
              help="sigma^2: the two-way ANOVA's residual or the one-way ANOVA's within-run variance.")
@click.option("-f", "--format", "fmt", type=click.Choice(TOPICSET_FORMATS), default="table", show_default=True,
              help="Output: a table, CSV (one row per measure and design), JSON lines.")
def topics_needed_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                          judged_only, rel_min, jobs, scheduler, ship_runs, quiet, designs, alpha, power, beta,
                          min_diff, ci_width, systems, variance, fmt):
    """How many topics a new collection needs for a test or interval to meet a requirement."""
    with reported_errors():
        if power is not None and beta is not None:
            raise click.UsageError("give --power or --beta, not both")
        wanted = 1.0 - beta if beta is not None else 0.80 if power is None else power
        with placement(jobs, scheduler, ship_runs) as place:
            cube = load_cube(inputs, score_files, measures, missing, quiet, iprob=iprob, order=order, gain=gain,
                             topicwise=topicwise, compat=compat, depth=depth, dedupe=dedupe, judged_only=judged_only,
                             rel_min=rel_min, jobs=place.jobs, scheduler=place.cluster)
        sizes = topic_set_sizes(cube, designs or None, alpha=alpha, power=wanted, min_diff=min_diff,
                                ci_width=ci_width, systems=systems, variance=variance)
    sys.stdout.write(render_topic_set_sizes(sizes, fmt))
