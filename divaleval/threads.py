"""Calls handed to background threads, their results taken in the order asked for.

What the evaluator (reading runs ahead, computing ideal rankings beside) and the readers (two blocks of a
file at a time) need of a thread pool, without :mod:`concurrent.futures`: that module imports
:mod:`logging`, 7-9 ms of every call's start-up, a fiftieth of a call of one run.
"""
from __future__ import annotations

import threading
from typing import Any, Callable


class Task:
    """One call running in a thread of its own (once a slot is free); :meth:`result` waits for it."""

    def __init__(self, slots: threading.Semaphore, work: Callable[..., Any], args: tuple, name: str) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(slots, work, args), name=name, daemon=True)
        self.thread.start()

    def _run(self, slots: threading.Semaphore, work: Callable[..., Any], args: tuple) -> None:
        with slots:
            try:
                self._value = work(*args)
            except BaseException as exc:  # carried to the thread that asks for the result
                self._error = exc

    def result(self) -> Any:
        """The call's value, or its exception raised here; asked for once (the value is let go)."""
        self.thread.join()
        error, value = self._error, self._value
        self._error = self._value = None  # (a run held here would outlive its turn; a traceback, a cycle)
        if error is not None:
            raise error
        return value


class Threads:
    """At most ``workers`` calls at a time, each in a thread of its own; leaving the ``with`` block waits
    for every call still running (as ``ThreadPoolExecutor``'s does), whatever ended the block."""

    def __init__(self, workers: int, name: str) -> None:
        self._slots = threading.Semaphore(workers)  # (its waiters are woken first come, first served)
        self._name = name
        self._running: list[threading.Thread] = []
        self._count = 0

    def submit(self, work: Callable[..., Any], *args: Any) -> Task:
        self._running = [thread for thread in self._running if thread.is_alive()]
        self._count += 1
        task = Task(self._slots, work, args, f"{self._name}-{self._count}")
        self._running.append(task.thread)
        return task

    def __enter__(self) -> "Threads":
        return self

    def __exit__(self, *exc_info: object) -> None:
        for thread in self._running:
            thread.join()
        self._running = []
