"""The command line: a click group whose default command evaluates runs.

``divaleval [OPTIONS] QRELS RUN...`` is ``divaleval evaluate ...``; other
commands (``divaleval ndeval ...``) are named first, each with its own
``--help``. One module per command; importing it registers it with the group.
"""
from __future__ import annotations

import sys

from . import evaluate, ndeval, simulate_preferences  # noqa: F401  (each registers its command)
from .evaluate import evaluate_command
from .group import main_group

__all__ = ["main", "main_group", "evaluate_command"]


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``divaleval`` command."""
    try:
        sys.stdout.reconfigure(errors="surrogateescape")
        main_group.main(args=sys.argv[1:] if argv is None else list(argv), prog_name="divaleval")
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        sys.stderr.close()
        sys.exit(1)
