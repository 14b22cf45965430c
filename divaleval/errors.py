"""Errors and warnings that reach the user.

Every problem with an input is an :class:`InputError` that names the file and,
where there is one, the line: the CLI prints ``FILE:LINE: reason`` and exits
non-zero, never a traceback.

Warnings go to a sink, a callable taking one message. The library's default sink,
:func:`emit_warning`, makes each a Python warning of the category
:class:`DivalevalWarning` (so ``warnings.catch_warnings``, ``warnings.filterwarnings``
and pytest see them), attributed to the caller's line rather than divaleval's; the
command line passes its own sink, :func:`warn_to_stderr`, and shows any
``DivalevalWarning`` the same way (:func:`show_on_stderr`), so that it prints
``divaleval: warning: ...`` lines whichever path a warning takes.
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from typing import Callable, Iterator


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


class DivalevalWarning(UserWarning):
    """A warning of divaleval's (lines ignored, a topic without relevant documents, a measure undefined ...)."""


WarningSink = Callable[[str], None]
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def emit_warning(message: str) -> None:
    """The library's default warning sink: a :class:`DivalevalWarning`, shown at the first line outside
    divaleval that led to it (the user's call), as Python 3.12's ``skip_file_prefixes`` would."""
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, DivalevalWarning, stacklevel=level)


def warn_to_stderr(message: str) -> None:
    """The command line's warning sink: one line on standard error."""
    print(f"divaleval: warning: {message}", file=sys.stderr)


def ignore_warning(message: str) -> None:
    """A sink that drops every warning (``warn=False``, ``--quiet``)."""


def warning_sink(warn: WarningSink | bool | None) -> WarningSink:
    """The sink a library call's ``warn`` names: None or True, Python warnings (:func:`emit_warning`);
    False, none; a callable, itself."""
    if warn is None or warn is True:
        return emit_warning
    if warn is False:
        return ignore_warning
    if not callable(warn):
        raise UsageError(f"warn must be a callable, True, False or None, not {warn!r}")
    return warn


@contextlib.contextmanager
def show_on_stderr() -> Iterator[None]:
    """Within it, every :class:`DivalevalWarning` (from a library default the command line did not replace)
    is printed as :func:`warn_to_stderr` prints, each time it is raised; other warnings are shown as
    Python shows them."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", DivalevalWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, DivalevalWarning):
                warn_to_stderr(str(message))
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def as_written(identifier: bytes | str) -> str:
    """An id as a message shows it: the text as written in the file (never Python's ``b'...'``), a
    byte that is not UTF-8 shown escaped (``\\xff``) so that the message stays one readable line."""
    if isinstance(identifier, bytes):
        return identifier.decode("utf-8", "backslashreplace")
    return identifier.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def describe_ids(ids: list[str], limit: int = 10) -> str:
    """A short, readable list of ids for a warning ("1, 2, 3 and 7 more")."""
    shown = ", ".join(ids[:limit])
    if len(ids) > limit:
        shown += f" and {len(ids) - limit} more"
    return shown


def describe_unknown_topics(name: str, unknown: list[str], known, lines: list[int] | None = None) -> list[str]:
    """Warnings for a run's topics the qrels lack (their lines are ignored).

    Topic ids are compared as text, as trec_eval does: a run's ``0101`` is not
    the qrels' ``101``. Where an unknown id is, as a number, one the qrels
    have (ndeval compares numbers, and so does ``divaleval ndeval``), the
    warning says which topic lost those lines and why.

    lines: the run's lines of each unknown topic (as ``unknown``), said in the
    warnings so that a reader sees what was lost.
    """
    if not unknown:
        return []
    count = dict(zip(unknown, lines)) if lines else {}
    by_number = {_number(topic): topic for topic in known if _number(topic)}
    twins = {topic: by_number.get(_number(topic)) for topic in unknown if _number(topic)}
    written_otherwise = [topic for topic in unknown if twins.get(topic) is not None]
    others = [topic for topic in unknown if twins.get(topic) is None]
    messages = []
    if written_otherwise:
        several = len(written_otherwise) > 1
        if several:  # each topic with its lines
            topics, lost = f"topics {_with_lines(written_otherwise, count)} are", "their lines are"
        else:
            topic = written_otherwise[0]
            lost = f"its {_lines(count[topic])} {'is' if count[topic] == 1 else 'are'}" if count else "its lines are"
            topics = f"topic {topic} is"
        messages.append(
            f"{name}: {topics} not in the qrels; {lost} ignored (the qrels have {'topics' if several else 'topic'} "
            f"{describe_ids([twins[topic] for topic in written_otherwise])}: topic ids are compared as text; "
            "`divaleval ndeval` reads them as numbers)")
    if others:
        messages.append(f"{name}: topics not in the qrels are ignored: {_with_lines(others, count)}")
    return messages


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _with_lines(topics: list[str], count: dict[str, int], limit: int = 10) -> str:
    """Topic ids for a warning, each with its lines where counted: "999 (2 lines), 1000 (1 line) and 3 more
    (7 lines)"."""
    if not count:
        return describe_ids(topics, limit)
    shown = ", ".join(f"{topic} ({_lines(count[topic])})" for topic in topics[:limit])
    if len(topics) > limit:
        shown += f" and {len(topics) - limit} more ({_lines(sum(count[topic] for topic in topics[limit:]))})"
    return shown


def _number(identifier: str) -> str | None:
    """The number an id of ASCII digits is, spelt without leading zeros (None for other ids)."""
    if identifier.isascii() and identifier.isdigit():
        return identifier.lstrip("0") or "0"
    return None
