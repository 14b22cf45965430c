"""``divaleval simulate-preferences [OPTIONS] QRELS``: preference judgments simulated from intentwise qrels."""
from __future__ import annotations

import os
import sys

import click

from ..api import simulate_preferences
from ..compat import MODES
from ..errors import DivalevalError, UsageError, warn_to_stderr
from ..io.preferences import format_preferences
from ..model.preference_simulation import KINDS, TIE_RULES
from ..output.atomic import atomic_output
from .group import CONTEXT, main_group
from .types import PlainInt

EPILOG = """\b
Examples:
  divaleval simulate-preferences qrels.txt > prefs.txt          # the TREC profile, pairs and triplets
  divaleval simulate-preferences --profiles profiles.txt --seed 7 -o prefs.txt qrels.txt
  divaleval simulate-preferences --pool runs/ --pool-depth 20 qrels.txt | divaleval --prefs - runs/
  divaleval simulate-preferences --compat evalir --ties alphabetical qrels.txt   # evalIR's simulation

\b
For each profile (a set of intents; without --profiles, the "TREC profile" of
every intent), the documents relevant to one of its intents are judged: of two
documents, the one relevant to more profile intents is preferred; given a third
document, only the intents it is not relevant to count. Ties are random
(reproducible with --seed) or alphabetical. Output lines:
'topic profile docA docB winner' (pairwise) and 'topic profile given docA docB
winner' (triplets). Exit status 2 on a bad option or input.
"""


@main_group.command(
    "simulate-preferences",
    epilog=EPILOG,
    context_settings=CONTEXT,
    short_help="Simulate pairwise and triplet preference judgments from intentwise qrels (for nPrf).",
)
@click.argument("qrels", metavar="QRELS")
@click.option("--profiles", metavar="FILE",
              help="User profiles, lines 'topic profile intent [intent ...]' (default: the TREC profile).")
@click.option("--kind", type=click.Choice(KINDS), default="both", show_default=True,
              help="Pairwise judgments, triplets (conditional judgments), or both.")
@click.option("--ties", type=click.Choice(TIE_RULES), default="random", show_default=True,
              help="A tie goes to a seeded coin, or to the docno first in byte order.")
@click.option("--seed", type=PlainInt(), default=0, show_default=True, help="Seed of the coins that break ties.")
@click.option("--pool", "pool", multiple=True, metavar="RUN",
              help="Judge only documents ranked in the first --pool-depth of these runs (repeatable; "
                   "a directory: every run in it).")
@click.option("--pool-depth", type=PlainInt(min=1), default=20, show_default=True, metavar="N",
              help="Depth of the pool (score order).")
@click.option("--compat", type=click.Choice(sorted(MODES)), default=None,
              help="Simulate as a reference tool does (evalir: an intent the given document covers counts 0.5).")
@click.option("-o", "--output", metavar="FILE", help="Write to FILE (a new file) instead of standard output.")
@click.option("--force", is_flag=True, help="With -o: replace FILE if it exists (never an input).")
@click.option("-q", "--quiet", is_flag=True, help="Do not print warnings or progress.")
def simulate_preferences_command(qrels, profiles, kind, ties, seed, pool, pool_depth, compat, output, force, quiet):
    """Simulate preference judgments from intentwise QRELS (Chandar & Carterette 2013, sec. 4)."""
    warn = (lambda message: None) if quiet else warn_to_stderr
    inputs = [path for path in (qrels, profiles, *pool) if path and path != "-"]
    if output is not None:
        _check_output(output, inputs, force)
    try:
        tables = simulate_preferences(qrels, profiles, kind=kind, ties=ties, seed=seed, compat=compat,
                                      pool=list(pool), pool_depth=pool_depth, warn=warn)
        progress = sys.stderr.isatty() and not quiet
        if output is None:
            _write(tables, sys.stdout, progress)
        else:
            _write_new_file(tables, output, progress)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except DivalevalError as exc:
        click.echo(f"divaleval: {exc}", err=True)
        sys.exit(2)


def _check_output(output: str, inputs: list[str], force: bool) -> None:
    if os.path.isdir(output):
        raise click.UsageError(f"-o {output}: is a directory")
    if not os.path.exists(output):
        return
    if any(os.path.exists(path) and os.path.samefile(output, path) for path in inputs):
        raise click.UsageError(f"-o {output}: is one of the inputs; choose a new file")
    if not force:
        raise click.UsageError(f"-o {output}: exists; choose a new file (or --force to replace it)")


def _write(tables, handle, progress: bool) -> int:
    written = 0
    for table in tables:
        for text in format_preferences(table):
            handle.write(text)
        written += len(table)
        if progress:
            click.echo(f"\r{written} judgments", err=True, nl=False)
    if progress:
        click.echo("", err=True)
    return written


def _write_new_file(tables, output: str, progress: bool) -> None:
    """Write ``output`` whole or not at all: an error or Ctrl-C leaves nothing behind."""
    with atomic_output(output) as handle:
        _write(tables, handle, progress)
