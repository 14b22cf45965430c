"""``divaleval trec_eval [options] QRELS RUN...``: trec_eval 10.0's command line (9.0.7's with
``--trec-eval-version 9``), byte for byte (see compat/trec_eval/)."""
from __future__ import annotations

import sys

import click

from .group import main_group
from .process import without_blas_threads


@main_group.command(
    "trec_eval",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False,
                      "help_option_names": []},
    add_help_option=False,
    short_help="A drop-in for trec_eval 10.0 / 9.0.7 (its options, its output).",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def trec_eval_command(args) -> None:
    """divaleval trec_eval [options] QRELS RUN...: trec_eval's command line, byte for byte."""
    without_blas_threads()
    from ..compat import trec_eval

    status = trec_eval.main(list(args))
    sys.stdout.flush()
    sys.exit(status)
