"""divaleval/threads.py: calls in background threads, at most N at a time, results and exceptions carried over."""
from __future__ import annotations

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
