"""``divaleval ndeval [options] qrels run``: ndeval 4.5's command line, byte for byte (see compat/ndeval/)."""
from __future__ import annotations

import sys

import click

from .group import main_group
from .process import without_blas_threads


def _ndeval_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from ..compat import ndeval

    click.echo(ndeval.HELP, nl=False)
    ctx.exit(0)


@main_group.command(
    "ndeval",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    add_help_option=False,
    short_help="A byte-exact drop-in for ndeval 4.5 (its options, its CSV).",
)
@click.option("--help", is_flag=True, is_eager=True, expose_value=False, callback=_ndeval_help,
              help="Show ndeval's options (as -help does) and exit.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def ndeval_command(args) -> None:
    """divaleval ndeval [options] qrels run: ndeval 4.5's command line, byte for byte."""
    without_blas_threads()
    from ..compat import ndeval

    status = ndeval.main(list(args))
    sys.stdout.flush()
    sys.exit(status)
