"""Progress on standard error while it is a terminal: nothing when it is piped, or with -q.

One line, redrawn in place (at most ten times a second), cleared before any
warning is written and when the work is done, so that what stays on the
terminal is exactly what would have been written to a file.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

from ..errors import warn_to_stderr

REDRAW_SECONDS = 0.1


class Progress:
    """Counts units of work (runs, trials) and shows ``label: done/total, rate``."""

    def __init__(self, label: str, total: int | None = None, *, enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = (self.stream.isatty() if enabled is None else enabled)
        self.label, self.total, self.done = label, total, 0
        self.started = time.perf_counter()
        self._drawn = 0.0
        self._shown = False

    def note(self, text: str) -> None:
        """Show a stage (``reading qrels.txt``) until the next step."""
        if self.enabled:
            self._write(text)

    def step(self, count: int = 1) -> None:
        self.done += count
        now = time.perf_counter()
        if self.enabled and (now - self._drawn >= REDRAW_SECONDS or self.done == self.total):
            self._drawn = now
            rate = self.done / max(now - self.started, 1e-9)
            total = f"/{self.total}" if self.total else ""
            self._write(f"{self.label}: {self.done}{total} ({rate:.1f}/s)")

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

    def _write(self, text: str) -> None:
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self._shown = True
