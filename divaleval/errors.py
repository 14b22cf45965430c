"""Errors and warnings that reach the user.

Every problem with an input is an :class:`InputError` that names the file and,
where there is one, the line: the CLI prints ``FILE:LINE: reason`` and exits
non-zero, never a traceback.
"""
from __future__ import annotations

import sys
from typing import Callable


class DivalevalError(Exception):
    """Base class of the errors divaleval reports to the user."""


class InputError(DivalevalError):
    """A problem with an input file, located by file name and line number."""

    def __init__(self, source: str, line: int | None, reason: str) -> None:
        self.source = source
        self.line = line
        self.reason = reason
        super().__init__(self.location() + reason)

    def __reduce__(self):  # keep the fields when sent from a worker process
        return (type(self), (self.source, self.line, self.reason))

    @classmethod
    def repeat(cls, source: str, lines, pair: tuple[int, int], what: str, hint: str = "") -> "InputError":
        """``what``, on the later line of ``pair`` (rows into ``lines``), repeats the earlier one."""
        first, second = pair
        return cls(source, int(lines[second]), f"{what} repeats line {lines[first]}{hint}")

    def location(self) -> str:
        if self.line is None:
            return f"{self.source}: "
        return f"{self.source}:{self.line}: "


class UsageError(DivalevalError, ValueError):
    """A bad option, option value or measure name (not tied to an input file)."""


WarningSink = Callable[[str], None]


def warn_to_stderr(message: str) -> None:
    """Default warning sink: one line on standard error."""
    print(f"divaleval: warning: {message}", file=sys.stderr)


def describe_ids(ids: list[str], limit: int = 10) -> str:
    """A short, readable list of ids for a warning ("1, 2, 3 and 7 more")."""
    shown = ", ".join(ids[:limit])
    if len(ids) > limit:
        shown += f" and {len(ids) - limit} more"
    return shown
