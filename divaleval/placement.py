"""Where the work runs: ``jobs`` processes here, or a Dask cluster (divaleval/cluster.py, imported only for one).

:func:`placed` is the one place that resolves it (``jobs`` processes here, a cluster by its address, or one
already connected) and refuses both at once; the API and every command go through it.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Union

from .errors import UsageError

if TYPE_CHECKING:
    from .cluster import Cluster
    from .evaluator import Evaluator, RunLike
    from .results import RunScores

Scheduler = Union[str, "Cluster", None]  # a Dask cluster: an address, a scheduler file, local[:N], or connected


@dataclass(frozen=True)
class PlacementNames:
    """What a caller calls the choices, for the messages of :func:`check_placement` (the API's words by
    default; the command line gives its options')."""

    jobs: str = "jobs"
    cluster: str = "a scheduler"
    scheduler: str = "scheduler"
    ship_runs: str = "ship_runs"


API_NAMES = PlacementNames()


@dataclass(frozen=True)
class Placement:
    """Where runs are scored and trials drawn: in ``jobs`` processes here (never 0, never more than the
    cores), or on ``cluster``."""

    jobs: int = 1
    cluster: Cluster | None = None

    def score_all(self, evaluator: Evaluator, runs: RunLike | Iterable[RunLike]) -> Iterator[RunScores]:
        """The evaluator's scores of the runs, in order, here or on the cluster."""
        return evaluator.score_all(runs, self.jobs, backend=None if self.cluster is None else self.cluster.score)

    @property
    def map_blocks(self) -> Callable:
        """Where the trials of randomised tests run: here (the built-in ``map``), or on the cluster."""
        return map if self.cluster is None else self.cluster.map_blocks


def check_placement(jobs: int, scheduler: Scheduler, ship_runs: bool = False,
                    names: PlacementNames = API_NAMES) -> None:
    """Processes here or a cluster, not both (a :class:`UsageError` in the caller's ``names``)."""
    if scheduler is None:
        if ship_runs:
            raise UsageError(f"{names.ship_runs} goes with {names.scheduler}")
        return
    if jobs != 1:
        raise UsageError(f"give {names.jobs} or {names.cluster}, not both")


def worker_processes(jobs: int) -> int:
    """Processes for ``jobs`` (0: one per core): never more than the cores, as more would only take turns
    on them (each a copy of the qrels, and the time to start and feed it)."""
    cores = os.cpu_count() or 1
    return cores if jobs == 0 else min(jobs, cores)


@contextmanager
def placed(jobs: int = 1, scheduler: Scheduler = None, *, ship_runs: bool = False,
           names: PlacementNames = API_NAMES, log_level: int | None = None,
           on_connect: Callable[[str], None] | None = None) -> Iterator[Placement]:
    """Where the work runs, checked (:func:`check_placement`): ``jobs`` processes here (0: one per core; at
    most one per core, :func:`worker_processes`), or
    the cluster ``scheduler`` names, connected here and closed after when given by its address (a connected
    :class:`~divaleval.cluster.Cluster` is used as it is, and left open).

    ship_runs, log_level: as for :class:`~divaleval.cluster.Cluster`; on_connect: told before connecting
    (a progress line).
    """
    check_placement(jobs, scheduler, ship_runs, names)
    processes = worker_processes(jobs)
    if not isinstance(scheduler, str):
        yield Placement(processes, scheduler)
        return
    from .cluster import Cluster  # (Dask's side: only for a cluster)

    if on_connect is not None:
        on_connect(f"connecting to the Dask scheduler {scheduler}")
    with Cluster(scheduler, ship_runs=ship_runs, log_level=log_level) as cluster:
        yield Placement(processes, cluster)
