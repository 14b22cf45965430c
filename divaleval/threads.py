"""Calls handed to background threads, their results taken in the order asked for.

What the evaluator (reading runs ahead, computing ideal rankings beside) and the readers (two blocks of a
file at a time) need of a thread pool, without :mod:`concurrent.futures`: that module imports
:mod:`logging`, 7-9 ms of every call's start-up, a fiftieth of a call of one run.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable


class Task:
    """One call, run by one of the pool's threads when its turn comes; :meth:`result` waits for it."""

    def __init__(self, work: Callable[..., Any], args: tuple) -> None:
        self._work: Callable[..., Any] | None = work
        self._args: tuple | None = args
        self._value: Any = None
        self._error: BaseException | None = None
        self._done = threading.Event()

    def run(self, failed: BaseException | None = None) -> None:
        """Make the call, or (``failed``: its thread could not start) end with that error instead."""
        try:
            if failed is not None:
                raise failed
            self._value = self._work(*self._args)
        except BaseException as exc:  # carried to the thread that asks for the result
            self._error = exc
        finally:
            self._work = self._args = None  # (the arguments, a run read from standard input, are let go)
            self._done.set()

    def result(self) -> Any:
        """The call's value, or its exception raised here; asked for once (the value is let go)."""
        self._done.wait()
        error, value = self._error, self._value
        self._error = self._value = None  # (a run held here would outlive its turn; a traceback, a cycle)
        if error is not None:
            raise error
        return value


class Threads:
    """At most ``workers`` calls at a time, in first-come order, each in one of at most ``workers`` threads
    kept for the pool's life; leaving the ``with`` block waits for every call handed over (as
    ``ThreadPoolExecutor``'s does), whatever ended the block.

    The threads are kept rather than started afresh for each call: the C library gives each new thread a
    heap (an arena) of its own while the old one's thread is still ending, and every heap keeps its
    high-water mark resident, so that threads started a call at a time made peak memory grow with the
    number of runs.
    """

    def __init__(self, workers: int, name: str, start: Callable[[], None] | None = None) -> None:
        self._workers = workers
        self._name = name
        self._start = start  # called first in each thread; what it raises, that thread's calls raise
        self._waiting: deque[Task] = deque()
        self._changed = threading.Condition()
        self._closed = False
        self._threads: list[threading.Thread] = []

    def submit(self, work: Callable[..., Any], *args: Any) -> Task:
        task = Task(work, args)
        with self._changed:
            self._waiting.append(task)
            self._changed.notify()
        if len(self._threads) < self._workers:
            thread = threading.Thread(target=self._serve, name=f"{self._name}-{len(self._threads) + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return task

    def _serve(self) -> None:
        failed = None
        if self._start is not None:
            try:
                self._start()
            except BaseException as exc:  # (a thread that stopped here would leave its calls waiting for ever)
                failed = exc
        while True:
            with self._changed:
                while not self._waiting and not self._closed:
                    self._changed.wait()
                if not self._waiting:
                    return
                task = self._waiting.popleft()
            task.run(failed)
            del task  # (not held while this thread waits for the next)

    def __enter__(self) -> "Threads":
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        for thread in self._threads:
            thread.join()
        self._threads = []
