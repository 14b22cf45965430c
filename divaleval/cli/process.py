"""What the command-line process does around its commands, without click (the plain evaluation,
``divaleval QRELS RUN...``, never imports it): OpenBLAS's threads, Ctrl-C, and the garbage collector at start-up."""
from __future__ import annotations

import gc
import os
import signal
import sys
from typing import NoReturn

INTERRUPTED = 128 + signal.SIGINT  # the status a shell gives a command that Ctrl-C ended

_collection = "as usual"  # or "paused" (pause_collection), "resumed" (resume_collection)


def without_blas_threads() -> None:
    """Let numpy's OpenBLAS start no threads of its own, unless the user set OPENBLAS_NUM_THREADS.

    Called before numpy loads by the commands that do no linear algebra (evaluating, the drop-ins): there
    OpenBLAS's threads would only start and wait, about 0.05 s of processor time a call. Elementwise numpy
    gives the same bits either way; compare, meta and report keep their threaded matrix products.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def exit_interrupted() -> NoReturn:
    """Ctrl-C: say so, and exit with the shell's status for it (not click's "Aborted!" and status 1,
    which a script could not tell from a failure that printed a whole output). Files the command was
    writing are already removed (output/atomic.py); what standard output got is cut short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the message short
    clear = "\r\x1b[K" if sys.stderr.isatty() else ""  # the progress line, if one was drawn
    sys.stderr.write(f"{clear}divaleval: interrupted\n")
    sys.stderr.flush()
    sys.exit(INTERRUPTED)


def pause_collection() -> None:
    """Stop the cyclic garbage collector while the process imports (the console script only).

    Importing numpy, pyarrow and the evaluator's modules makes a few hundred thousand objects, none of them
    garbage, and Python's collector walks them again and again as they accumulate (dozens of passes: about
    a twentieth of a small evaluation's time). :func:`resume_collection` turns it back on once they are in.
    """
    global _collection
    if gc.isenabled():
        gc.disable()
        _collection = "paused"


def resume_collection() -> None:
    """The collector on again (if :func:`pause_collection` stopped it), with what was imported set aside
    (``gc.freeze``: the modules' objects live as long as the process, and no later pass walks them; without
    it the first pass would walk every one of them)."""
    global _collection
    if _collection == "paused":
        _collection = "resumed"
        gc.freeze()
        gc.enable()


def collection_as_usual() -> None:
    """Before Python's own shutdown (which the console script skips when it can): the collector as it was
    before :func:`pause_collection`, what was set aside given back, so that objects are finalised as Python
    finalises them."""
    global _collection
    if _collection != "as usual":
        _collection = "as usual"
        gc.unfreeze()
        gc.enable()
