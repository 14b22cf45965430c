"""A progress bar on standard error for long randomised work, shown only on a terminal."""
from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30
INTERVAL = 0.1  # seconds between redraws


class ProgressBar:
    """``advance(n)`` as trials finish; ``close()`` clears the line. Silent unless ``stream`` is a terminal."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = (self.stream.isatty() if enabled is None else enabled) and total > 0
        self.total = total
        self.done = 0
        self.label = label
        self.started = time.monotonic()
        self.drawn = 0.0

    def advance(self, count: int) -> None:
        self.done = min(self.total, self.done + count)
        now = time.monotonic()
        if self.enabled and (now - self.drawn >= INTERVAL or self.done == self.total):
            self.drawn = now
            filled = int(WIDTH * self.done / self.total)
            elapsed = now - self.started
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] "
                              f"{100 * self.done // self.total:3d}% {self.done}/{self.total} trials, {elapsed:.0f}s")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
