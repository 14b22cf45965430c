"""divaleval/threads.py: calls in background threads, at most N at a time, results and exceptions carried over."""
from __future__ import annotations

import os
import threading
import time

import pytest

from divaleval.threads import Threads


def test_results_in_the_order_asked_and_at_most_workers_at_once():
    running, most, lock = [0], [0], threading.Lock()

    def work(value: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return value * value

    with Threads(2, "test") as pool:
        tasks = [pool.submit(work, k) for k in range(8)]
        assert [task.result() for task in tasks] == [k * k for k in range(8)]
    assert most[0] == 2


def test_an_exception_is_raised_where_the_result_is_asked_for():
    def fail(message: str) -> None:
        raise ValueError(message)

    with Threads(1, "test") as pool:
        task = pool.submit(fail, "bad run")
        with pytest.raises(ValueError, match="bad run"):
            task.result()


def test_leaving_the_block_waits_for_the_calls_still_running():
    finished = []

    def slow() -> None:
        time.sleep(0.05)
        finished.append(True)

    with pytest.raises(RuntimeError):
        with Threads(2, "test") as pool:
            pool.submit(slow)
            raise RuntimeError("the caller stops")
    assert finished == [True]


def test_a_result_is_let_go_once_taken():
    with Threads(1, "test") as pool:
        task = pool.submit(lambda: [1, 2, 3])
        assert task.result() == [1, 2, 3]
        assert task.result() is None


def test_the_threads_are_kept_for_every_call():
    # (a thread started a call at a time would get a heap of its own while the last one is still ending)
    names = set()

    def work() -> None:
        names.add(threading.current_thread().name)
        time.sleep(0.001)

    with Threads(2, "test") as pool:
        tasks = [pool.submit(work) for _ in range(20)]
        for task in tasks:
            task.result()
    assert names <= {"test-1", "test-2"}


def test_each_thread_runs_the_start_call_first_once():
    started, seen = [], []
    lock = threading.Lock()

    def start() -> None:
        with lock:
            started.append(threading.current_thread().name)

    def work(k: int) -> int:
        seen.append(threading.current_thread().name in started)
        return k

    with Threads(2, "t", start) as pool:
        assert [task.result() for task in [pool.submit(work, k) for k in range(6)]] == list(range(6))
    assert sorted(started) == ["t-1", "t-2"] and all(seen)


def test_a_start_call_that_fails_fails_the_calls_instead_of_hanging():
    def start() -> None:
        raise OSError("no start")

    with Threads(2, "t", start) as pool:
        tasks = [pool.submit(lambda k: k, k) for k in range(3)]
        for task in tasks:
            with pytest.raises(OSError, match="no start"):
                task.result()


def _vm_flags_at(address: int) -> list[str]:
    """The VmFlags of the mapping of this process that holds ``address`` (Linux's /proc/self/smaps)."""
    flags, inside = None, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and all(c in "0123456789abcdef-" for c in head):
                low, high = (int(part, 16) for part in head.split("-"))
                inside = low <= address < high
            elif inside and head == "VmFlags:":
                flags = line.split()[1:]
    assert flags is not None, hex(address)
    return flags


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="Linux's /proc/self/smaps")
def test_a_reader_threads_heap_is_advised_huge_pages():
    """After the advice, the mapping that holds what malloc gives the thread carries Linux's ``hg`` flag (advised
    MADV_HUGEPAGE)."""
    from divaleval import memory

    if not memory._HEAPS_ADVISABLE:
        pytest.skip("glibc on 64-bit Linux only")
    libc = memory._libc  # (malloc and free declared there: pointers in and out)
    flags: list[str] = []

    def look() -> None:
        memory.advise_huge_pages_for_this_thread()
        block = libc.malloc(1000)
        try:
            flags.extend(_vm_flags_at(block))
        finally:
            libc.free(block)

    thread = threading.Thread(target=look)
    thread.start()
    thread.join()
    assert "hg" in flags


# -- pyarrow imported by one thread while another gives memory back ---------------------------------------------

FAKE_ARROW = '''
import gate
gate.started.set()
gate.release.wait()  # (a slow import: the module is in sys.modules, half made, meanwhile)


class _Pool:
    def release_unused(self):
        gate.released.append(1)


def default_memory_pool():
    return _Pool()
'''

GATE = '''
import threading
started, release, released = threading.Event(), threading.Event(), []
'''

WHILE_IMPORTED = '''
import importlib, sys, threading, time
import gate
from divaleval import memory

importer = threading.Thread(target=importlib.import_module, args=("pyarrow",), daemon=True)  # (a failure ends)
importer.start()
gate.started.wait()
assert "pyarrow" in sys.modules and not hasattr(sys.modules["pyarrow"], "default_memory_pool")
errors, done = [], threading.Event()


def give_back():
    try:
        memory.release_unused_memory()
    except Exception as error:
        errors.append(repr(error))
    done.set()


threading.Thread(target=give_back, daemon=True).start()
time.sleep(0.2)
assert not errors, errors
assert not done.is_set(), "it must wait for the import to end, not use the half-made module"
gate.release.set()
done.wait()
importer.join()
assert not errors and gate.released == [1], (errors, gate.released)
print("ok")
'''


def test_memory_given_back_while_another_thread_imports_pyarrow(tmp_path):
    """A reader thread may import pyarrow (a text Arrow handles: an error to name, a long tie) while the main
    thread gives memory back after the ideal rankings: that waits for the import to end, where taking the
    module from sys.modules found it half made (AttributeError: a traceback instead of the run's error).
    A stand-in pyarrow whose import waits for the test makes the moment certain."""
    import subprocess
    import sys

    (tmp_path / "pyarrow").mkdir()
    (tmp_path / "pyarrow" / "__init__.py").write_text(FAKE_ARROW)
    (tmp_path / "gate.py").write_text(GATE)
    done = subprocess.run([sys.executable, "-c", WHILE_IMPORTED], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.getcwd()])})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_bad_line_deep_in_a_run_among_good_runs_is_named(tmp_path):
    """The call behind the test above: a run whose bad line only the Arrow reader can name (so a reader thread
    imports pyarrow) while the ideal rankings are computed; the error names the file and line, exit status 2."""
    import subprocess
    import sys

    from conftest import SAMPLE

    good = [f"101 Q0 doc-101-{k:05d} {k} {10000 - k} late" for k in range(1, 3001)]
    late = tmp_path / "late.txt"
    late.write_text("\n".join(good + ["101 Q0 doc-101-x notanumber 1 late"] + good[:5]) + "\n")
    runs = [SAMPLE / "runs" / "bm25.txt", late, SAMPLE / "runs" / "random.txt"]
    done = subprocess.run([sys.executable, "-m", "divaleval", str(SAMPLE / "qrels.txt"), *map(str, runs)],
                          capture_output=True, text=True, env={**os.environ, "DIVALEVAL_CACHE": "0"})
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"divaleval: {late}:3001: rank 'notanumber' is not an integer\n"
