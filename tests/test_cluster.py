"""Scoring and resampling on a Dask cluster (``--scheduler``): the same bytes as in one process.

The clusters are real: a scheduler and workers started here with ``dask
scheduler`` / ``dask worker`` on 127.0.0.1 (or ``--scheduler local:N``), and
the command line run as a user runs it. Marked ``dask`` (``make test-dask``,
which CI runs): they start processes and take about a minute.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, SAMPLE, shared_path, sigint_as_a_terminal_sends_it

QRELS = SAMPLE / "qrels.txt"
RUNS = SAMPLE / "runs"
FORMATS = ["ndeval", "trec", "table", "json"]
TREC2012_RUNS = [f"{system}/results-{cat}{kind}.txt" for system in ("ql", "rm") for cat in ("cata", "catb")
                 for kind in ("", "-filtered")]
START_SECONDS = 60


def dask_command() -> str:
    found = Path(sys.executable).parent / "dask"
    return str(found) if found.exists() else (shutil.which("dask") or pytest.skip("no `dask` command"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class DaskCluster:
    """A scheduler and workers in processes of their own, on 127.0.0.1, stopped with the test."""

    def __init__(self, folder: Path, workers: int, nanny: bool = True) -> None:
        pytest.importorskip("distributed")
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen] = []
        dask = dask_command()
        self.scheduler = self._start("scheduler", [dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                                   "--no-dashboard", "--scheduler-file", self.file])
        deadline = time.monotonic() + START_SECONDS
        while True:  # (the scheduler makes its file, then writes it: a file read at once may be empty)
            assert time.monotonic() < deadline and self.scheduler.poll() is None, self.log("scheduler")
            try:
                self.address = json.loads(self.file.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        self.workers = [
            self._start(f"worker{i}", [dask, "worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
                                       "--no-dashboard", "--death-timeout", "60", "--nanny" if nanny else "--no-nanny"])
            for i in range(workers)]
        self.wait_for_workers(workers)

    def _start(self, name: str, argv: list) -> subprocess.Popen:
        with open(self.folder / f"{name}.log", "wb") as log:
            process = subprocess.Popen([str(a) for a in argv], stdout=log, stderr=subprocess.STDOUT,
                                       cwd=self.folder, start_new_session=True)
        self.processes.append(process)
        return process

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def client(self):
        from distributed import Client

        return Client(self.address, timeout=10, set_as_default=False)

    def wait_for_workers(self, count: int) -> None:
        with self.client() as client:
            client.wait_for_workers(count, timeout=START_SECONDS)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = DaskCluster(tmp_path_factory.mktemp("dask"), workers=2)
    yield started
    started.stop()


def cli(args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "divaleval", *[str(a) for a in args]], capture_output=True,
                          **kwargs)


def same_as_in_process(args, scheduler: str, *more) -> subprocess.CompletedProcess:
    """The command in one process and on the cluster: same status, same stdout bytes, same warnings."""
    here = cli(args)
    there = cli([*more, "--scheduler", scheduler, *args])
    assert there.returncode == here.returncode, there.stderr.decode()
    assert there.stdout == here.stdout
    assert there.stderr == here.stderr
    return here


# -- the same bytes -------------------------------------------------------------------------------------------

@pytest.mark.dask
@pytest.mark.parametrize("fmt", FORMATS)
def test_sample_data_gives_the_same_bytes_in_every_format(cluster, fmt):
    done = same_as_in_process(["-f", fmt, QRELS, RUNS], cluster.address)
    assert done.returncode == 0 and done.stdout


@pytest.mark.dask
def test_means_only_and_runs_read_from_bytes_sent_by_the_client(cluster):
    same_as_in_process(["-n", "-f", "table", "-m", "all", QRELS, RUNS], cluster.address, "--ship-runs")


@pytest.mark.dask
def test_risk_against_a_baseline_gives_the_same_bytes(cluster):
    done = same_as_in_process(["--baseline", RUNS / "bm25.txt", "--risk-alpha", "1", "-f", "json", QRELS, RUNS],
                              cluster.address)
    assert done.returncode == 0 and done.stdout


@pytest.mark.dask
@pytest.mark.parametrize("fmt", FORMATS)
def test_trec2012_baselines_give_the_same_bytes_in_every_format(cluster, fmt):
    data = shared_path("data", "trec-web", "2012")
    runs = [data / "baseline-runs" / run for run in TREC2012_RUNS]
    done = same_as_in_process(["-f", fmt, data / "qrels-for-ndeval.txt", *runs], cluster.address)
    assert done.returncode == 0 and done.stdout.count(b"\n") > 8 * 50


@pytest.mark.dask
def test_trec2012_graded_measures_and_conventions_give_the_same_bytes(cluster):
    data = shared_path("data", "trec-web", "2012")
    runs = [data / "baseline-runs" / run for run in TREC2012_RUNS]
    same_as_in_process(["-c", "-M", "20", "--order", "rank", "-f", "json", "-m", "D#-nDCG@10,ERR-IA@20,NRBP",
                        data / "qrels-for-ndeval.txt", *runs], cluster.address)


@pytest.mark.dask
def test_a_local_cluster_gives_the_same_bytes_with_standard_input_and_gzip(tmp_path):
    packed = tmp_path / "bm25.txt.gz"
    packed.write_bytes(gzip.compress((RUNS / "bm25.txt").read_bytes()))
    args = ["-f", "json", QRELS, packed, RUNS / "diverse.txt", "-"]
    here = cli(args, input=(RUNS / "random.txt").read_bytes())
    there = cli(["--scheduler", "local:2", *args], input=(RUNS / "random.txt").read_bytes())
    assert here.returncode == there.returncode == 0, there.stderr.decode()
    assert there.stdout == here.stdout and there.stdout.count(b'"topic": "amean"') == 3


# -- faults ----------------------------------------------------------------------------------------------------

def synthetic_collection(folder: Path, runs: int, topics: int = 20, judged: int = 60, depth: int = 600,
                         seed: int = 17) -> tuple[Path, list[Path]]:
    """Qrels (3 intents) and ``runs`` runs of ``depth`` documents per topic, judged and unjudged, fixed seed."""
    rng = np.random.default_rng(seed)
    lines = [f"{t} {i} d{t}-{d} {int(rng.random() < 0.2)}" for t in range(1, topics + 1)
             for d in range(judged) for i in (1, 2, 3)]
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(lines) + "\n")
    (folder / "runs").mkdir()
    paths = []
    pool = np.array([f"d{{t}}-{d}" for d in range(depth)])
    for r in range(runs):
        rows = []
        for t in range(1, topics + 1):
            order = rng.permutation(depth)
            rows += [f"{t} Q0 {pool[o].format(t=t)} {k + 1} {depth - k} run{r:03d}" for k, o in enumerate(order)]
        path = folder / "runs" / f"run{r:03d}.txt"
        path.write_text("\n".join(rows) + "\n")
        paths.append(path)
    return qrels, paths


@pytest.mark.dask
def test_a_worker_killed_during_a_200_run_job_changes_nothing(tmp_path):
    qrels, runs = synthetic_collection(tmp_path, 200)
    expected = cli(["-f", "ndeval", qrels, tmp_path / "runs"])
    assert expected.returncode == 0 and expected.stdout.count(b",amean,") == 200
    doomed = DaskCluster(tmp_path, workers=2, nanny=False)  # a worker killed stays dead
    try:
        out = tmp_path / "out.csv"
        with open(out, "wb") as stdout:
            job = subprocess.Popen([sys.executable, "-m", "divaleval", "--scheduler", doomed.address, "-f", "ndeval",
                                    str(qrels), str(tmp_path / "runs")], stdout=stdout, stderr=subprocess.PIPE)
            deadline = time.monotonic() + START_SECONDS
            while out.read_bytes().count(b",amean,") < 10:
                assert job.poll() is None and time.monotonic() < deadline, job.stderr.read().decode()
                time.sleep(0.01)
            os.killpg(doomed.workers[0].pid, signal.SIGKILL)
            written = out.read_bytes().count(b",amean,")
            assert job.poll() is None and written < 150, written  # killed in the middle of the job
            _, err = job.communicate(timeout=300)
        assert job.returncode == 0, err.decode()
        assert out.read_bytes() == expected.stdout
        assert doomed.workers[0].wait(10) == -signal.SIGKILL
    finally:
        doomed.stop()


@pytest.mark.dask
def test_a_scheduler_that_dies_during_a_job_is_a_clear_error(tmp_path):
    qrels, _ = synthetic_collection(tmp_path, 100)
    doomed = DaskCluster(tmp_path, workers=1)
    try:
        job = subprocess.Popen([sys.executable, "-m", "divaleval", "--scheduler", doomed.address, "-n", "-f", "trec",
                                str(qrels), str(tmp_path / "runs")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert job.stdout.readline(), job.stderr.read().decode()  # a first run is printed: the job is under way
        os.killpg(doomed.scheduler.pid, signal.SIGKILL)
        start = time.monotonic()
        _, err = job.communicate(timeout=60)
        assert time.monotonic() - start < 15
    finally:
        doomed.stop()
    assert job.returncode == 2
    assert err.decode().startswith(f"divaleval: the Dask cluster at {doomed.address} stopped answering")
    assert b"Traceback" not in err and err.count(b"\n") <= 2, err.decode()


def bad_deep_in_the_file(folder: Path) -> Path:
    """A run whose first 64 KiB are fine (the client's early check passes): its line 3001 is bad."""
    good = [f"101 Q0 doc-101-{k:05d} {k} {10000 - k} late" for k in range(1, 3001)]
    path = folder / "late.txt"
    path.write_text("\n".join(good + ["101 Q0 doc-101-x notanumber 1 late"] + good[:5]) + "\n")
    return path


@pytest.mark.dask
@pytest.mark.parametrize("ship", [False, True], ids=["by-path", "shipped"])
def test_a_bad_run_read_on_a_worker_gives_the_local_file_and_line(cluster, tmp_path, ship):
    bad = bad_deep_in_the_file(tmp_path)
    done = same_as_in_process([QRELS, RUNS / "bm25.txt", bad, RUNS / "random.txt"], cluster.address,
                              *(["--ship-runs"] if ship else []))
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"divaleval: {bad}:3001: ")


@pytest.mark.dask
def test_skip_bad_on_a_worker_warns_as_locally(cluster, tmp_path):
    bad = bad_deep_in_the_file(tmp_path)
    done = same_as_in_process(["--skip-bad", QRELS, RUNS / "bm25.txt", bad, RUNS / "random.txt"], cluster.address)
    assert done.returncode == 0 and f"{bad}:3001: ".encode() in done.stderr and b"run skipped" in done.stderr


def test_a_run_missing_on_a_worker_says_to_ship_the_runs(tmp_path):
    from divaleval.cluster import RunOnDisk
    from divaleval.errors import InputError

    with pytest.raises(InputError, match="runs/a.txt: no such file on the Dask worker .*--ship-runs"):
        RunOnDisk("runs/a.txt", str(tmp_path / "nowhere" / "a.txt")).read()


@pytest.mark.dask
def test_an_unreachable_scheduler_fails_within_seconds():
    port = free_port()  # nothing listens there
    start = time.monotonic()
    done = cli(["--scheduler", f"tcp://127.0.0.1:{port}", QRELS, RUNS])
    elapsed = time.monotonic() - start
    assert elapsed < 10, elapsed
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith(f"divaleval: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")


@pytest.mark.dask
def test_ctrl_c_cancels_the_job_and_leaves_the_cluster_usable(cluster, tmp_path):
    qrels, runs = synthetic_collection(tmp_path, 60, topics=10, depth=2000, seed=3)
    job = subprocess.Popen([sys.executable, "-m", "divaleval", "--scheduler", cluster.address, "-n", str(qrels),
                            str(tmp_path / "runs")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=sigint_as_a_terminal_sends_it)
    first = job.stdout.readline()  # the header: the job has started
    assert first.startswith(b"runid,topic,"), job.stderr.read().decode()
    job.send_signal(signal.SIGINT)
    _, err = job.communicate(timeout=60)
    assert job.returncode != 0 and b"Traceback" not in err, err.decode()
    with cluster.client() as client:
        deadline = time.monotonic() + 30
        while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
            assert time.monotonic() < deadline, "the job's tasks were left on the scheduler"
            time.sleep(0.2)
        assert len(client.scheduler_info()["workers"]) == 2
    same_as_in_process(["-f", "trec", QRELS, RUNS], cluster.address)


# -- resampling --------------------------------------------------------------------------------------------------

@pytest.mark.dask
def test_resampling_p_values_are_equal_for_one_and_two_workers(cluster):
    compare = ["compare", "-f", "csv", "-B", "2000", "--seed", "7", "-m", "alpha-nDCG@10,ERR-IA@10", QRELS, RUNS]
    meta = ["meta", "-f", "json", "-s", "asl", "-B", "1500", "--seed", "11", "-m", "alpha-nDCG@10,ERR-IA@10,P-IA@5",
            QRELS, RUNS]
    for args in (compare, meta):
        here = cli(args)
        one = cli([args[0], "--scheduler", "local:1", *args[1:]])
        two = cli([args[0], "--scheduler", cluster.address, *args[1:]])
        assert here.returncode == one.returncode == two.returncode == 0, (one.stderr + two.stderr).decode()
        assert one.stdout == two.stdout == here.stdout
    rows = here.stdout.decode().splitlines()
    assert len({json.loads(row)["p"] for row in rows}) > 3  # p-values that differ: trials that mattered


# -- without Dask ------------------------------------------------------------------------------------------------

def test_without_dask_the_message_names_the_extra():
    blocked = "import sys; sys.modules['dask'] = sys.modules['distributed'] = None; " \
              "from divaleval.cli import main; main()"
    for args in (["--scheduler", "local:2", QRELS, RUNS], ["compare", "--scheduler", "local:2", QRELS, RUNS]):
        done = subprocess.run([sys.executable, "-c", blocked, *map(str, args)], capture_output=True, cwd=ROOT)
        assert done.returncode == 2 and done.stdout == b""
        assert "--scheduler needs Dask: pip install 'divaleval[dask]'" in done.stderr.decode()


def test_scheduler_options_that_do_not_go_together():
    for args, message in ((["--ship-runs", QRELS, RUNS], "--ship-runs goes with --scheduler"),
                          (["-j", "2", "--scheduler", "local:2", QRELS, RUNS], "not both"),
                          (["--scheduler", "local:x", QRELS, RUNS], "local:N takes a number of workers"),
                          (["--scheduler", "./no/scheduler.json", QRELS, RUNS], "no such scheduler file")):
        done = cli(args)
        assert done.returncode == 2 and message in done.stderr.decode(), done.stderr.decode()


def test_dask_settings_as_the_environment_variables_dask_reads():
    from divaleval.cluster import dask_environment

    assert dask_environment({"distributed.admin.system-monitor.interval": "5s",
                             "distributed.worker.profile.enabled": False}) == {
        "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
        "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}


@pytest.mark.dask
def test_a_local_cluster_runs_without_the_dashboard_s_diagnostics():
    """Its workers sample no profile and check their event loop once a second (docs/scale-out.md): the settings reach
    the worker processes, which have no profiling callback."""
    import dask

    from divaleval.cluster import Cluster

    with Cluster("local:1") as cluster:
        seen = cluster.client.run(lambda dask_worker: (dask.config.get("distributed.admin.tick.interval"),
                                                       dask.config.get("distributed.admin.system-monitor.interval"),
                                                       sorted(dask_worker.periodic_callbacks)))
    [(tick, monitor, callbacks)] = seen.values()
    assert (tick, monitor) == ("1s", "5s") and "profile" not in callbacks and "profile-cycle" not in callbacks


@pytest.mark.dask
def test_a_local_cluster_says_nothing_when_the_dashboard_port_is_taken():
    """Another cluster or a notebook holding Dask's dashboard port (8787) changes nothing: the local cluster's
    scheduler serves its health checks on a free port of the loopback, so Dask has nothing to warn about."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("0.0.0.0", 8787))  # (where it is taken already, so much the better)
        holder.listen()
    except OSError:
        pass
    try:
        done = cli(["--scheduler", "local:1", QRELS, RUNS / "bm25.txt"])
    finally:
        holder.close()
    assert done.returncode == 0 and done.stderr == b"" and done.stdout.startswith(b"runid,topic,")
