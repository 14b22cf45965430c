"""``divaleval report QRELS RUN... -o DIR``: the organiser's report, a static site from a track's runs."""
from __future__ import annotations

import contextlib
import shlex
import sys

import click

from .. import __version__
from ..api import resolve_measures
from ..errors import UsageError
from ..labels import run_labels
from ..output.report_site import SUMMARY_CSV, check_site_directory, plotting_available, write_site
from ..report import track_report
from ..report.provenance import input_checksums
from .group import CONTEXT, main_group
from .progress import Progress
from .scaleout import placement
from .scoring import INPUTS_HELP, load_cube, reported_errors, score_input_options
from .types import PlainFloat

EPILOG = INPUTS_HELP + f"""

\b
Writes DIR (refused if it exists, unless --force; never a directory that holds
an input), whole or not at all:
  index.html      runs ranked by --rank-by (default: the first measure) with
                  simultaneous intervals, the groups of runs the randomised
                  Tukey HSD test does not tell apart, the matrix of its
                  p-values, every measure's means, Kendall's tau between the
                  measures, and the configuration (version, options, SHA-256
                  of every input)
  runs/RUN.html   per run: its scores per topic against each topic's best,
                  median and worst over all runs, where it gains and loses
                  most, its table of measures
  {SUMMARY_CSV}   per topic and measure: best, median, worst, best run
                  (per-topic.json: the same records)
Runs are named by short labels: their runtags when those are unique, else the
shortest path suffixes that tell them apart (the files in a legend, and as
tooltips). The pages work offline (file://); figures need matplotlib
(pip install 'divaleval[plot]'), without it the pages hold the tables only.

\b
Examples (from the root of the repository, on its sample data):
  divaleval report -m ndeval -o report sample_data/qrels.txt sample_data/runs/
  divaleval -f json -m ndeval sample_data/qrels.txt sample_data/runs/ > scores.jsonl
  divaleval report --scores scores.jsonl --rank-by ERR-IA@20 -B 1000 --force -o report
"""

# Options that do not change a number of the report: left out of its configuration.
NOT_CONFIGURATION = {"inputs", "score_files", "output", "force", "quiet", "jobs", "scheduler", "ship_runs"}


@main_group.command("report", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="The organiser's report: a static site of rankings, significance and per-topic "
                               "summaries.")
@score_input_options
@click.option("-o", "--output", required=True, metavar="DIR", help="The directory of the site (made new).")
@click.option("--force", is_flag=True, help="Replace DIR if it exists (once the new site is complete).")
@click.option("--rank-by", metavar="NAME", help="The measure runs are ranked and tested by (default: the first).")
@click.option("--alpha", type=PlainFloat(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Significance level of the tests; intervals at level 1 - alpha.")
def report_command(inputs, measures, score_files, missing, iprob, order, gain, topicwise, compat, depth, dedupe,
                   judged_only, rel_min, jobs, scheduler, ship_runs, trials, seed, quiet, output, force, rank_by,
                   alpha):
    """Write the organiser's report over runs: a static site (see below)."""
    ctx = click.get_current_context()
    with reported_errors():
        # Before anything is read or scored:
        check_site_directory(output, inputs + score_files + ((iprob,) if iprob else ()), force)
        with placement(jobs, scheduler, ship_runs) as place:
            cube = load_cube(inputs, score_files, measures, missing, quiet, iprob=iprob, order=order, gain=gain,
                             topicwise=topicwise, compat=compat, depth=depth, dedupe=dedupe, judged_only=judged_only,
                             rel_min=rel_min, jobs=place.jobs, scheduler=place.cluster)
            labels = run_labels(cube.runs, cube.runids)
            if rank_by and rank_by not in cube.measures:  # another name of a measure scored (an alias, a set's)
                with contextlib.suppress(UsageError):
                    named = resolve_measures([rank_by])
                    rank_by = named[0].name if len(named) == 1 else rank_by
            with Progress("divaleval report", trials, unit="trials", enabled=False if quiet else None) as bar:
                report = track_report(cube, labels, rank_by, alpha=alpha, trials=trials, seed=seed,
                                      progress=bar.advance, map_blocks=place.map_blocks)
        settings = [("divaleval", __version__), ("measures", ", ".join(cube.measures)),
                    ("ranked by", report.measure), ("runs", str(len(cube.runs))), ("topics", str(len(cube.topics)))]
        settings += [(param.opts[0], _shown(ctx.params[param.name])) for param in ctx.command.params
                     if param.name not in NOT_CONFIGURATION and param.name != "measures"]
        if score_files:
            roles = [("scores", path) for path in score_files]
        else:
            roles = [("qrels", inputs[0]), *([("iprob", iprob)] if iprob else []),
                     *(("run", run) for run in cube.runs)]
        report.config = {"settings": settings, "inputs": input_checksums(roles),
                         "command": shlex.join(["divaleval", *sys.argv[1:]]) if sys.argv[1:2] == ["report"] else ""}
        if not plotting_available() and not quiet:
            click.echo("divaleval: figures need matplotlib (pip install 'divaleval[plot]'): the pages hold the "
                       "tables only", err=True)
        with Progress("divaleval report: pages", len(cube.runs) + 1, unit="pages",
                      enabled=False if quiet else None) as bar:
            write_site(report, output, force=force, progress=bar.advance)


def _shown(value) -> str:
    if value is None:
        return "(default)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
