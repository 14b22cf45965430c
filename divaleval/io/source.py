"""Opening inputs: files, standard input (``-``), gzip, and run directories."""
from __future__ import annotations

import gzip
import os
import sys
import zlib
from dataclasses import dataclass

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
STDIN_NAME = "-"


@dataclass(frozen=True)
class InputFile:
    """The bytes of one input and the name to report it by."""

    name: str
    data: bytes


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN_NAME else path


def read_input(path: str) -> InputFile:
    """Read a whole input into memory, decompressing gzip.

    Inputs are read, never written: nothing here can truncate a file.
    """
    name = display_name(path)
    try:
        if path == STDIN_NAME:
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except IsADirectoryError:
        raise InputError(name, None, "is a directory, not a file") from None
    except OSError as exc:
        raise InputError(name, None, f"cannot open: {exc.strerror or exc}") from None
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, None, f"cannot decompress gzip data: {exc}") from None
    return InputFile(name, raw)


def expand_run_paths(paths: list[str]) -> list[str]:
    """Replace each directory by the files in it, sorted by name.

    Hidden files (names starting with ``.``) and subdirectories are skipped.
    """
    expanded: list[str] = []
    for path in paths:
        if path != STDIN_NAME and os.path.isdir(path):
            names = sorted(
                entry for entry in os.listdir(path)
                if not entry.startswith(".") and os.path.isfile(os.path.join(path, entry))
            )
            if not names:
                raise InputError(path, None, "directory holds no run files")
            expanded.extend(os.path.join(path, entry) for entry in names)
        else:
            expanded.append(path)
    if sum(path == STDIN_NAME for path in expanded) > 1:
        raise InputError("<stdin>", None, "standard input ('-') can be read only once")
    return expanded
