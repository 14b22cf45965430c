"""What the commands that compare runs share: their inputs (QRELS RUN... scored now, or --scores files
read back), the scoring options, and error reporting (an output path's too)."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

import click

from ..api import read_score_cube, score_cube
from ..compat import MODES
from ..errors import DivalevalError, UsageError, warn_to_stderr
from ..meta import MISSING, ScoreCube
from ..output.paths import OutputPathError
from ..ranking import ORDERS
from .progress import Progress, count_runs
from .scaleout import cluster_options
from .types import PlainInt

INPUTS_HELP = """\b
Inputs: QRELS RUN... (scored now, every qrels topic: a topic missing from a run
scores 0, as with -c), or --scores FILE... (per-topic scores printed earlier
by divaleval, in any of its -f formats: nothing is scored twice; -f json keeps
every digit, ndeval's CSV 6 decimals, trec and table 4, read as printed)."""


def score_input_options(command: Callable) -> Callable:
    """The options that say what to score, or which scores to read back."""
    options = [
        click.argument("inputs", metavar="[QRELS RUN...]", nargs=-1),
        click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
                     help="Measure or set (repeatable; default: the ndeval set; with --scores: every column)."),
        click.option("--scores", "score_files", multiple=True, metavar="FILE",
                     help="Read per-topic scores back from divaleval's output (repeatable) instead of scoring."),
        click.option("--missing", type=click.Choice(MISSING), default="error", show_default=True,
                     help="A topic some runs have no score for: an error, 0, or left out for every run."),
        click.option("--iprob", metavar="FILE", help="Intent probabilities, as for evaluating."),
        click.option("--order", type=click.Choice(ORDERS), default=None, help="Ranking order, as for evaluating."),
        click.option("--gain", default="exp", show_default=True, metavar="TABLE", help="Gains of graded levels."),
        click.option("--topicwise", type=click.Choice(["sumlog", "max"]), default="sumlog", show_default=True,
                     help="Topicwise levels of ad hoc measures."),
        click.option("--compat", type=click.Choice(sorted(MODES)), default=None,
                     help="A reference tool's conventions, as for evaluating."),
        click.option("-M", "--depth", type=PlainInt(min=1), metavar="N", help="Score the first N documents."),
        click.option("--dedupe", is_flag=True, help="Keep the first copy of a repeated docno."),
        click.option("-J", "--judged-only", is_flag=True,
                     help="Condensed lists: remove the documents the qrels do not judge (after -M), as for "
                          "evaluating."),
        click.option("--rel-min", type=PlainInt(min=1, max=32767), default=1, show_default=True, metavar="L",
                     help="Binary measures count levels >= L as relevant, as for evaluating."),
        click.option("-j", "--jobs", type=PlainInt(min=0), default=1, show_default=True, metavar="N",
                     help="Score runs in N processes (0: one per core)."),
        cluster_options,
        click.option("-B", "--trials", type=PlainInt(min=1), default=10_000, show_default=True, metavar="B",
                     help="Trials of each randomised test."),
        click.option("--seed", type=PlainInt(min=0), default=0, show_default=True, metavar="N",
                     help="Seed of the randomised tests: the same seed, the same p-values."),
        click.option("-q", "--quiet", is_flag=True, help="No warnings, no progress bar."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@contextmanager
def reported_errors() -> Iterator[None]:
    """Usage errors print with the usage line; input errors as ``divaleval: FILE:LINE: reason``, and an output
    path that cannot be written as ``divaleval: OPTION PATH: reason``; all exit 2."""
    try:
        yield
    except OutputPathError as exc:
        click.echo(f"divaleval: {exc}", err=True)
        sys.exit(2)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except DivalevalError as exc:
        click.echo(f"divaleval: {exc}", err=True)
        sys.exit(2)


# The options that only change how runs are scored: meaningless with --scores.
SCORING_ONLY = ("iprob", "order", "gain", "topicwise", "compat", "depth", "dedupe", "judged_only", "rel_min")


def load_cube(inputs: tuple[str, ...], score_files: tuple[str, ...], measures: tuple[str, ...], missing: str,
              quiet: bool, **scoring) -> ScoreCube:
    """The score cube of the command's inputs (scored now, with a progress bar; or read back)."""
    warn = (lambda message: None) if quiet else warn_to_stderr
    if score_files:
        if inputs:
            raise click.UsageError("give QRELS RUN... or --scores FILE, not both")
        ctx = click.get_current_context()
        given = [param.opts[0] for param in ctx.command.params if param.name in SCORING_ONLY
                 and ctx.get_parameter_source(param.name) is not click.core.ParameterSource.DEFAULT]
        if given:
            it = "they say" if len(given) > 1 else "it says"
            raise click.UsageError(f"{', '.join(given)} cannot be used with --scores: {it} how runs are scored, and "
                                   "--scores reads back scores computed with the options they were printed with")
        return read_score_cube(list(score_files), list(measures) or None, missing=missing, warn=warn)
    if len(inputs) < 2:
        raise click.UsageError("expected QRELS and at least two RUNs (or --scores FILE)")
    runs = list(inputs[1:])
    with Progress(f"divaleval {click.get_current_context().info_name}", count_runs(runs), unit="runs",
                  enabled=False if quiet else None) as bar:
        return score_cube(inputs[0], runs, list(measures) or None, missing=missing,
                          warn=(lambda message: None) if quiet else bar.warn, on_run=lambda _: bar.step(),
                          **scoring)
