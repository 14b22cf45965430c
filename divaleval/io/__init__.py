"""Readers: intentwise qrels, intent probabilities, TREC runs, multi-aspect judgments.

Each reader turns a file (a path, ``-`` for standard input, gzip detected by its
magic bytes) into a table of validated columns, one entry per line; every bad
line is reported as ``FILE:LINE: reason`` through :class:`divaleval.errors.InputError`.
Tables can also be built from arrays in memory (``from_arrays``). Nothing here
imports the model (:mod:`divaleval.model`) or anything above it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

# What each name is imported from, when first asked for (PEP 562's module __getattr__ below): a reader
# that needs one module (compat/trec_eval needs source and lines) does not load them all, with Arrow.
if TYPE_CHECKING:
    from .aspects import AspectSpec, AspectTable, parse_aspect_specs, read_aspect
    from .iprob import IntentProbabilities, read_iprob
    from .qrels import QrelsTable, read_qrels
    from .runs import RunTable, read_run
    from .source import InputFile, expand_run_paths, read_input

_SOURCES = {
    **dict.fromkeys(["AspectSpec", "AspectTable", "parse_aspect_specs", "read_aspect"], "aspects"),
    **dict.fromkeys(["IntentProbabilities", "read_iprob"], "iprob"),
    **dict.fromkeys(["QrelsTable", "read_qrels"], "qrels"),
    **dict.fromkeys(["RunTable", "read_run"], "runs"),
    **dict.fromkeys(["InputFile", "expand_run_paths", "read_input"], "source"),
}


__getattr__ = lazy_names(__name__, _SOURCES)


__all__ = [
    "AspectSpec",
    "AspectTable",
    "parse_aspect_specs",
    "read_aspect",
    "InputFile",
    "expand_run_paths",
    "read_input",
    "QrelsTable",
    "read_qrels",
    "RunTable",
    "read_run",
    "IntentProbabilities",
    "read_iprob",
]
