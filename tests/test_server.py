"""``divaleval server``: a served call is the call run in place, byte for byte, status and signals included.

Each comparison runs the console script twice, with ``DIVALEVAL_SERVER=0`` (in place) and ``=1`` (the call
must be served, else status 2), and holds standard output, standard error and the exit status equal. The
servers live in runtime directories of the tests' own (``XDG_RUNTIME_DIR``), so that no other test's calls
reach them. Linux only, as servers are.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from divaleval import launch
from divaleval.cli import choices

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).parent / "divaleval"
SAMPLE = ROOT / "sample_data"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"),
                                reason="servers run on Linux only")


def _runtime_directory() -> str:
    # (short: a socket's path has room for about 100 characters, more than pytest's tmp_path leaves)
    directory = tempfile.mkdtemp(prefix="dvs")
    os.chmod(directory, 0o700)
    return directory


def _environment(runtime: str, **more: str) -> dict[str, str]:
    environment = {name: value for name, value in os.environ.items() if name != "DIVALEVAL_SERVER"}
    return {**environment, "XDG_RUNTIME_DIR": runtime, **more}


def _divaleval(runtime: str, *args: str, mode: str | None = None, cwd: Path = SAMPLE, **kwargs):
    extra = {} if mode is None else {"DIVALEVAL_SERVER": mode}
    return subprocess.run([str(SCRIPT), *args], cwd=cwd, capture_output=True,
                          env=_environment(runtime, **extra), timeout=120, **kwargs)


class Status(NamedTuple):
    pid: int
    calls: int
    running: int


def _status(runtime: str) -> Status | None:
    """What ``divaleval server status`` says (asked as the calls are made: with their environment)."""
    said = _divaleval(runtime, "server", "status")
    if said.returncode == 1:
        return None
    found = re.search(rb"running: pid (\d+), .*, (\d+) calls served, (\d+) running now;", said.stdout)
    assert said.returncode == 0 and found, said
    return Status(*map(int, found.groups()))


READ = {"x86_64": 0, "aarch64": 63}.get(platform.machine())  # read(2)'s number in /proc/PID/task/*/syscall


def _reading_standard_input(pid: int) -> bool:
    """Whether a thread of process ``pid`` waits in read(0, ...): a call at its run from standard input."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            fields = (task / "syscall").read_text().split()
        except OSError:
            continue
        if fields[:2] == [str(READ), "0x0"]:
            return True
    return False


def _wait_until_reading(call: subprocess.Popen, runtime: str, mode: str) -> None:
    """Until the call (in place: the caller; served: one of the server's children) reads its standard input,
    past its start-up (a signal during Python's start-up would end it otherwise than the test expects)."""
    if READ is None:
        time.sleep(3.0)
        return
    if mode == "0":
        assert _wait_for(lambda: _reading_standard_input(call.pid))
        return
    server = _status(runtime).pid

    def children() -> list[int]:
        try:
            return [int(pid) for pid in Path(f"/proc/{server}/task/{server}/children").read_text().split()]
        except OSError:
            return []
    assert _wait_for(lambda: any(_reading_standard_input(pid) for pid in children()))


def _wait_for(condition, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def runtime():
    """A runtime directory with a server running in it."""
    directory = _runtime_directory()
    started = _divaleval(directory, "server", "start", "--idle", "300")
    assert started.returncode == 0, started.stderr.decode()
    assert b"started (pid" in started.stderr
    yield directory
    _divaleval(directory, "server", "stop")
    shutil.rmtree(directory, ignore_errors=True)


def test_every_command_is_either_served_or_not():
    assert launch.SERVED | launch.NOT_SERVED == choices.COMMANDS
    assert not launch.SERVED & launch.NOT_SERVED


CALLS = [
    ("qrels.txt", "runs/bm25.txt"),
    ("qrels.txt", "runs/"),
    ("-j", "2", "qrels.txt", "runs/"),                # worker processes started from a served call
    ("-m", "all", "-f", "json", "qrels.txt", "runs/"),
    ("evaluate", "-m", "alpha-nDCG@5,ERR-IA@20", "--compat", "ntcireval", "qrels.txt", "runs/bm25.txt"),
    ("ndeval", "qrels.txt", "runs/bm25.txt"),
    ("trec_eval", "qrels.txt", "runs/bm25.txt"),
    ("gdeval", "qrels.txt", "runs/bm25.txt"),
    ("qrels.txt", "no-such-run.txt"),                 # exit 2, the file named
    ("-m", "no-such-measure", "qrels.txt", "runs/bm25.txt"),  # a usage error
    ("--version",),
    ("--help",),
    ("ndeval", "--help"),
]


@pytest.mark.parametrize("args", CALLS, ids=" ".join)
def test_a_served_call_prints_what_the_call_in_place_prints(runtime, args):
    before = _status(runtime).calls
    here = _divaleval(runtime, *args, mode="0")
    served = _divaleval(runtime, *args, mode="1")
    assert (served.returncode, served.stdout, served.stderr) == (here.returncode, here.stdout, here.stderr)
    assert here.stdout or here.stderr
    assert _status(runtime).calls == before + 1  # (the served one, and it alone)


def test_a_served_call_reads_the_callers_standard_input_and_environment(runtime):
    run = (SAMPLE / "runs" / "bm25.txt").read_bytes()
    here = _divaleval(runtime, "qrels.txt", "-", mode="0", input=run)
    served = _divaleval(runtime, "qrels.txt", "-", mode="1", input=run)
    assert served.returncode == 0 and served.stdout == here.stdout and here.stdout.startswith(b"runid,topic,")
    # The help's width follows the caller's COLUMNS, read when the call runs.
    narrow = {"COLUMNS": "60"}
    wide_help = _divaleval(runtime, "--help", mode="1").stdout
    here = subprocess.run([str(SCRIPT), "--help"], capture_output=True, env=_environment(runtime, **narrow,
                          DIVALEVAL_SERVER="0"))
    served = subprocess.run([str(SCRIPT), "--help"], capture_output=True, env=_environment(runtime, **narrow,
                            DIVALEVAL_SERVER="1"))
    assert served.stdout == here.stdout != wide_help


def _blocked_call(runtime: str, mode: str, **kwargs) -> subprocess.Popen:
    """A call reading its run from a pipe the test holds open: it waits until the test writes or signals."""
    return subprocess.Popen([str(SCRIPT), "qrels.txt", "-"], cwd=SAMPLE, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_environment(runtime, DIVALEVAL_SERVER=mode), **kwargs)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_caller_ends_the_served_call_as_it_ends_one_in_place(runtime, number):
    results = []
    for mode in "01":
        call = _blocked_call(runtime, mode)
        _wait_until_reading(call, runtime, mode)
        call.send_signal(number)
        out, err = call.communicate(timeout=60)
        results.append((call.returncode, out, err))
    assert results[0] == results[1]
    expected = (130, b"divaleval: interrupted\n") if number == signal.SIGINT else (-number, b"")
    assert (results[1][0], results[1][2]) == expected


def test_a_signal_the_caller_ignores_is_not_passed_on(runtime):
    call = _blocked_call(runtime, "1", preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert _wait_for(lambda: _status(runtime).running >= 1)
    call.send_signal(signal.SIGINT)
    out, err = call.communicate((SAMPLE / "runs" / "bm25.txt").read_bytes(), timeout=60)
    assert call.returncode == 0, err
    assert out.startswith(b"runid,topic,")


def test_a_caller_that_goes_away_ends_its_served_call(runtime):
    running = _status(runtime).running
    call = _blocked_call(runtime, "1")
    assert _wait_for(lambda: _status(runtime).running == running + 1)
    call.kill()
    call.wait()
    assert _wait_for(lambda: _status(runtime).running == running)


def test_calls_run_side_by_side(runtime):
    calls = [_blocked_call(runtime, "1") for _ in range(3)]
    assert _wait_for(lambda: _status(runtime).running == 3)
    run = (SAMPLE / "runs" / "bm25.txt").read_bytes()
    outputs = [call.communicate(run, timeout=60)[0] for call in reversed(calls)]
    assert len(set(outputs)) == 1 and outputs[0].startswith(b"runid,topic,")
    assert all(call.returncode == 0 for call in calls)


def test_a_call_with_other_settings_is_not_served(runtime):
    """A variable read when Python or numpy loads (here PYTHONHASHSEED) names another server: none runs."""
    other = subprocess.run([str(SCRIPT), "qrels.txt", "runs/bm25.txt"], cwd=SAMPLE, capture_output=True,
                           env=_environment(runtime, DIVALEVAL_SERVER="1", PYTHONHASHSEED="7"))
    assert other.returncode == 2
    assert b"DIVALEVAL_SERVER=1, but no server takes this call: no server answers" in other.stderr
    in_place = subprocess.run([str(SCRIPT), "qrels.txt", "runs/bm25.txt"], cwd=SAMPLE, capture_output=True,
                              env=_environment(runtime, PYTHONHASHSEED="7"))
    assert in_place.returncode == 0 and in_place.stdout.startswith(b"runid,topic,")


def test_commands_that_are_not_served_run_in_place(runtime):
    before = _status(runtime).calls
    done = _divaleval(runtime, "validate", "runs/bm25.txt", mode="1")
    assert done.returncode == 0 and b"runs/bm25.txt: OK" in done.stdout, done
    assert _status(runtime).calls == before


def test_a_socket_directory_others_may_enter_is_not_used(runtime):
    directory = Path(runtime) / "divaleval"
    directory.chmod(0o755)
    try:
        refused = _divaleval(runtime, "qrels.txt", "runs/bm25.txt", mode="1")
        assert refused.returncode == 2
        assert b"is not a directory of this user's, closed to others" in refused.stderr
        assert _divaleval(runtime, "qrels.txt", "runs/bm25.txt").returncode == 0  # (in place)
    finally:
        directory.chmod(0o700)


def test_start_status_stop_and_idle():
    runtime = _runtime_directory()
    try:
        assert _divaleval(runtime, "server", "status").stdout == b"not running\n"
        assert _divaleval(runtime, "server", "status").returncode == 1
        assert _divaleval(runtime, "server", "stop").stderr == b"divaleval server: none was running\n"
        assert _divaleval(runtime, "server", "start", "--idle", "0").returncode == 0
        again = _divaleval(runtime, "server", "start")
        assert again.returncode == 1 and b"a server is already running (pid" in again.stderr
        status = _divaleval(runtime, "server", "status")
        assert status.returncode == 0 and b"; until stopped;" in status.stdout
        assert _divaleval(runtime, "qrels.txt", "runs/bm25.txt", mode="1").returncode == 0
        stopped = _divaleval(runtime, "server", "stop")
        assert stopped.returncode == 0 and b"stopped (pid" in stopped.stderr and b"1 calls served" in stopped.stderr
        assert not list((Path(runtime) / "divaleval").iterdir())  # (nor an empty log)
        assert _divaleval(runtime, "server", "start", "--idle", "1").returncode == 0
        assert _wait_for(lambda: _status(runtime) is None, 30)
        assert not list((Path(runtime) / "divaleval").glob("*.sock"))
    finally:
        _divaleval(runtime, "server", "stop")
        shutil.rmtree(runtime, ignore_errors=True)


def test_the_files_a_server_watches_include_pyarrow_s_compiled_ones():
    """The qrels cache's key names pyarrow's build by its files: a server whose loaded Arrow is no longer the one
    installed stops, as for divaleval's own files."""
    from divaleval.model.stored import arrow_build_files, source_files
    from divaleval.server import code_state

    arrow = arrow_build_files()
    assert any(name.startswith("lib") for name, _, _ in arrow)  # (pyarrow.lib's extension module, at least)
    assert code_state() == tuple(source_files()) + tuple(arrow)


def test_a_server_declines_calls_once_divalevals_files_change(tmp_path):
    """A server of a copy of the package: a file of the copy touched, the next call runs in place."""
    copy = tmp_path / "site"
    shutil.copytree(ROOT / "divaleval", copy / "divaleval", ignore=shutil.ignore_patterns("__pycache__"))
    script = tmp_path / "divaleval-copy"
    script.write_text(f"#!{sys.executable}\nfrom divaleval.launch import run\nrun()\n")
    script.chmod(0o755)
    runtime = _runtime_directory()
    environment = _environment(runtime, PYTHONPATH=str(copy))
    try:
        assert subprocess.run([str(script), "server", "start"], env=environment, cwd=SAMPLE).returncode == 0
        args = [str(script), "qrels.txt", "runs/bm25.txt"]
        served = subprocess.run(args, cwd=SAMPLE, capture_output=True, env={**environment, "DIVALEVAL_SERVER": "1"})
        assert served.returncode == 0 and served.stdout.startswith(b"runid,topic,")
        module = copy / "divaleval" / "ranking.py"
        module.write_text(module.read_text() + "\n")
        declined = subprocess.run(args, cwd=SAMPLE, capture_output=True, env={**environment, "DIVALEVAL_SERVER": "1"})
        assert declined.returncode == 2
        assert b"divaleval's or pyarrow's files changed since the server started; it stops" in declined.stderr
        in_place = subprocess.run(args, cwd=SAMPLE, capture_output=True, env=environment)
        assert in_place.stdout == served.stdout
        assert _wait_for(lambda: _status(runtime) is None)
    finally:
        subprocess.run([str(script), "server", "stop"], env=environment, capture_output=True)
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_server_outlives_callers_that_send_nonsense(runtime):
    """Requests cut short, too long, not marshal data, or of another protocol: each is dropped, and the next call
    is served as usual."""
    import marshal
    import socket

    path = next((Path(runtime) / "divaleval").glob("*.sock"))
    nonsense = [b"", b"\x01\x02", (1 << 40).to_bytes(8, "little"), (5).to_bytes(8, "little") + b"\xff" * 5,
                len(request := marshal.dumps((99, "call", "key"))).to_bytes(8, "little") + request]
    for sent in nonsense:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(30)
            connection.connect(str(path))
            connection.sendall(sent)
            connection.shutdown(socket.SHUT_WR)
            answer = connection.recv(4096)
        assert answer in (b"", launch.NOT_TAKEN + b"its Python, divaleval or settings are not the server's"), sent
    served = _divaleval(runtime, "qrels.txt", "runs/bm25.txt", mode="1")
    assert served.returncode == 0 and served.stdout.startswith(b"runid,topic,")
