"""``divaleval axioms``: which measure satisfies which of the RBU paper's ten constraints, checked mechanically."""
from __future__ import annotations

import sys

import click

from ..api import check_axioms
from ..axioms import CONSTRAINTS, DEFAULT_CASES, DEFAULT_SEED, constraint_named
from ..errors import UsageError
from ..output.axioms import AXIOM_FORMATS, write_report
from .group import CONTEXT, main_group
from .progress import Progress
from .types import PlainInt

EPILOG = """\b
Examples:
  divaleval axioms                                  # every measure of the paper's Table 1, all ten constraints
  divaleval axioms -m RBU -m 'RBU(e=0)' -c Conf -c Sat
  divaleval axioms -m all -c Pri -c Red -n 50 -f csv > axioms.csv   # every measure of intentwise judgments
  divaleval axioms -f markdown -n 100 --seed 7 -m alpha-nDCG@10,D#-nDCG@10
  divaleval axioms --explain DeepTh

\b
Constraints (Amigo, Spina, Carrillo-de-Albornoz, SIGIR 2018, sec. 3):
""" + "\n".join(f"  {c.key:<8} {c.number:>2}. {c.title}" for c in CONSTRAINTS) + """

For each constraint, random topics within its conditions give pairs of
rankings (worse, better) of which the constraint says that better must score
more. For each measure and constraint the report says yes (held in every
case), no (with the smallest counterexample found, printed as files to paste
and re-score with the ordinary command) or undef (a measure of binary
relevance, on graded cases it cannot tell apart). Exit status: 0, or 2 on
bad usage.
"""


def _explain(ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]) -> None:
    if not value or ctx.resilient_parsing:
        return
    try:
        chosen = CONSTRAINTS if "all" in [v.lower() for v in value] else [constraint_named(v) for v in value]
    except UsageError as exc:
        raise click.BadParameter(str(exc), param_hint="--explain") from None
    click.echo("\n".join(c.explain() for c in chosen), nl=False)
    ctx.exit(0)


@main_group.command(
    "axioms",
    epilog=EPILOG,
    context_settings=CONTEXT,
    short_help="Check measures against the RBU paper's ten formal constraints.",
)
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure to check (repeatable, or a comma-separated list, or a set such as 'all'); "
                   "default: a measure for every row of the paper's Table 1.")
@click.option("-c", "--constraint", "constraints", multiple=True, metavar="NAME",
              help="Constraint to check (repeatable): Pri, Deep, DeepTh, CloseTh, Conf, AspDiv, Red, MRed, Sat, "
                   "AspRel (or its number); default: all ten.")
@click.option("-n", "--cases", type=PlainInt(min=1), default=DEFAULT_CASES, show_default=True,
              help="Random cases per constraint and relevance kind (binary, graded).")
@click.option("--seed", type=PlainInt(), default=DEFAULT_SEED, show_default=True,
              help="Seed of the random generation (same seed, same report).")
@click.option("--max-length", type=PlainInt(min=4), default=10, show_default=True, metavar="N",
              help="Documents in a generated ranking, and never more than a measure's cutoff (so that the "
                   "measure, not its cutoff, decides); DeepTh's rankings are 2n long.")
@click.option("--gain", default="exp", show_default=True, metavar="TABLE",
              help="Gains of graded levels: exp (2^L-1), linear (L) or G1:G2:...")
@click.option("--topicwise", type=click.Choice(["max", "sumlog"]), default="max", show_default=True,
              help="One level per document for ad hoc measures: max over the aspects (the paper's) or sumlog.")
@click.option("-f", "--format", "fmt", type=click.Choice(AXIOM_FORMATS), default="table", show_default=True,
              help="Output format.")
@click.option("--examples/--no-examples", default=True, show_default=True,
              help="Print each counterexample after the table (table and markdown formats).")
@click.option("--explain", multiple=True, metavar="CONSTRAINT", is_eager=True, expose_value=False,
              callback=_explain, help="Print the formal statement of a constraint (or 'all') and how it is "
                                      "checked, and exit.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on standard error.")
def axioms_command(measures, constraints, cases, seed, max_length, gain, topicwise, fmt, examples, quiet):
    """Check measures against the RBU paper's ten formal constraints, on random cases.

    Prints, for each measure and constraint, whether the constraint held in
    every generated case, and otherwise the smallest counterexample found.
    """
    progress = Progress("divaleval axioms", enabled=False if quiet else None)
    try:
        with progress:
            report = check_axioms(list(measures) or None, list(constraints) or None, cases=cases, seed=seed,
                                  max_length=max_length, gain=gain, topicwise=topicwise,
                                  progress=progress.note if progress.enabled else None)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    write_report(report, fmt, sys.stdout, examples)
