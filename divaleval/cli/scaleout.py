"""The options that say where the work runs (``-j`` and ``--scheduler``, ``--ship-runs``), shared by the commands
that score runs or resample trials; :func:`divaleval.placement.placed` resolves them."""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from ..placement import Placement
    from .progress import Progress

SCHEDULER_HELP = ("Score runs (and draw the trials of randomised tests) on a Dask cluster (pip install "
                  "'divaleval[dask]'): tcp://HOST:PORT, a scheduler file, or local[:N] for N worker processes on "
                  "this machine; the output is the same.")
SHIP_RUNS_HELP = "With --scheduler: send the run files to the workers (when they do not share this filesystem)."
# What the messages of placement.check_placement call the choices here.
OPTION_NAMES = dict(jobs="-j N (processes here)", cluster="--scheduler (a Dask cluster)", scheduler="--scheduler",
                    ship_runs="--ship-runs")


def cluster_options(command: Callable) -> Callable:
    """``--scheduler ADDRESS`` and ``--ship-runs``."""
    import click  # (here: the plain evaluation, which takes placement, never imports click)

    command = click.option("--ship-runs", is_flag=True, help=SHIP_RUNS_HELP)(command)
    return click.option("--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP)(command)


@contextmanager
def placement(jobs: int, scheduler: str | None, ship_runs: bool, progress: Progress | None = None
              ) -> Iterator[Placement]:
    """Where the options say the work runs; a cluster is connected here and closed after the command's work
    (also on an error or Ctrl-C: the job's tasks are cancelled, the cluster stays up).

    Raises divaleval's UsageError (options in conflict, Dask not installed) or ClusterError (not reachable).
    """
    from ..placement import PlacementNames, placed  # (the evaluator's chain: imported to work, not for --help)

    log_level = None
    if scheduler is not None:  # (logging only for Dask: 7 ms of imports every call otherwise)
        import logging

        # What goes wrong reaches the user as one message of ours (FILE:LINE for a run), not as Dask's log lines.
        log_level = logging.CRITICAL
    with placed(jobs, scheduler, ship_runs=ship_runs, names=PlacementNames(**OPTION_NAMES), log_level=log_level,
                on_connect=None if progress is None else progress.note) as place:
        yield place
