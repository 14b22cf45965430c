"""The command line: a click group whose default command evaluates runs.

``divaleval [OPTIONS] QRELS RUN...`` is ``divaleval evaluate ...``; other
commands (``divaleval ndeval ...``) are named first, each with its own
``--help``. One module per command; importing it registers it with the group.
"""
from __future__ import annotations

import os
import signal
import sys

from ..memory import keep_large_blocks_in_heap  # (ctypes only: pyarrow is imported when memory is released)
from . import evaluate, ndeval  # noqa: F401  (each registers its command; the others load when named, group.py)
from .evaluate import evaluate_command
from .group import exit_interrupted, main_group

__all__ = ["main", "main_group", "evaluate_command"]


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``divaleval`` command."""
    # A reader that goes away (`| head`) ends this process as it ends cat and sort: quietly, by SIGPIPE
    # (status 141 in the shell), instead of Python's BrokenPipeError and click's exit status 1.
    if hasattr(signal, "SIGPIPE"):  # (not on Windows)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # Kernels make and drop arrays of a few MB by the thousand: from the heap, not mapped afresh each time.
    keep_large_blocks_in_heap()
    try:
        sys.stdout.reconfigure(errors="surrogateescape")
        main_group.main(args=sys.argv[1:] if argv is None else list(argv), prog_name="divaleval")
    except BrokenPipeError:  # where SIGPIPE could not be restored: quietly, with its status
        sys.stderr.close()
        os._exit(141)
    except KeyboardInterrupt:  # outside a command (reading its arguments): as within one
        exit_interrupted()
