"""Scale-out measured per core: two Dask workers, each pinned to a core of its own with one thread, against one
process pinned to one core.

A section of ``bench/bench.py`` (``python bench/bench.py --pinned``, and the end of the full benchmark where
taskset, two cores and Dask are there). Unpinned, one process already keeps 1.8 of a 2-core machine's cores
busy (readers ahead of the scoring thread), so a cluster on the same machine cannot show what a worker adds;
pinned, each side gets exactly the cores it is given:

* one process: ``taskset -c A divaleval QRELS RUN...`` (its reader threads share core A);
* a cluster: ``dask scheduler`` and two ``dask worker --nthreads 1`` each under ``taskset -c A`` or ``-c B``,
  started before the timing (a cluster exists before a job is sent to it); the client,
  ``divaleval --scheduler FILE QRELS RUN...``, and the scheduler run on any core.

It reports runs/s both ways, their ratio (target: at least 1.7x), the client's CPU time a run (checking,
finishing and printing each run's scores: the bound of any cluster, whatever its size), and what that
predicts for N machines: about N times one pinned core's runs/s until the client's bound, 1 / (its CPU a
run). The outputs must be identical byte for byte.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

BIN = Path(sys.executable).parent
TARGET = 1.7
WAIT_SECONDS = 60


def pinnable() -> tuple[int, int] | str:
    """Two cores to pin to, or why the section cannot run here."""
    if shutil.which("taskset") is None:
        return "taskset not found"
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        return f"{len(cores)} core(s) available, two needed"
    if subprocess.run([sys.executable, "-c", "import distributed"], capture_output=True).returncode != 0:
        return "Dask not installed (pip install 'divaleval[dask]')"
    return cores[0], cores[1]


def start_cluster(folder: Path, cores: tuple[int, int]) -> tuple[Path, list[subprocess.Popen]]:
    """A scheduler and one single-thread worker pinned to each core; returns its scheduler file and processes."""
    scheduler_file = folder / "pinned-scheduler.json"
    scheduler_file.unlink(missing_ok=True)
    log = open(folder / "pinned-cluster.log", "wb")
    quiet = dict(stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    processes = [subprocess.Popen([BIN / "dask", "scheduler", "--scheduler-file", scheduler_file, "--port", "0",
                                   "--no-dashboard"], **quiet)]
    deadline = time.monotonic() + WAIT_SECONDS
    while not scheduler_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    for core in cores:
        processes.append(subprocess.Popen(["taskset", "-c", str(core), BIN / "dask", "worker", "--scheduler-file",
                                           scheduler_file, "--nthreads", "1", "--nworkers", "1", "--no-dashboard",
                                           "--memory-limit", "0"], **quiet))
    wait = ("import sys; from distributed import Client; "
            f"Client(scheduler_file=sys.argv[1], timeout={WAIT_SECONDS}).wait_for_workers({len(cores)}, "
            f"timeout={WAIT_SECONDS})")
    subprocess.run([sys.executable, "-c", wait, scheduler_file], check=True, capture_output=True)
    return scheduler_file, processes


def stop(processes: list[subprocess.Popen]) -> None:
    for process in reversed(processes):
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def bench_pinned(qrels: Path, runs: list[Path], results: Path,
                 measure_client: Callable[[list, Path], tuple]) -> list[tuple[str, bool]]:
    """Print the section; return its targets (text, met). ``measure_client`` is bench.py's timer of a client:
    (wall seconds, own peak MB, all peak MB, own CPU seconds, all CPU seconds)."""
    cores = pinnable()
    if isinstance(cores, str):
        print(f"  pinned scale-out: skipped ({cores})")
        return []
    divaleval = BIN / "divaleval"
    env_note = f"cores {cores[0]} and {cores[1]}"
    one_out, cluster_out = results / "pinned.one.out", results / "pinned.cluster.out"
    one = measure_client(["taskset", "-c", str(cores[0]), divaleval, "-q", qrels, *runs], one_out)
    scheduler_file, processes = start_cluster(results, cores)
    try:
        cluster = measure_client([divaleval, "-q", "--scheduler", scheduler_file, qrels, *runs], cluster_out)
    finally:
        stop(processes)
    count = len(runs)
    one_rate, cluster_rate = count / one[0], count / cluster[0]
    ratio = cluster_rate / one_rate
    client_per_run = cluster[3] / count
    print(f"  one process pinned to core {cores[0]}:        {count} runs {one[0]:7.2f} s  {one_rate:6.2f} runs/s  "
          f"{one[3]:6.2f} CPU s")
    print(f"  2 workers pinned ({env_note}), 1 thread each: {count} runs {cluster[0]:7.2f} s  "
          f"{cluster_rate:6.2f} runs/s  client {cluster[3]:6.2f} CPU s")
    print(f"  the client's CPU time a run: {1000 * client_per_run:.0f} ms (its start and the qrels included): "
          f"a cluster of any size gives at most {1 / max(client_per_run, 1e-9):.0f} runs/s")
    print(f"  predicted for N single-core workers: about min(N x {one_rate:.2f}, "
          f"{1 / max(client_per_run, 1e-9):.0f}) runs/s (N = 8: {min(8 * one_rate, 1 / max(client_per_run, 1e-9)):.0f},"
          f" N = 32: {min(32 * one_rate, 1 / max(client_per_run, 1e-9)):.0f})")
    same = one_out.read_bytes() == cluster_out.read_bytes()
    return [(f"2 pinned single-thread Dask workers at least {TARGET}x the runs/s of one pinned process "
             f"({ratio:.2f}x)", ratio >= TARGET),
            ("pinned cluster's output identical to one process's, byte for byte", same)]
