"""``divaleval gdeval [options] qrels run``: gdeval.pl 1.3's command line, byte for byte (see compat/gdeval/).

Every argument goes to gdeval's own parser (single-dash Perl-style options);
``--help`` is taken as its ``-help``.
"""
from __future__ import annotations

import sys

import click

from .group import main_group
from .process import without_blas_threads


@main_group.command(
    "gdeval",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    short_help="A byte-exact drop-in for gdeval.pl 1.3 (nDCG@k, ERR@k, its CSV).",
)
@click.pass_context
def gdeval_command(ctx: click.Context) -> None:
    """divaleval gdeval [options] qrels run: gdeval.pl 1.3's command line, byte for byte (-help: its options)."""
    without_blas_threads()
    from ..compat import gdeval

    status = gdeval.main(["-help"] if ctx.args == ["--help"] else list(ctx.args))
    sys.stdout.flush()
    sys.exit(status)
