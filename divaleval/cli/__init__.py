"""The command line: a click group whose default command evaluates runs.

``divaleval [OPTIONS] QRELS RUN...`` is ``divaleval evaluate ...``; other
commands (``divaleval ndeval ...``) are named first, each with its own
``--help``. One module per command; importing it registers it with the group.

A call with no option that names no command, ``divaleval QRELS RUN...`` (as grading scripts call it once per
run), is the default command with every option at its default: :func:`main` runs it without click
(cli/evaluation.py), whose import and parsing would be a tenth of such a call. Its output and messages are
the click command's. The group and its commands are imported for any other call (``main_group`` and
``evaluate_command`` here are imported when first asked for).
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import NoReturn

from ..memory import keep_large_blocks_in_heap  # (ctypes only: pyarrow is imported when memory is released)
from .choices import COMMANDS
from .process import collection_as_usual, exit_interrupted, pause_collection, resume_collection

__all__ = ["main", "run_and_exit", "main_group", "evaluate_command"]

COMPLETION_ENVIRONMENT = "_DIVALEVAL_COMPLETE"  # (click's shell completion: the group answers it)


def __getattr__(name: str):
    """``main_group`` and ``evaluate_command``, imported when first asked for."""
    if name not in ("main_group", "evaluate_command"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_commands(), name)


def _commands():
    """The default command's module, with the group and the commands imported with it."""
    from . import evaluate, ndeval  # noqa: F401  (each registers its command; the others load when named, group.py)

    return evaluate


def main(argv: list[str] | None = None) -> None:
    """The ``divaleval`` command in this process: ends by raising SystemExit with its exit status, as click does."""
    args = sys.argv[1:] if argv is None else list(argv)
    # A reader that goes away (`| head`) ends this process as it ends cat and sort: quietly, by SIGPIPE
    # (status 141 in the shell), instead of Python's BrokenPipeError and click's exit status 1.
    if hasattr(signal, "SIGPIPE"):  # (not on Windows)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # Kernels make and drop arrays of a few MB by the thousand: from the heap, not mapped afresh each time.
    keep_large_blocks_in_heap()
    try:
        sys.stdout.reconfigure(errors="surrogateescape")
        if plain_evaluation(args):
            from .evaluation import evaluate_plainly

            evaluate_plainly(args)
        resume_collection()  # (click's imports and the group's are in; a command's own are its concern)
        _commands().main_group.main(args=args, prog_name="divaleval")
    except BrokenPipeError:  # where SIGPIPE could not be restored: quietly, with its status
        sys.stderr.close()
        os._exit(141)
    except KeyboardInterrupt:  # outside a command (reading its arguments): as within one
        exit_interrupted()


def plain_evaluation(args: list[str]) -> bool:
    """Whether the arguments are ``QRELS RUN...`` alone: at least two, none an option (``-`` is standard input),
    the first no command's name; not on Windows (click expands wildcards there) nor for shell completion."""
    return (len(args) >= 2 and args[0] not in COMMANDS and all(arg == "-" or not arg.startswith("-") for arg in args)
            and os.name != "nt" and COMPLETION_ENVIRONMENT not in os.environ)


def run_and_exit() -> NoReturn:
    """The ``divaleval`` console script and ``python -m divaleval``: :func:`main`, then the process ends.

    The garbage collector is paused while the command imports (cli/process.py). Python's shutdown after
    the output is written frees every module's objects, numpy's and Arrow's among them: 15-25 ms, more
    than some evaluations take. Here the process does what that shutdown does
    that anyone can see (runs the functions registered with atexit, as logging, Dask and coverage
    register them; flushes standard output and standard error), then exits at once with main's status.
    Python shuts down as usual where another thread that is not a daemon is still running (it would be
    waited for), under a profiler or tracer (they write their results after the program), or where a
    stream cannot be flushed (Python reports it).
    """
    pause_collection()
    try:
        main()
        status: object = 0
    except SystemExit as leaving:
        status = 0 if leaving.code is None else leaving.code
        if not isinstance(status, int) or not _nothing_else_to_wait_for():
            collection_as_usual()
            raise
    except BaseException:
        collection_as_usual()
        raise
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # (CPython's; elsewhere the usual shutdown)
    if run_exit_functions is None:
        collection_as_usual()
        sys.exit(status)
    run_exit_functions()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # (a full disk, a closed stream)
        collection_as_usual()
        sys.exit(status)
    os._exit(status)


def _nothing_else_to_wait_for() -> bool:
    return (sys.getprofile() is None and sys.gettrace() is None
            and all(thread.daemon or thread is threading.main_thread() for thread in threading.enumerate()))
