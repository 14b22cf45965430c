"""Readers: intentwise qrels, intent probabilities, TREC runs, multi-aspect judgments.

Each reader turns a file (a path, ``-`` for standard input, gzip detected by its
magic bytes) into a table of validated columns, one entry per line; every bad
line is reported as ``FILE:LINE: reason`` through :class:`divaleval.errors.InputError`.
Tables can also be built from arrays in memory (``from_arrays``). Nothing here
imports the model (:mod:`divaleval.model`) or anything above it.
"""
from .aspects import AspectSpec, AspectTable, parse_aspect_specs, read_aspect
from .iprob import IntentProbabilities, read_iprob
from .qrels import QrelsTable, read_qrels
from .runs import RunTable, read_run
from .source import InputFile, expand_run_paths, read_input

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
