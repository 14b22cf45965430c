"""The options that send the work to a Dask cluster (``--scheduler``, ``--ship-runs``), shared by the commands
that score runs or resample trials."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

import click

if TYPE_CHECKING:
    from ..cluster import Cluster
    from .progress import Progress

SCHEDULER_HELP = ("Score runs (and draw the trials of randomised tests) on a Dask cluster (pip install "
                  "'divaleval[dask]'): tcp://HOST:PORT, a scheduler file, or local[:N] for N worker processes on "
                  "this machine; the output is the same.")
SHIP_RUNS_HELP = "With --scheduler: send the run files to the workers (when they do not share this filesystem)."


def cluster_options(command: Callable) -> Callable:
    """``--scheduler ADDRESS`` and ``--ship-runs``."""
    command = click.option("--ship-runs", is_flag=True, help=SHIP_RUNS_HELP)(command)
    return click.option("--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP)(command)


def connect_cluster(scheduler: str | None, ship_runs: bool, jobs: int,
                    progress: "Progress | None" = None) -> "Cluster | None":
    """The cluster the options name (None: none; close it when done), or a usage error.

    Raises divaleval's UsageError (Dask not installed) or ClusterError (not reachable).
    """
    if scheduler is None:
        if ship_runs:
            raise click.UsageError("--ship-runs goes with --scheduler")
        return None
    if jobs != 1:
        raise click.UsageError("give -j N (processes here) or --scheduler (a Dask cluster), not both")
    from ..cluster import Cluster  # Dask is imported only when a cluster is asked for

    if progress is not None:
        progress.note(f"connecting to the Dask scheduler {scheduler}")
    # What goes wrong reaches the user as one message of ours (FILE:LINE for a run), not as Dask's log lines.
    return Cluster(scheduler, ship_runs=ship_runs, log_level=logging.CRITICAL)
