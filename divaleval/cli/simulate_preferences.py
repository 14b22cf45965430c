"""``divaleval simulate-preferences [OPTIONS] QRELS``: preference judgments simulated from intentwise qrels."""
from __future__ import annotations

import sys

import click

from ..api import simulate_preferences
from ..compat import MODES
from ..errors import DivalevalError, warn_to_stderr
from ..io.preferences import format_preferences
from ..model.preference_simulation import KINDS, TIE_RULES, SimulationSize
from ..output.atomic import atomic_output
from ..output.paths import cannot_write, check_output
from .group import CONTEXT, main_group
from .progress import Progress
from .scoring import reported_errors
from .types import PlainInt

MAX_LINES = 10_000_000  # about 1 GB of judgments, written in about half a minute

EPILOG = """\b
Examples (from the root of the repository, on its sample data):
  divaleval simulate-preferences sample_data/qrels.txt > prefs.txt     # the TREC profile, pairs and triplets
  divaleval simulate-preferences --kind pairs --seed 7 -o pairs.txt sample_data/qrels.txt
  divaleval simulate-preferences --pool sample_data/runs/ --pool-depth 10 sample_data/qrels.txt | divaleval --prefs - sample_data/runs/
  divaleval simulate-preferences --compat evalir --ties alphabetical sample_data/qrels.txt   # evalIR's simulation

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
@click.option("--max-lines", type=PlainInt(min=0), default=MAX_LINES, show_default=True, metavar="N",
              help="Refuse, before starting, a simulation that would write more than N judgments "
                   "(0: no limit).")
@click.option("-o", "--output", metavar="FILE", help="Write to FILE (a new file) instead of standard output.")
@click.option("--force", is_flag=True, help="With -o: replace FILE if it exists (never an input).")
@click.option("-q", "--quiet", is_flag=True, help="Do not print warnings or progress.")
def simulate_preferences_command(qrels, profiles, kind, ties, seed, pool, pool_depth, compat, max_lines, output, force,
                                 quiet):
    """Simulate preference judgments from intentwise QRELS (Chandar & Carterette 2013, sec. 4)."""
    warn = (lambda message: None) if quiet else warn_to_stderr
    with reported_errors():
        if output is not None:  # before anything is read
            check_output(output, "-o", inputs=[qrels, profiles, *pool],
                         exists=None if force else "choose a new file (or --force to replace it)")
        simulation = simulate_preferences(qrels, profiles, kind=kind, ties=ties, seed=seed, compat=compat,
                                          pool=list(pool), pool_depth=pool_depth, warn=warn)
        if max_lines and simulation.size.lines > max_lines:
            raise DivalevalError(too_many(simulation.size, kind, max_lines))
        progress = Progress("divaleval simulate-preferences", simulation.size.lines, unit="judgments",
                            enabled=False if quiet else None)
        with progress:
            if output is None:
                _write(simulation, sys.stdout, progress)
                return
            try:
                with atomic_output(output) as handle:  # whole or not at all: an error or Ctrl-C leaves nothing
                    _write(simulation, handle, progress)
            except OSError as exc:
                raise cannot_write(output, exc, "-o") from None


def too_many(size: SimulationSize, kind: str, limit: int) -> str:
    """Why a simulation is refused, and how to narrow it."""
    topic, profile, documents = size.largest
    growth = "with the square" if kind == "pairs" else "with the cube"
    return (f"simulate-preferences would write {size.lines:,} judgments (about {_amount(size.bytes)}), more than "
            f"--max-lines {limit}: they grow {growth} of the documents judged per topic and profile (topic "
            f"{topic}, profile {profile}: {documents:,} documents). Narrow it: --pool RUN... judges only the "
            "documents the runs rank in their first --pool-depth (a smaller depth, fewer), --kind pairs leaves out "
            "the triplets, --profiles chooses topics and intents; or raise --max-lines (0: no limit)")


def _amount(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def _write(tables, handle, progress: Progress) -> None:
    for table in tables:
        for text in format_preferences(table):
            handle.write(text)
            progress.step(text.count("\n"))
