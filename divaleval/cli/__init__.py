"""The command line: a click group whose default command evaluates runs.

``divaleval [OPTIONS] QRELS RUN...`` is ``divaleval evaluate ...``; other
commands (``divaleval ndeval ...``) are named first, each with its own
``--help``. One module per command; importing it registers it with the group.
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import NoReturn

from ..memory import keep_large_blocks_in_heap  # (ctypes only: pyarrow is imported when memory is released)
from . import evaluate, ndeval  # noqa: F401  (each registers its command; the others load when named, group.py)
from .evaluate import evaluate_command
from .group import exit_interrupted, main_group

__all__ = ["main", "run_and_exit", "main_group", "evaluate_command"]


def main(argv: list[str] | None = None) -> None:
    """The ``divaleval`` command in this process: ends by raising SystemExit with its exit status, as click does."""
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


def run_and_exit() -> NoReturn:
    """The ``divaleval`` console script and ``python -m divaleval``: :func:`main`, then the process ends.

    Python's shutdown after the output is written frees every module's objects, numpy's and Arrow's
    among them: 15-25 ms, more than some evaluations take. Here the process does what that shutdown does
    that anyone can see (runs the functions registered with atexit, as logging, Dask and coverage
    register them; flushes standard output and standard error), then exits at once with main's status.
    Python shuts down as usual where another thread that is not a daemon is still running (it would be
    waited for), under a profiler or tracer (they write their results after the program), or where a
    stream cannot be flushed (Python reports it).
    """
    try:
        main()
        status: object = 0
    except SystemExit as leaving:
        status = 0 if leaving.code is None else leaving.code
        if not isinstance(status, int) or not _nothing_else_to_wait_for():
            raise
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # (CPython's; elsewhere the usual shutdown)
    if run_exit_functions is None:
        sys.exit(status)
    run_exit_functions()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # (a full disk, a closed stream)
        sys.exit(status)
    os._exit(status)


def _nothing_else_to_wait_for() -> bool:
    return (sys.getprofile() is None and sys.gettrace() is None
            and all(thread.daemon or thread is threading.main_thread() for thread in threading.enumerate()))
