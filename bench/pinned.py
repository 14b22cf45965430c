"""Scale-out measured per core: two Dask workers, each pinned to a core of its own with one thread, against one
process pinned to one core.

A section of ``bench/bench.py`` (``python bench/bench.py --only pinned``, and the end of the full benchmark where
taskset, two cores and Dask are there). Unpinned, one process already keeps 1.8 of a 2-core machine's cores
busy (readers ahead of the scoring thread), so a cluster on the same machine cannot show what a worker adds;
pinned, each side gets exactly the cores it is given:

* one process: ``taskset -c A divaleval QRELS RUN...`` (its reader threads share core A);
* a cluster: ``dask scheduler`` and two ``dask worker --nthreads 1`` each under ``taskset -c A`` or ``-c B``,
  started as docs/scale-out.md says to start workers that only score (without Dask's dashboard diagnostics:
  divaleval.cluster.QUIET_DASK_CONFIG) and before the timing (a cluster exists before a job is sent to it);
  the client, ``divaleval --scheduler FILE QRELS RUN...``, and the scheduler run on any core;
* two copies of the one process at once, one pinned to each core, without Dask: the most the machine's two cores
  give to anything (cores that share caches, memory bandwidth or a host's hyperthreads give less than twice one).

Each call scores the benchmark's runs repeated to 200 (a run given twice is scored twice), and its output file is
watched while it runs (every 50 ms): the time a run's last line (its mean) appears is when that run was done, since
runs are printed (and flushed) in order as they finish. The steady rate is the runs done between the 48th's (the
end of a cluster's sixth task: see FROM_RUN) and the 200th's, over that time: past the fixed costs (start-up, the
qrels, the evaluator sent to each worker), which vary by a second from call to call and are left out instead of
being subtracted. The client's and the scheduler's CPU times are read at the same two moments, and the idle
cluster's share of the cores before its call. The three are measured in five rounds, alternated (the cluster
started afresh each round), and the target is judged on the round of median ratio: one pinned process's own rate
varies by a fifth between measurements on a shared machine. It reports runs/s, the ratios to one pinned process
(target for the cluster: at least 1.7x at the steady rate; the ratio of whole calls is printed beside it), the
share of the two processes' ratio the cluster reached, the client's CPU time a run (checking, finishing and
printing each run's scores: the bound of any cluster, whatever its size), the scheduler's, how many of the two
cores the client and the scheduler took from the workers (on two cores they have none of their own: their share
comes out of the workers'), and what that predicts for N machines: about N times one pinned core's steady runs/s
until the client's bound, 1 / (its CPU a run). The outputs must be identical byte for byte, in every round.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from divaleval.cluster import BATCH_RUNS, QUIET_DASK_CONFIG, dask_environment
from procfs import process_fields

BIN = Path(sys.executable).parent
TARGET = 1.7
WAIT_SECONDS = 60
RUNS = 200
ROUNDS = 5  # each side measured this many times, alternated


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
    # As docs/scale-out.md says to start workers that only score: without the dashboard's diagnostics.
    quiet = dict(stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                 env={**os.environ, **dask_environment(QUIET_DASK_CONFIG)})
    processes = [subprocess.Popen([BIN / "dask", "scheduler", "--scheduler-file", scheduler_file, "--port", "0",
                                   "--no-dashboard"], **quiet)]
    deadline = time.monotonic() + WAIT_SECONDS
    while not _written(scheduler_file) and time.monotonic() < deadline:  # (made first, then written)
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


def _written(scheduler_file: Path) -> bool:
    """Whether the scheduler has written its file whole (it makes the file, then writes its address)."""
    try:
        return "address" in json.loads(scheduler_file.read_text())
    except (OSError, ValueError):
        return False


def stop(processes: list[subprocess.Popen]) -> None:
    for process in reversed(processes):
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


IDLE_SECONDS = 3     # the cluster's own CPU share is measured this long before its call


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system) used so far by a process and its living descendants (a Dask worker runs under
    a nanny process: the worker is its child)."""
    fields = process_fields()
    parents = {pid: int(f[1]) for pid, f in fields.items()}
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += (int(fields[pid][11]) + int(fields[pid][12])) / os.sysconf("SC_CLK_TCK") if pid in fields else 0.0
        todo.extend(child for child, parent in parents.items() if parent == pid)
    return total


POLL_SECONDS = 0.05
MEAN = b",amean,"   # a run's last line in ndeval's format: its mean
# The steady rate is measured from this run's end to the last's. A cluster sends back a task's runs together, so
# that a run's line appears when the last of its task was done: the run chosen ends a task (the first tasks are
# all of BATCH_RUNS runs), else the cluster's time would start late and its rate come out too high.
FROM_RUN = 6 * BATCH_RUNS


@dataclass
class Call:
    """One timed call: its wall seconds, and for each run the time since the start at which its last line appeared,
    with the client's and the watched process's CPU seconds then."""

    seconds: float
    done: list[tuple[float, float, float]]

    def steady(self, first: int) -> tuple[float, float, float]:
        """(runs/s, the client's CPU seconds a run, the watched process's) from run ``first``'s end to the last's."""
        (t0, client0, watched0), (t1, client1, watched1) = self.done[first - 1], self.done[-1]
        runs = len(self.done) - first
        return runs / max(t1 - t0, 1e-9), (client1 - client0) / runs, (watched1 - watched0) / runs


def cpu_seconds(pid: int | None) -> float:
    """User plus system CPU seconds of one process so far (0 where it is gone or not given)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Watched:
    """One call under way: its process, its output being read, and what was seen of it so far."""

    def __init__(self, argv: list, stdout: Path, runs: int, watched: int | None, stack: ExitStack) -> None:
        self.argv, self.runs, self.watched = argv, runs, watched
        out = stack.enter_context(open(stdout, "wb"))
        self.reading = stack.enter_context(open(stdout, "rb"))
        self.err = stack.enter_context(tempfile.TemporaryFile())
        self.process = subprocess.Popen([str(a) for a in argv], stdout=out, stderr=self.err)
        self.done: list[tuple[float, float, float]] = []
        self.tail, self.seconds = b"", None

    def look(self, now: float) -> None:
        """Note the runs whose mean line appeared since the last look; the call's time once it has ended."""
        client, other = cpu_seconds(self.process.pid), cpu_seconds(self.watched)  # (before the call is reaped)
        finished = self.process.poll() is not None
        seen = self.tail + self.reading.read()
        self.done.extend([(now, client, other)] * seen.count(MEAN))
        self.tail = seen[-(len(MEAN) - 1):]
        if finished:
            self.seconds = now

    def call(self) -> Call:
        """The call timed; fails the bench with its message if it failed or printed another number of runs."""
        if self.process.returncode != 0 or len(self.done) != self.runs:
            self.err.seek(0)
            shown = " ".join(map(str, self.argv[:5]))
            sys.exit(f"failed ({self.process.returncode}, {len(self.done)} runs of {self.runs} printed): {shown}...\n"
                     f"{self.err.read().decode()}")
        return Call(self.seconds, self.done)


def timed_calls(calls: list[tuple[list, Path, int, int | None]]) -> list[Call]:
    """Run the calls ``(argv, stdout, runs, watched pid)`` at once, watching each one's output for its runs' mean
    lines (and the watched process's CPU time with them) until all have ended."""
    with ExitStack() as stack:
        start = time.perf_counter()
        under_way = [Watched(*call, stack) for call in calls]
        while True:
            now = time.perf_counter() - start
            for one in under_way:
                if one.seconds is None:
                    one.look(now)
            if all(one.seconds is not None for one in under_way):
                return [one.call() for one in under_way]
            time.sleep(POLL_SECONDS)


def _measure_round(qrels: Path, chosen: list[Path], results: Path, cores: tuple[int, int],
                   divaleval: Path) -> tuple[Call, list[Call], Call, float, bool]:
    """One round: one pinned process; two of them at once, one on each core (the most the two cores give, whatever
    runs on them); then a cluster started for the round. Returns (the one process's call, the two calls at once,
    the cluster's call, the cores the idle cluster kept busy before it, whether all printed the same bytes)."""
    def pinned_one(core: int, name: str) -> tuple[list, Path, int, None]:
        return (["taskset", "-c", str(core), divaleval, "-q", qrels, *chosen], results / name, len(chosen), None)

    [one] = timed_calls([pinned_one(cores[0], "pinned.one.out")])
    both = timed_calls([pinned_one(cores[0], "pinned.one.out"), pinned_one(cores[1], "pinned.two.out")])
    scheduler_file, processes = start_cluster(results, cores)
    try:
        before = [tree_cpu_seconds(process.pid) for process in processes]
        time.sleep(IDLE_SECONDS)
        idle = sum(tree_cpu_seconds(process.pid) - cpu for process, cpu in zip(processes, before)) / IDLE_SECONDS
        [cluster] = timed_calls([([divaleval, "-q", "--scheduler", scheduler_file, qrels, *chosen],
                                  results / "pinned.cluster.out", len(chosen), processes[0].pid)])
    finally:
        stop(processes)
    printed = {(results / name).read_bytes() for name in ("pinned.one.out", "pinned.two.out", "pinned.cluster.out")}
    return one, both, cluster, idle, len(printed) == 1


def bench_pinned(qrels: Path, runs: list[Path], results: Path) -> list[tuple[str, bool]]:
    """Print the section; return its targets (text, met)."""
    cores = pinnable()
    if isinstance(cores, str):
        print(f"  pinned scale-out: skipped ({cores})")
        return []
    divaleval = BIN / "divaleval"
    chosen = (runs * (RUNS // len(runs) + 1))[:RUNS]
    rounds = []
    for round_number in range(ROUNDS):
        one, both, cluster, idle, same = _measure_round(qrels, chosen, results, cores, divaleval)
        one_steady, cluster_steady = one.steady(FROM_RUN)[0], cluster.steady(FROM_RUN)[0]
        both_steady = sum(call.steady(FROM_RUN)[0] for call in both)
        print(f"  round {round_number + 1} of {ROUNDS}: one pinned process {one_steady:.2f} runs/s, two at once "
              f"{both_steady:.2f} ({both_steady / one_steady:.2f}x), the cluster {cluster_steady:.2f} "
              f"({cluster_steady / one_steady:.2f}x)", flush=True)
        rounds.append((cluster_steady / one_steady, both_steady / one_steady, one, cluster, idle, same))
    # One process's own rate varies by a fifth from one measurement to the next on a shared machine: the
    # target is judged on the round of median ratio (the rounds alternate the sides), detailed below.
    ratios, ceilings = [r[0] for r in rounds], [r[1] for r in rounds]
    ratio, _, one, cluster, _, _ = sorted(rounds, key=lambda r: r[0])[len(rounds) // 2]
    ceiling = sorted(ceilings)[len(rounds) // 2]
    (one_steady, _, _), (cluster_steady, client_per_run, scheduler_per_run) = one.steady(FROM_RUN), \
        cluster.steady(FROM_RUN)
    whole = (len(chosen) / cluster.seconds) / (len(chosen) / one.seconds)
    for label, call, steady in ((f"one process pinned to core {cores[0]}", one, one_steady),
                                (f"2 workers pinned to cores {cores[0]} and {cores[1]}, 1 thread each", cluster,
                                 cluster_steady)):
        print(f"  {label:<52} {len(chosen):>4} runs {call.seconds:7.2f} s  {len(chosen) / call.seconds:6.2f} runs/s "
              f"(steady from run {FROM_RUN}: {steady:6.2f})")
    print(f"  the median round's steady ratio: {ratio:.2f}x (rounds: {', '.join(f'{r:.2f}x' for r in ratios)}); "
          f"whole calls, the starts included: {whole:.2f}x")
    # What two cores of this machine give at all: two copies of the one process, each pinned to a core, at once
    # (no Dask). Cores that share caches, memory bandwidth or a host's hyperthreads give less than twice one.
    print(f"  two pinned processes at once (no Dask), the machine's own ceiling for two cores: median {ceiling:.2f}x "
          f"one's rate (rounds: {', '.join(f'{c:.2f}x' for c in ceilings)}); the cluster reached "
          f"{sorted(r / c for r, c in zip(ratios, ceilings))[len(rounds) // 2]:.0%} of it (median of the rounds)")
    bound = 1 / max(client_per_run, 1e-6)
    print(f"  the client's CPU time a run past the {FROM_RUN}th: {1000 * client_per_run:.1f} ms: a cluster of any size "
          f"gives at most about {bound:.0f} runs/s")
    # The scheduler and the client have no core of their own on two cores: what they use is taken from the
    # workers' cores, so that the ratio measured here mixes them in (a third core would leave them out).
    helpers_cores = (client_per_run + scheduler_per_run) * cluster_steady
    print(f"  the scheduler's CPU time a run: {1000 * scheduler_per_run:.1f} ms; at the steady rate the client and the "
          f"scheduler kept {helpers_cores:.2f} of the 2 cores busy, time the workers' cores lost to them")
    idle = sorted(r[4] for r in rounds)[len(rounds) // 2]
    print(f"  idle, the scheduler and the two workers kept {idle:.3f} of the 2 cores busy (the median round; started "
          f"with {', '.join(f'{k}={v}' for k, v in QUIET_DASK_CONFIG.items())})")
    print(f"  predicted for N single-core workers: about min(N x {one_steady:.1f}, {bound:.0f}) runs/s "
          f"(N = 8: {min(8 * one_steady, bound):.0f}, N = 32: {min(32 * one_steady, bound):.0f})")
    same = all(r[5] for r in rounds)
    return [(f"2 pinned single-thread Dask workers at least {TARGET}x the steady runs/s of one pinned process "
             f"(median of {ROUNDS} rounds {ratio:.2f}x; whole calls of {len(chosen)} runs: {whole:.2f}x; two pinned "
             f"processes at once: {ceiling:.2f}x)", ratio >= TARGET),
            ("pinned cluster's output identical to one process's, byte for byte (every round)", same)]
