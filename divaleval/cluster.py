"""Scoring runs, and resampling trials, on a Dask cluster (``--scheduler``; the extra ``divaleval[dask]``).

A :class:`Cluster` is a connection to a scheduler (an address, a scheduler
file, or ``local[:N]``: a cluster of N worker processes on this machine). It
offers two back ends:

* :meth:`Cluster.score`, for :meth:`Evaluator.score_all`: the evaluator, its
  ideal rankings computed, is scattered to every worker once; tasks are batches
  of runs (smaller ones at the end, so that the workers finish together),
  read on the worker by path (a filesystem the cluster shares) or
  from bytes the client sends (``ship_runs``); at most a few batches are in
  flight, and their raw scores come back in the order of the runs, so the
  output is the one of a run without a cluster, byte for byte, and the
  client's memory does not grow with the number of runs.
* :meth:`Cluster.map_blocks`, for :func:`divaleval.stats.blocks.run_blocks`:
  the block function (with its data) is scattered once, one task per block of
  trials; each block's stream derives from the seed alone, so the p-values do
  not depend on the number of workers.

Dask retries the tasks of a worker that dies on another worker; results are
taken once per task, in order, so no run is lost or counted twice. A bad run
read on a worker comes back as its :class:`InputError` (the message a local
read gives). When the job stops early (an error, Ctrl-C), its tasks are
cancelled and the cluster is left as it was. Dask is imported only here, and
only when a cluster is asked for.

:func:`divaleval.placement.placed` is the one place that resolves where the work runs
(processes here, or a cluster by its address, or one already connected) and refuses both
at once; the API and every command go through it, and import this module only for a cluster.
"""
from __future__ import annotations

import os
import re
import stat
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from .errors import DivalevalError, InputError, UsageError
from .evaluator import Evaluator, RunInput, RunLike
from .io import RunTable, read_run
from .io.source import STDIN_NAME, input_from_bytes, read_input
from .memory import advise_huge_pages_for_this_thread, keep_large_blocks_in_heap
from .results import RawScores, RunScores

DASK_EXTRA = "pip install 'divaleval[dask]'"
LOCAL = "local"
CONNECT_SECONDS = 3          # to reach a scheduler: an unreachable address is an error after this long
WORKER_WAIT_SECONDS = 30     # for a scheduler without workers to get its first one
BATCH_RUNS = 8               # runs per task (the scheduler's CPU is per task: 2.2 ms a run at 4, 1.4-1.7 at 8)
TASKS_PER_THREAD = 3         # batches in flight per worker thread: enough to keep every worker busy
# Dask's diagnostics for its dashboard, which a worker that only scores runs does not need: a statistical profile
# of its threads every 10 ms, a check of its event loop every 20 ms, a sample of its CPU and memory every 0.5 s.
# Idle, they keep about 9% of a core busy per worker (nanny included) and 3.6% for the scheduler; with these
# values, 0.5% and 0.7% (docs/scale-out.md, "Workers that only score"). A local cluster's workers and scheduler
# take them; docs/scale-out.md gives them as environment variables for the user's own.
QUIET_DASK_CONFIG = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
                     "distributed.admin.system-monitor.interval": "5s"}


def dask_environment(config: dict) -> dict[str, str]:
    """Dask configuration as the environment variables Dask reads at start (``DASK_DISTRIBUTED__ADMIN__...``)."""
    return {"DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value) for key, value in config.items()}


class ClusterError(DivalevalError):
    """The cluster cannot be reached or used (the message says why and what to do)."""


def import_distributed():
    """``dask.distributed``, or a :class:`UsageError` naming the extra to install."""
    try:
        import dask
        import distributed
    except ImportError:
        raise UsageError(f"--scheduler needs Dask: {DASK_EXTRA}") from None
    return dask, distributed


@dataclass(frozen=True)
class RunOnDisk:
    """A run file a worker reads where it lies (a filesystem the cluster shares), by its absolute path."""

    name: str   # as the user gave it: what results and messages call it
    path: str

    def read(self) -> RunTable:
        if not os.path.exists(self.path):
            raise InputError(self.name, None, f"no such file on the Dask worker (looked for {self.path}); "
                                              "give --ship-runs when the workers do not share this filesystem")
        return read_run(read_input(self.path, self.name))


@dataclass(frozen=True)
class ShippedRun:
    """A run file's bytes, as read on the client (gzip is decompressed on the worker)."""

    name: str
    data: bytes

    def read(self) -> RunTable:
        return read_run(input_from_bytes(self.name, self.data))


@dataclass(frozen=True)
class UnreadRun:
    """A run the client could not read to ship it: its error, raised on the worker, comes back in run order."""

    error: InputError

    def read(self) -> RunTable:
        raise self.error


def score_batch(evaluator: Evaluator, batch: list[tuple[str, Any]]) -> list[RawScores | InputError]:
    """A task: the raw scores of each run of the batch, or the error of a bad one (in the batch's order)."""
    keep_large_blocks_in_heap()  # undoes what the nanny's settings cost (see there); cheap to repeat
    advise_huge_pages_for_this_thread()  # (the worker's thread, as a reader thread here)
    results: list[RawScores | InputError] = []
    for source, run in batch:
        try:
            table = run if isinstance(run, RunTable) else run.read()
            results.append(evaluator.score_raw((source, table)))
        except InputError as exc:  # sent back: the client stops or skips in run order
            results.append(exc)
    return results


def run_block(block, *, block_fn: Callable) -> Any:
    """A task: one block of trials of a randomised procedure."""
    return block_fn(block)


def divaleval_version() -> str:
    """The version of divaleval installed here (on a worker: the one it runs)."""
    from importlib.metadata import version  # (20 ms to import: not at every start of the command)

    return version("divaleval")


def parse_local(address: str) -> int | None:
    """The number of workers of ``local`` (one per core) or ``local:N``; None for another address."""
    if address != LOCAL and not address.startswith(LOCAL + ":"):
        return None
    count = address[len(LOCAL) + 1:] if ":" in address else ""
    if not count:
        return os.cpu_count() or 1
    if not re.fullmatch(r"[0-9]+", count) or int(count) < 1:  # plain ASCII digits, as every option takes
        raise UsageError(f"--scheduler local:N takes a number of workers >= 1, not {count!r}")
    return int(count)


class Cluster:
    """A connection to a Dask cluster; use it as a context manager (closing it leaves the cluster running,
    except a ``local`` one, which is this connection's own).

    address: ``tcp://HOST:PORT`` (or ``HOST:PORT``), a scheduler file (``dask scheduler
    --scheduler-file FILE``), or ``local`` / ``local:N`` for N worker processes here.
    ship_runs: send each run file's bytes from here (for workers that do not share this filesystem).
    batch_runs: runs per task.
    log_level: the level of Dask's loggers in this process (default: as Dask sets them).
    """

    def __init__(self, address: str, *, ship_runs: bool = False, batch_runs: int = BATCH_RUNS,
                 connect_seconds: float = CONNECT_SECONDS, log_level: int | None = None) -> None:
        if batch_runs < 1:
            raise UsageError("batch_runs must be >= 1")
        import logging  # (here: only a cluster sets the levels of loggers)

        dask, distributed = import_distributed()
        if log_level is not None:
            for name in [name for name in logging.root.manager.loggerDict if name.split(".")[0] == "distributed"]:
                logging.getLogger(name).setLevel(log_level)
        self.address = address
        self.ship_runs = ship_runs
        self.batch_runs = batch_runs
        self.client = None
        self._local = None
        self._config = None
        self._outstanding: set = set()
        workers = parse_local(address)
        if workers is None and _looks_like_file(address) and not os.path.isfile(address):
            raise UsageError(f"--scheduler {address}: no such scheduler file (nor an address: tcp://HOST:PORT)")
        # The big arguments (shipped runs) are ours to send: no warning about a large graph. A local cluster's
        # workers keep glibc's own memory settings (see keep_large_blocks_in_heap), and its workers and
        # scheduler run without the dashboard's diagnostics (QUIET_DASK_CONFIG).
        self._config = dask.config.set({"distributed.admin.large-graph-warning-threshold": "4GiB",
                                        "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                                        **QUIET_DASK_CONFIG})
        try:
            if workers is not None:
                # Dask's own logs are the cluster's internals, not the user's: a task's error reaches the
                # caller as an exception, a lost worker as ClusterError. At CRITICAL, not ERROR: a worker whose
                # heartbeat meets the scheduler closing at the end logs an error with a traceback (seen once
                # in about 40 calls of `meta --scheduler local:2`).
                # No dashboard; the scheduler's HTTP server (health checks) still starts, on a free port of the
                # loopback, not on the dashboard's 8787: taken (another cluster, a notebook's), Dask warns.
                self._local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                       dashboard_address=None, silence_logs=logging.CRITICAL,
                                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
                self.client = distributed.Client(self._local, set_as_default=False)
            elif _looks_like_file(address):
                self.client = distributed.Client(scheduler_file=address, timeout=connect_seconds,
                                                 set_as_default=False)
            else:
                self.client = distributed.Client(address, timeout=connect_seconds, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            self.close()
            raise ClusterError(f"cannot reach the Dask scheduler at {address} ({exc}); is `dask scheduler` "
                               "running there?") from None
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise

    def _check_workers(self) -> None:
        """Wait for a first worker; every worker must run this version of divaleval."""
        try:
            self.client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except (TimeoutError, OSError):
            address = self.client.scheduler.address
            raise ClusterError(f"the Dask scheduler at {address} has no worker after {WORKER_WAIT_SECONDS} s: "
                               f"start some with `dask worker {address}`") from None
        here = divaleval_version()
        try:
            versions = self.client.run(divaleval_version)
        except Exception as exc:  # noqa: BLE001 - whatever a worker without divaleval raises
            raise ClusterError(f"a Dask worker cannot run divaleval ({type(exc).__name__}: {exc}): install "
                               f"divaleval {here} where the workers run") from None
        wrong = {worker: version for worker, version in versions.items() if version != here}
        if wrong:
            worker, version = next(iter(wrong.items()))
            raise ClusterError(f"the Dask worker {worker} runs divaleval {version}, not {here}: install "
                               "the same version everywhere")

    @property
    def slots(self) -> int:
        """Tasks the workers run at once (their threads)."""
        return max(1, sum(self.client.nthreads().values()))

    # -- scoring runs ------------------------------------------------------------------------------

    def score(self, evaluator: Evaluator, inputs: Iterable[RunInput]) -> Iterator[RawScores | InputError]:
        """A back end of :meth:`Evaluator.score_all`: each run's raw scores (or error), in run order."""
        client = self.client
        shared = client.scatter(evaluator, broadcast=True, hash=False)
        self._outstanding.add(shared)
        pending: deque = deque()
        window = TASKS_PER_THREAD * self.slots
        try:
            for batch in _batches(inputs, self.batch_runs, self.slots):
                task = client.submit(score_batch, shared, [self._task_input(item) for item in batch], pure=False)
                self._outstanding.add(task)
                pending.append(task)
                batch = None
                if len(pending) >= window:
                    yield from self._result(pending.popleft())
            while pending:
                yield from self._result(pending.popleft())
        finally:
            self._cancel([*pending, shared])

    def _task_input(self, item: RunInput) -> tuple[str, Any]:
        source, run = item
        if isinstance(run, RunTable):  # given in memory, or standard input (already read): sent as is
            return source, run
        name = run
        if self.ship_runs or not _regular_file(run):  # a pipe (or what the workers cannot open) is read here
            try:
                with open(run, "rb") as handle:
                    return source, ShippedRun(name, handle.read())
            except OSError as exc:  # as a local read says it, and in its turn (skipped with skip_bad)
                return source, UnreadRun(InputError(name, None, f"cannot open: {exc.strerror or exc}"))
        return source, RunOnDisk(name, os.path.abspath(run))

    # -- resampling ----------------------------------------------------------------------------------

    def map_blocks(self, block_fn: Callable, blocks: Sequence) -> Iterator:
        """A ``map_blocks`` of :func:`divaleval.stats.blocks.run_blocks`: each block's counts, in order."""
        client = self.client
        shared = client.scatter(block_fn, broadcast=True, hash=False)
        tasks = client.map(run_block, list(blocks), block_fn=shared, pure=False)
        self._outstanding.update([shared, *tasks])
        pending = deque(tasks)
        try:
            while pending:
                yield self._result(pending.popleft())
        finally:
            self._cancel([*pending, shared])

    # -- plumbing --------------------------------------------------------------------------------------

    def _result(self, task):
        _, distributed = import_distributed()
        try:
            result = task.result()
        except distributed.KilledWorker as exc:
            raise ClusterError(f"a task of the job killed every Dask worker that ran it ({exc}); nothing more "
                               "is scored") from None
        except (distributed.CancelledError, distributed.TimeoutError, OSError) as exc:
            raise ClusterError(f"the Dask cluster at {self.address} stopped answering "
                               f"({type(exc).__name__}: {exc})") from None
        self._outstanding.discard(task)
        return result

    def _cancel(self, tasks: list) -> None:
        """Cancel tasks no longer wanted (the job stopped early, or is done with its shared data)."""
        tasks = [task for task in tasks if task is not None]
        self._outstanding.difference_update(tasks)
        client = self.client  # None once closed (a job's generator may be let go after the connection)
        if tasks and client is not None and client.status == "running":
            try:
                client.cancel(tasks)
            except Exception:  # noqa: BLE001 - the connection is going: the scheduler forgets them anyway
                pass

    def close(self) -> None:
        """Cancel what is left of this connection's tasks and disconnect (a ``local`` cluster is shut down)."""
        client = self.client
        if client is not None:
            self._cancel(list(self._outstanding))
            client.close()
            self.client = None
        self._close_local()
        if self._config is not None:
            self._config.__exit__(None, None, None)
            self._config = None

    def _close_local(self) -> None:
        if self._local is not None:
            self._local.close()
            self._local = None

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _batches(inputs: Iterable[RunInput], size: int, slots: int) -> Iterator[list[RunInput]]:
    """The runs in batches of ``size``, the last ones in smaller batches, each about ``1 / (2 x slots)`` of
    the runs left, down to one run: the workers then finish about together, where a last batch of ``size``
    runs would keep one worker busy while the others idle. To know how many are left, the runs are taken
    ``2 x slots x size`` ahead of the batch handed out."""
    ahead: deque = deque()
    items = iter(inputs)
    seen_all = False
    while True:
        while not seen_all and len(ahead) < (2 * slots + 1) * size:
            try:
                ahead.append(next(items))
            except StopIteration:
                seen_all = True
        if not ahead:
            return
        taken = size if not seen_all else max(1, min(size, -(-len(ahead) // (2 * slots))))
        yield [ahead.popleft() for _ in range(taken)]


def _looks_like_file(address: str) -> bool:
    """A scheduler file rather than an address: no ``PROTOCOL://``, and a path separator or a ``.json``."""
    return "://" not in address and (os.sep in address or address.endswith(".json") or os.path.isfile(address))


def _regular_file(path: str) -> bool:
    if path == STDIN_NAME:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # the worker reports it as a local read would
