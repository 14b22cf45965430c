"""Checksums of a report's inputs: the configuration section names each file with its SHA-256, so that a reader
can tell whether the files before them are those that produced the report."""
from __future__ import annotations

import hashlib
import os
from typing import Iterable

CHUNK = 1 << 20


def sha256_of(path: str) -> str | None:
    """The hex SHA-256 of a file's bytes (None for standard input or what is not a regular file)."""
    if path == "-" or not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def input_checksums(inputs: Iterable[tuple[str, str]]) -> list[tuple[str, str, str | None]]:
    """(role, path, sha256) of each (role, path) given: ``("qrels", "qrels.txt")`` -> its checksum."""
    return [(role, path, sha256_of(path)) for role, path in inputs]
