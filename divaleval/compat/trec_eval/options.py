"""trec_eval's command line, read as its getopt does: short options (a value glued, ``-M100``, or
next), its long names, ``-m`` repeatable; then the qrels and one or more runs.

The version switch is this drop-in's own (``--trec-eval-version 9`` or ``10``,
default 10), read before trec_eval's options. Options of trec_eval that read
other formats or compute what is not reproduced here are refused by name, not
ignored: a run scored differently from what was asked would pass unnoticed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .versions import TREC_EVAL_10, VERSIONS, Version

USAGE = """Usage: divaleval trec_eval [--trec-eval-version 9|10] [-q] [-c] [-n] [-J] [-M num] [-l level]
                           [-N num] [-m measure[.params]]... rel_info_file results_file...
  The same standard output as trec_eval 10.0 (or 9.0.7 with --trec-eval-version 9).
  -q  per-topic values too          -c  average over every qrels topic (missing ones score 0)
  -n  no summary ('all') lines       -J  rank judged documents only
  -M  keep at most num documents a topic    -l  lowest grade that is relevant (default 1)
  -N  documents in the collection           -m  a measure, a measure set (official, all_trec)

Examples (from the root of the repository, on its test data):
  divaleval trec_eval -c tests/data/gdeval/edge000.qrels tests/data/gdeval/edge000.run
  divaleval trec_eval -c -q -m ndcg_cut.5,10 -m P.5 tests/data/gdeval/edge000.qrels tests/data/gdeval/edge000.run
  divaleval trec_eval --trec-eval-version 9 -m all_trec tests/data/gdeval/edge000.qrels tests/data/gdeval/edge000.run

Docs: docs/commands/trec_eval.md
"""

# trec_eval's options this drop-in does not reproduce, and why it refuses them.
REFUSED = {
    "-R": "other qrels formats (-R: prefs, qrels_jg...) are not supported",
    "-T": "other results formats (-T) are not supported",
    "-Z": "-Z (z-scores) is not supported",
    "-D": "-D (debug output) is not supported",
    "-o": "-o (the old output format) is not supported",
    "-z": "-z (z-score computations) is not supported",
}
LONG = {"--help": "-h", "--version": "-v", "--query_eval_wanted": "-q", "--complete_rel_info_wanted": "-c",
        "--nosummary": "-n", "--Judged_docs_only": "-J", "--Max_retrieved_per_topic": "-M",
        "--level_for_rel": "-l", "--Number_docs_in_coll": "-N", "--measure": "-m",
        "--Rel_info_format": "-R", "--Results_format": "-T", "--Zscore": "-Z", "--Debug_level": "-D",
        "--output_old_results_format": "-o"}
WITH_VALUE = set("MlNmRTZD")
FLAGS = set("qcnJhvoz")


class UsageError(Exception):
    """A command line trec_eval would refuse (or this drop-in does)."""


@dataclass
class Options:
    version: Version = TREC_EVAL_10
    per_topic: bool = False
    complete: bool = False
    summary: bool = True
    judged_only: bool = False
    max_retrieved: int | None = None
    relevance_level: int = 1
    collection_size: int | None = None
    measures: list[str] = field(default_factory=list)
    qrels: str = ""
    runs: list[str] = field(default_factory=list)
    help: bool = False


def _number(option: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{option} needs a whole number, not {text!r}") from None


def parse(argv: list[str]) -> Options:
    options, rest, k = Options(), [], 0
    while k < len(argv):
        arg = argv[k]
        k += 1
        if arg == "--trec-eval-version" or arg.startswith("--trec-eval-version="):
            if "=" in arg:
                value = arg.split("=", 1)[1]
            elif k < len(argv):
                value, k = argv[k], k + 1
            else:
                raise UsageError("--trec-eval-version needs 9 or 10")
            if value.split(".")[0] not in VERSIONS:
                raise UsageError(f"--trec-eval-version: {value!r} is not 9 or 10")
            options.version = VERSIONS[value.split(".")[0]]
            continue
        if arg == "--":
            rest.extend(argv[k:])
            break
        if arg.startswith("--"):
            name, _, value = arg.partition("=")
            if name not in LONG:
                raise UsageError(f"unknown option {name}")
            arg = LONG[name] + value
        elif not arg.startswith("-") or arg == "-":
            rest.append(arg)
            continue
        letters = arg[1:]
        while letters:
            letter, letters = letters[0], letters[1:]
            option = "-" + letter
            if letter in WITH_VALUE:
                if not letters:
                    if k >= len(argv):
                        raise UsageError(f"{option} needs a value")
                    letters, k = argv[k], k + 1
                value, letters = letters, ""
                _apply(options, letter, value)
            elif letter in FLAGS:
                _apply(options, letter, "")
            else:
                raise UsageError(f"unknown option {option}")
    if options.help:
        return options
    if len(rest) < 2:
        raise UsageError("a qrels file and at least one results file are needed")
    options.qrels, options.runs = rest[0], rest[1:]
    if not options.measures:
        options.measures = ["official"]
    return options


def _apply(options: Options, letter: str, value: str) -> None:
    option = "-" + letter
    if option in REFUSED:
        raise UsageError(REFUSED[option])
    if letter == "q":
        options.per_topic = True
    elif letter == "c":
        options.complete = True
    elif letter == "n":
        options.summary = False
    elif letter == "J":
        options.judged_only = True
    elif letter in "hv":
        options.help = True
    elif letter == "M":
        options.max_retrieved = _number(option, value)
    elif letter == "l":
        options.relevance_level = _number(option, value)
    elif letter == "N":
        options.collection_size = _number(option, value)
    elif letter == "m":
        options.measures.append(value)
