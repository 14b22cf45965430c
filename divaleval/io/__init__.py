"""Readers: intentwise qrels, intent probabilities and TREC runs.

Each reader turns a file (a path, ``-`` for standard input, gzip detected by its
magic bytes) into validated columns; every bad line is reported as
``FILE:LINE: reason`` through :class:`divaleval.errors.InputError`.
"""
from .source import InputFile, expand_run_paths, read_input
from .qrels import QrelsTable, read_qrels
from .runs import RunTable, read_run
from .iprob import IntentProbabilities, read_iprob

__all__ = [
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
