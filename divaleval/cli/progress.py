"""Progress on standard error while it is a terminal: nothing when it is piped, or with -q.

One line, redrawn in place (at most ten times a second), cleared before any
warning is written and when the work is done, so that what stays on the
terminal is exactly what would have been written to a file. With a known total
it is a bar: ``label [#####.....]  45% 450/1000 trials, 3 s``.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

from ..errors import DivalevalError, warn_to_stderr

REDRAW_SECONDS = 0.1
BAR_WIDTH = 30


class Progress:
    """Counts units of work (runs, trials) toward an optional total; shows stages and warnings."""

    def __init__(self, label: str, total: int | None = None, *, unit: str = "", enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label, self.total, self.unit, self.done = label, total, unit, 0
        self.started = time.monotonic()
        self._drawn = 0.0
        self._shown = False

    def note(self, text: str) -> None:
        """Show a stage (``reading qrels.txt``) until the next step."""
        if self.enabled:
            self._write(f"{self.label}: {text}")

    def step(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self.enabled and (now - self._drawn >= REDRAW_SECONDS or self.done == self.total):
            self._drawn = now
            self._write(self._line(now))

    advance = step

    def _line(self, now: float) -> str:
        elapsed = now - self.started
        unit = f" {self.unit}" if self.unit else ""
        if self.total:
            filled = int(BAR_WIDTH * min(self.done, self.total) / self.total)
            return (f"{self.label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * self.done // self.total:3d}% "
                    f"{self.done}/{self.total}{unit}, {elapsed:.0f} s")
        return f"{self.label}: {self.done}{unit} ({self.done / max(elapsed, 1e-9):.1f}/s)"

    def warn(self, message: str) -> None:
        """A warning, written where the progress line was (which is then drawn again)."""
        shown = self._shown
        self.clear()
        warn_to_stderr(message)
        if shown and self.done:
            self._drawn = 0.0
            self.step(0)

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False

    close = clear

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()

    def _write(self, text: str) -> None:
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self._shown = True


def count_runs(runs: list[str]) -> int | None:
    """How many runs the arguments name (directories expanded), for the progress line."""
    from ..io import expand_run_paths  # (io loads numpy and pyarrow: not for --help)

    try:
        return len(expand_run_paths(runs))
    except DivalevalError:  # reported when the runs are read
        return None
