"""Paths the commands write to (``-o``, ``--fix``, figures), checked before any work.

A command that scores runs for minutes and then cannot write its figure or its
file has thrown the minutes away; a command that writes over one of its inputs
has destroyed it. So every output path is checked when the options are read,
before any input is: :func:`check_output` refuses, with an
:class:`OutputPathError` naming the option and the path,

* a path whose directory does not exist, is not a directory, or cannot be
  written in (``os.access``: a read-only file system too, even for root; then a
  temporary file is made there and removed, for what permissions do not say);
* a path that is a directory (a file is to be written);
* the same file as an input (``os.path.samefile``: another name or a hard
  link is the same file; a file in an input directory counts);
* an existing file, where the command writes only new ones (``exists``);
* a figure with a suffix that is not a format drawn here, or without
  matplotlib to draw it (looked up, not imported: that costs a second).

What can still go wrong later (a full disk, a directory removed meanwhile) is
reported as the same error by the writer (:func:`cannot_write`), after the
command has printed what it computed.
"""
from __future__ import annotations

import importlib.util
import os
import tempfile
from typing import Iterable

from ..errors import UsageError

FILE, FIGURE, FOLDER = "file", "figure", "folder"
# Formats whose bytes do not depend on the day they are drawn (see output/plots.py), all of matplotlib's.
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
INSTALL_HINT = "drawing figures needs matplotlib: pip install 'divaleval[plot]'"


class OutputPathError(UsageError):
    """An output path that cannot, or must not, be written (the command prints ``divaleval: ...``, exit 2)."""


def check_output(path: str, option: str = "", *, kind: str = FILE, inputs: Iterable[str] = (),
                 exists: str | None = None, parents: bool = False) -> None:
    """Refuse (:class:`OutputPathError`) a path that the command could not, or must not, write.

    option: how messages name it (``--plot``; "" for none). kind: a :data:`FILE`,
    a :data:`FIGURE` (by its suffix) or a :data:`FOLDER` to write files into.
    inputs: the command's input files and directories (``-`` skipped), never
    written over. exists: None to replace an existing file, else the advice of
    the refusal. parents: missing directories on the way are made (their nearest
    existing ancestor must then be writable).
    """
    where = f"{option} {path}" if option else path
    if not path:
        raise OutputPathError(f"{option or 'an output'}: an empty path")
    if kind == FOLDER:
        if os.path.exists(path) and not os.path.isdir(path):
            raise OutputPathError(f"{where}: not a directory (files are written into it)")
        _check_directory(where, path, parents=True)
        return
    if os.path.isdir(path):
        raise OutputPathError(f"{where} is a directory: name the file to write")
    if kind == FIGURE:
        suffix = os.path.splitext(path)[1].lower()
        if suffix not in FIGURE_SUFFIXES:
            raise OutputPathError(f"{where}: a figure is written as {', '.join(FIGURE_SUFFIXES)}, by its suffix")
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError(INSTALL_HINT)
    _check_directory(where, os.path.dirname(os.path.abspath(path)), parents)
    if os.path.lexists(path):
        same = same_file_among(path, inputs)
        if same is not None:
            also = "" if os.path.abspath(same) == os.path.abspath(path) else f" (as {same})"
            raise OutputPathError(f"{where} is an input{also}: it will not be overwritten")
        if exists is not None:
            raise OutputPathError(f"{where} exists: {exists}")


def check_outputs(outputs: Iterable[tuple[str, str | None]], **checks) -> None:
    """:func:`check_output` of each (option, path) given (None: not given), and no file written twice."""
    seen: dict[str, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        check_output(path, option, **checks)
        key = os.path.realpath(path)
        if key in seen:
            raise OutputPathError(f"{option} {path} is also the file of {seen[key]}: give each its own")
        seen[key] = option


def same_file_among(path: str, inputs: Iterable[str]) -> str | None:
    """The input (or file of an input directory) that is the same file as ``path``, if any."""
    for item in inputs:
        if item == "-" or not item:
            continue
        candidates = [item]
        if os.path.isdir(item):
            candidates = [os.path.join(item, name) for name in sorted(os.listdir(item))]
        for candidate in candidates:
            try:
                if os.path.samefile(candidate, path):
                    return candidate
            except OSError:  # gone, or not readable: not the same file as one we could write
                continue
    return None


def cannot_write(path: str, error: OSError, option: str = "") -> OutputPathError:
    """The error of a write that failed after the check (a full disk, a directory removed meanwhile)."""
    where = f"{option} {path}" if option else path
    return OutputPathError(f"{where}: cannot write: {error.strerror or error}")


def _check_directory(where: str, directory: str, parents: bool) -> None:
    """``directory`` (the one written into) exists as a writable directory, or, with ``parents``, can be made."""
    directory = os.path.abspath(directory)
    while parents and not os.path.lexists(directory) and os.path.dirname(directory) != directory:
        directory = os.path.dirname(directory)
    if not os.path.lexists(directory):
        raise OutputPathError(f"{where}: the directory {directory} does not exist")
    if not os.path.isdir(directory):
        raise OutputPathError(f"{where}: {directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputPathError(f"{where}: cannot write in {directory} (no permission, or a read-only file system)")
    try:  # what permissions do not say (root in /sys or /proc, some network file systems): a file made and gone
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as error:
        raise OutputPathError(f"{where}: cannot write in {directory}: {error.strerror or error}") from None
