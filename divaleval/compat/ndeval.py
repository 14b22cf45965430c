"""``divaleval ndeval``: a drop-in replacement for ndeval 4.5.

Same options, same defaults (rank-column order), and the same standard output
byte for byte on every input ndeval accepts, quirks included: zero rows for run
topics missing from the qrels (left out of the mean), ``-nan`` where ndeval
prints it, its greedy ideal with the docno tie rule, values above 1 unclamped,
the risk-sensitive label. Input that ndeval rejects exits with status 1 and a
message naming the file and line.

What ndeval reads differently from the native command, all handled here:
topics and intents are natural numbers (a run topic may carry a prefix ending
in ``-``, such as ``wt09-1``); judgments are natural numbers, > 1 counting as
1; a blank line is an error; fields past the sixth (fourth in qrels) are
ignored; a repeated qrels line counts twice in MAP-IA's denominator; the score
is read only with ``-traditional``; a repeated docno is looked for only within
the ``-M`` depth.
"""
from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from .. import __version__
from ..aggregate import topic_mean
from ..engine import score_matrix
from ..errors import InputError
from ..io.qrels import QrelsTable
from ..io.runs import RunTable
from ..io.source import read_input
from ..io.table import STR, TEXT, Columns, Factor, read_columns
from ..measures import REGISTRY, Measure
from ..model.qrels import Qrels, build_qrels
from ..output.formatting import c_fixed
from ..ranking import rank_run

PROGRAM = "ndeval"
VERSION = f"version 4.5 (divaleval {__version__}, ndeval 4.5 compatible)"
CUTOFFS = (5, 10, 20)
NUMBER_LIMIT = 100_000  # ndeval refuses a number once the digits read so far exceed this

HELP = """\
divaleval ndeval [options] qrels run
  A drop-in replacement for ndeval 4.5 (TREC Web Track diversity evaluation):
  the same options and the same CSV on standard output.

  options (before the two file names):
    -alpha A          redundancy penalty of alpha-nDCG, ERR-IA and NRBP, in [0, 1] (default 0.5)
    -beta B           patience of NRBP, in [0, 1] (default 0.5)
    -traditional      order each topic by score, ties by docno descending
                      (default: by the rank column)
    -c                average over every topic of the qrels
    -M D              evaluate only the first D documents of each topic
    -baseline FILE    print risk-sensitive differences from this baseline run
    -riskAlpha R      weight downside differences by 1+R (R >= 0, default 0)
    -version, -help

  columns: ERR-IA@k, nERR-IA@k, alpha-DCG@k, alpha-nDCG@k, P-IA@k, strec@k
  (k = 5, 10, 20), NRBP, nNRBP, MAP-IA. The native command, divaleval --help,
  computes them at any cutoff and reads runs in bulk.
"""


class NdevalUsage(Exception):
    """A command line ndeval would refuse."""


@dataclass
class Options:
    alpha: float = 0.5
    beta: float = 0.5
    traditional: bool = False
    depth: int = 0
    complete: bool = False
    baseline: str | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"


# -- the command line ---------------------------------------------------------

_DOUBLE = re.compile(
    r"\s*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\(\w*\))?))",
    re.IGNORECASE,
)
_INT = re.compile(r"\s*([+-]?\d+)")


def scan_double(text: str) -> float | None:
    """The value C's ``sscanf(text, "%lf")`` reads (a prefix), or None."""
    match = _DOUBLE.match(text)
    if not match:
        return None
    token = match.group(1)
    if "x" in token.lower() and not token.lower().lstrip("+-").startswith(("inf", "nan")):
        return float.fromhex(token)
    return float(re.sub(r"\(\w*\)$", "", token))


def scan_int(text: str) -> int | None:
    match = _INT.match(text)
    return int(match.group(1)) if match else None


def parse_command_line(args: list[str]) -> tuple[Options, str, str] | str:
    """Options and the two file names, or "help" / "version".

    Options come before the files, as ndeval reads them; an unreadable
    number leaves the value as it was (ndeval's sscanf).
    """
    opts = Options()
    args = list(args)
    while len(args) != 2:
        head = args[0] if args else ""
        if head == "-version":
            return "version"
        if head == "-help":
            return "help"
        if len(args) >= 4 and head in ("-alpha", "-beta"):
            value = scan_double(args[1])
            if value is not None:
                setattr(opts, head[1:], value)
            current = getattr(opts, head[1:])
            if not 0.0 <= current <= 1.0:
                raise NdevalUsage(f"{head} must be in [0, 1]")
            del args[:2]
        elif len(args) >= 4 and head == "-M":
            value = scan_int(args[1])
            if value is not None:
                opts.depth = value
            if opts.depth <= 0:
                raise NdevalUsage("-M needs a depth >= 1")
            del args[:2]
        elif len(args) >= 4 and head == "-baseline":
            opts.baseline = args[1]
            del args[:2]
        elif len(args) >= 4 and head == "-riskAlpha":
            value = scan_double(args[1])
            if value is not None:
                opts.risk_alpha = value
            opts.risk_alpha_text = args[1]
            if opts.risk_alpha < 0.0 or math.isnan(opts.risk_alpha):
                raise NdevalUsage("-riskAlpha must be >= 0")
            del args[:2]
        elif len(args) >= 3 and head == "-traditional":
            opts.traditional = True
            del args[:1]
        elif len(args) >= 3 and head.startswith("-"):
            for flag in head[1:]:
                if flag == "c":
                    opts.complete = True
                elif flag != "a":  # -a (all measures) is accepted and changes nothing
                    raise NdevalUsage(f"unknown option {head}")
            del args[:1]
        else:
            raise NdevalUsage("expected options, then exactly two files: qrels run")
    return opts, args[0], args[1]


# -- reading as ndeval does ------------------------------------------------------

def natural_numbers(values: np.ndarray) -> np.ndarray:
    """ndeval's naturalNumber() of each string: its value, or -1.

    Only the digits 0-9; the number is refused once the digits read so far
    exceed 100000 (so 1000009 is the largest accepted).
    """
    try:
        encoded = np.asarray(values, dtype=object).astype("S")
    except UnicodeEncodeError:
        return np.array([_natural_number(v) for v in values], dtype=np.int64)
    if encoded.dtype.itemsize == 0 or not len(encoded):
        return np.full(len(values), -1, dtype=np.int64)
    chars = encoded.view(np.uint8).reshape(len(encoded), encoded.dtype.itemsize)
    present = chars != 0
    digits = (chars >= ord("0")) & (chars <= ord("9"))
    ok = (digits | ~present).all(axis=1) & present[:, 0]
    value = np.zeros(len(encoded), dtype=np.int64)
    for j in range(chars.shape[1]):
        more = present[:, j]
        ok &= ~(more & (value > NUMBER_LIMIT))
        value = np.where(more & ok, value * 10 + (chars[:, j].astype(np.int64) - ord("0")), value)
    return np.where(ok, value, -1)


def _natural_number(text: str) -> int:
    value = 0
    if not text:
        return -1
    for char in text:
        if not "0" <= char <= "9":
            return -1
        if value > NUMBER_LIMIT:
            return -1
        value = 10 * value + ord(char) - ord("0")
    return value


def number_factor(numbers: np.ndarray) -> Factor:
    """Numbers as ids: "007" and "7" are the same topic to ndeval."""
    uniques, codes = np.unique(numbers, return_inverse=True)
    return Factor(codes.astype(np.int64), uniques.astype(str).astype(object))


def _syntax_error(columns: Columns, row: int, what: str, reason: str) -> InputError:
    return columns.error(row, f"syntax error in {what} file: {reason}")


def _split(path: str, kinds: list[str], what: str, layout: str) -> Columns:
    source = read_input(path)
    if not source.head():
        raise InputError(source.name, None, f"{what} file is empty")
    try:
        return read_columns(source, kinds, names=[f"field {j + 1}" for j in range(len(kinds))],
                            extra_fields="ignore", blank_lines="error", layout=layout)
    except InputError as exc:
        raise InputError(exc.source, exc.line, f"syntax error in {what} file: {exc.reason}") from None


def _require(columns: Columns, numbers: np.ndarray, j: int, what: str, field: str) -> None:
    bad = numbers < 0
    if bad.any():
        row = int(np.argmax(bad))
        raise _syntax_error(columns, row, what,
                            f"{field} {columns.fields[j][row]!r} is not a natural number (0-9 only, at most 1000009)")


def read_qrels(path: str) -> QrelsTable:
    """Qrels as ndeval reads them: natural-number topics, intents and judgments."""
    columns = _split(path, [STR] * 4, "qrel", "topic intent docno judgment")
    topic, intent, docno, judgment = columns.fields
    numbers = []
    for j, field in ((0, "topic"), (1, "intent"), (3, "judgment")):
        parsed = natural_numbers(columns.fields[j])
        _require(columns, parsed, j, "qrel", field)
        numbers.append(parsed)
    topic_no, intent_no, level = numbers
    return QrelsTable(
        name=columns.source.name,
        topic=number_factor(topic_no),
        intent=number_factor(intent_no),
        docno=Factor.of(docno),
        level=np.minimum(level, 1),  # binary assessment only
        line=columns.lines,
    )


def run_topics(columns: Columns) -> np.ndarray:
    """ndeval's parseTopic(): a number, or the number after a prefix ending in '-'.

    A topic with neither a leading digit nor a '-' makes ndeval read past the
    end of the field: the number is then the next field if a single blank
    separates them, and a syntax error otherwise.
    """
    topics = columns.fields[0]
    numbers = natural_numbers(topics)
    leading_digit = np.array([t[:1].isdigit() and t[:1].isascii() for t in topics], dtype=bool)
    for row in np.flatnonzero(~leading_digit):
        text = topics[row]
        if "-" in text:
            numbers[row] = _natural_number(text[text.index("-") + 1:])
        else:
            line = columns.line_text(int(columns.lines[row]))
            after = len(line) - len(line.lstrip()) + len(text) + 1
            follows = after < len(line) and not line[after].isspace()
            numbers[row] = _natural_number(columns.fields[1][row]) if follows else -1
    return numbers


def read_run(path: str, traditional: bool) -> RunTable:
    """A run as ndeval reads it (the score only matters with -traditional)."""
    columns = _split(path, [STR, STR, TEXT, STR, STR, STR], "run", "topic Q0 docno rank score runtag")
    topic = run_topics(columns)
    _require(columns, topic, 0, "run", "topic")
    rank = natural_numbers(columns.fields[3])
    _require(columns, rank, 3, "run", "rank")
    score = np.zeros(len(columns))
    if traditional:
        for row, text in enumerate(columns.fields[4]):
            value = scan_double(text)
            if value is None or math.isnan(value):
                raise columns.error(row, f"score {text!r} is not a number, so -traditional cannot order by it")
            score[row] = value
    return RunTable(
        name=columns.source.name,
        runid=str(columns.fields[5][0]),
        topic=number_factor(topic),
        docno=columns.fields[2],
        rank=rank,
        score=score,
        line=columns.lines,
    )


# -- scoring and output ------------------------------------------------------------

def ndeval_measures(alpha: float, beta: float) -> list[Measure]:
    """ndeval's 21 columns, in its order, with its alpha and beta."""
    def bind(name: str, cutoff: int | None = None, **params: float) -> Measure:
        return REGISTRY[name].bind(params, cutoff)

    measures = []
    for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG"):
        measures += [bind(name, k, alpha=alpha) for k in CUTOFFS]
    measures += [bind("NRBP", alpha=alpha, beta=beta), bind("nNRBP", alpha=alpha, beta=beta), bind("MAP-IA")]
    for name in ("P-IA", "strec"):
        measures += [bind(name, k) for k in CUTOFFS]
    return measures


COLUMNS = [
    f"{name}@{k}" for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in CUTOFFS
] + ["NRBP", "nNRBP", "MAP-IA"] + [f"{name}@{k}" for name in ("P-IA", "strec") for k in CUTOFFS]


@dataclass
class ScoredRun:
    runid: str
    topics: list[int]        # every run topic, ascending
    matrix: np.ndarray       # (topics, 21); zero rows for topics the qrels lack
    in_qrels: int            # run topics that the qrels have


def score(qrels: Qrels, path: str, opts: Options, measures: list[Measure]) -> ScoredRun:
    run = read_run(path, opts.traditional)
    ranked = rank_run(
        run, qrels,
        order="score" if opts.traditional else "rank",
        depth=opts.depth or None,
        duplicates_within_depth=True,
    )
    known = score_matrix(qrels, ranked, measures, ranked.topics)
    rows = {int(qrels.topic_ids[t]): known[j] for j, t in enumerate(ranked.topics)}
    for topic in ranked.unknown_topics:
        rows[int(topic)] = np.zeros(len(measures))
    topics = sorted(rows)
    matrix = np.array([rows[t] for t in topics]).reshape(len(topics), len(measures))
    return ScoredRun(run.runid, topics, matrix, len(ranked.topics))


def risk_based(run: np.ndarray, base: np.ndarray, risk_alpha: float) -> np.ndarray:
    """x - b where x >= b, else (1 + a)(x - b) (NaN compares false, as in C)."""
    with np.errstate(invalid="ignore"):
        return np.where(run >= base, run - base, (risk_alpha + 1) * (run - base))


def write_csv(out: TextIO, qrels: Qrels, run: ScoredRun, baseline: ScoredRun | None, opts: Options) -> None:
    out.write(",".join(["runid", "topic", *COLUMNS]) + "\n")
    divisor = qrels.n_topics if opts.complete else run.in_qrels
    if baseline is None:
        label, rows = run.runid, list(zip(run.topics, run.matrix))
    else:
        label = f"{run.runid} (rel to. {baseline.runid}; rs=1+a; a={opts.risk_alpha_text})"
        rows = _risk_rows(run, baseline, opts)
        divisor = max(divisor, len(rows))
    for topic, values in rows:
        out.write(",".join([label, str(topic), *(c_fixed(v) for v in values)]) + "\n")
    matrix = np.array([values for _, values in rows]).reshape(len(rows), len(COLUMNS))
    mean = topic_mean(matrix, divisor)
    out.write(",".join([label, "amean", *(c_fixed(v) for v in mean)]) + "\n")


def _risk_rows(run: ScoredRun, baseline: ScoredRun, opts: Options) -> list[tuple[int, np.ndarray]]:
    """Topics of the run (and, with -c, of the baseline), with risk-sensitive differences."""
    zeros = np.zeros(len(COLUMNS))
    run_rows = dict(zip(run.topics, run.matrix))
    base_rows = dict(zip(baseline.topics, baseline.matrix))
    topics = set(run.topics) | (set(baseline.topics) if opts.complete else set())
    return [
        (t, risk_based(run_rows.get(t, zeros), base_rows.get(t, zeros), opts.risk_alpha))
        for t in sorted(topics)
    ]


def main(args: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ndeval's command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        parsed = parse_command_line(args)
    except NdevalUsage as exc:
        err.write(f"{PROGRAM}: {exc}\n{PROGRAM}: usage: divaleval ndeval [options] qrels run   "
                  f"(-help for the options)\n")
        return 1
    if parsed == "version":
        out.write(f"{PROGRAM}: {VERSION}\n")
        return 0
    if parsed == "help":
        out.write(HELP)
        return 0
    opts, qrels_path, run_path = parsed
    try:
        qrels = build_qrels(read_qrels(qrels_path), duplicates="last")
        measures = ndeval_measures(opts.alpha, opts.beta)
        run = score(qrels, run_path, opts, measures)
        baseline = score(qrels, opts.baseline, opts, measures) if opts.baseline is not None else None
    except InputError as exc:
        err.write(f"{PROGRAM}: {exc}\n")
        return 1
    write_csv(out, qrels, run, baseline, opts)
    return 0
