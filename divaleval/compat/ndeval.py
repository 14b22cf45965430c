"""``divaleval ndeval``: a drop-in replacement for ndeval 4.5.

Same options, same defaults (rank-column order), and the same standard output
byte for byte on every input ndeval accepts, quirks included: zero rows for run
topics missing from the qrels (left out of the mean), ``-nan`` where ndeval
prints it, its greedy ideal with the docno tie rule, values above 1 unclamped,
the risk-sensitive label. Input that ndeval rejects exits with status 1 and a
message naming the file and line.

Reading as ndeval's C does (facts of its source, reimplemented over arrays):

* a line ends at ``\\n``; its fields are separated by runs of C ``isspace``
  (space, tab, ``\\n``, ``\\v``, ``\\f``, ``\\r``: so CRLF files read as LF
  files); the first six fields of a run line (four of a qrels line) are read,
  later ones ignored; a line with fewer, blank lines included, is an error;
* topics, intents, judgments and ranks are natural numbers: ASCII digits
  only, refused once the digits read so far exceed 100000 (so 1000009 is the
  largest, and ``007`` is 7); a run topic may carry a prefix ending in ``-``
  (``wt09-1``); a run topic with neither a leading digit nor a ``-`` makes
  ndeval read past its end, into the next field when a single separator
  follows; judgments above 1 count as 1;
* the score is read only with ``-traditional``, as ``sscanf("%lf")`` does: the
  longest prefix glibc's scanner takes (``1_000`` is 1, ``0x10`` is 16,
  ``99.25abc`` is 99.25, ``inf`` and ``nan`` are numbers); a score it cannot
  read at all is left unset by ndeval (uninitialised memory): read as 0 here,
  with a warning. NaN scores are ordered as glibc's merge sort orders them with
  ndeval's comparator (NaN is neither above nor below anything);
* ``-alpha``, ``-beta``, ``-riskAlpha`` are read with ``sscanf("%lf")`` and
  ``-M`` with ``sscanf("%d")`` (a long, truncated to int): an unreadable value
  leaves the option as it was, and NaN passes the range checks;
* a repeated qrels line counts twice in MAP-IA's denominator; a repeated docno
  is looked for only within the ``-M`` depth.

Deliberate extensions (ndeval refuses these or hangs on them): gzip input, a
UTF-8 byte order mark at the start of a file, ``-`` for standard input, named
pipes and process substitution (every input is read once, as a stream). A
NUL byte, which makes ndeval drop lines or crash, is refused with its line.

Memory: a run is held as columns, never as one Python object per line (the
document ids as Arrow binary arrays, the numbers as int32), and is ranked and
scored in groups of whole topics.
"""
from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Iterator, TextIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import __version__
from ..engine import score_matrix
from ..errors import InputError, WarningSink
from ..io.qrels import QrelsTable
from ..io.runs import RunTable
from ..io.source import STDIN_NAME, STDIN_ONCE, InputFile, display_name, read_input
from ..io.table import Factor
from ..measures import REGISTRY, Measure
from ..memory import release_unused_memory
from ..model.qrels import Qrels, build_qrels
from ..output.formatting import c_fixed
from ..ranking import rank_run

PROGRAM = "ndeval"
VERSION = f"version 4.5 (divaleval {__version__}, ndeval 4.5 compatible)"
CUTOFFS = (5, 10, 20)
NUMBER_LIMIT = 100_000  # ndeval refuses a number once the digits read so far exceed this
VALUED_OPTIONS = ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha")

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

  Beyond ndeval: gzip files, a UTF-8 byte order mark, '-' for standard input,
  named pipes. A score -traditional cannot read is taken as 0, with a warning.
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


# -- numbers as C's sscanf reads them ----------------------------------------------

C_SPACE = b" \t\n\v\f\r"  # isspace() in the "C" locale (ndeval never sets another)
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")
# What strtod() takes from the start of a string (glibc, "C" locale).
_STRTOD = re.compile(
    rb"[+-]?(?:0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    rb"|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    rb"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])"
)
_SCANF_INT = re.compile(rb"[+-]?[0-9]+")
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1


def _as_bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else os.fsencode(text)


def scan_double(text: str | bytes) -> float | None:
    """The value glibc's ``sscanf(text, "%lf", &x)`` stores in x, or None when it stores nothing.

    The scanner takes characters while they can continue a number (digits, one
    point, an exponent letter after a digit and its sign; hex digits after
    ``0x``; ``inf``, ``infinity``, ``nan``), then strtod() converts the longest
    number those characters start with. It fails on no digit, on a bare ``0x``
    and on a word it began but could not finish (``na``, ``infin``).
    """
    raw = _as_bytes(text).lstrip(C_SPACE)
    end, size = 0, len(raw)
    signed = raw[:1] in (b"+", b"-")
    end += signed
    if end >= size:
        return None
    lead = raw[end:end + 1].lower()
    if lead == b"n":
        if raw[end:end + 3].lower() != b"nan":
            return None
        end += 3
    elif lead == b"i":
        if raw[end:end + 3].lower() != b"inf":
            return None
        end += 3
        if raw[end:end + 1].lower() == b"i":  # then it must be "infinity"
            if raw[end:end + 5].lower() != b"inity":
                return None
            end += 5
    else:
        end, hexa = _scan_digits(raw, end)
        if end == signed or (hexa and end == signed + 2):  # nothing, or a bare "0x"
            return None
    return _strtod(raw[:end])


def _scan_digits(raw: bytes, at: int) -> tuple[int, bool]:
    """Where glibc's %lf scanner stops reading digits, a point and an exponent from ``at``, and whether
    it read them as hexadecimal (after ``0x``)."""
    size = len(raw)
    hexa = got_digit = got_dot = got_exp = False
    if raw[at:at + 1] == b"0":
        at += 1
        if raw[at:at + 1] in (b"x", b"X"):
            hexa, at = True, at + 1
        else:
            got_digit = True
    exp_char = ord("p") if hexa else ord("e")
    while at < size:
        char = raw[at]
        if char in _DIGITS or (hexa and not got_exp and char in _HEX_DIGITS):
            got_digit = True
        elif got_exp and raw[at - 1] | 0x20 == exp_char and char in b"+-":
            pass
        elif got_digit and not got_exp and char | 0x20 == exp_char:
            got_exp = got_dot = True
        elif char == ord(".") and not got_dot:
            got_dot = True
        else:
            break
        at += 1
    return at, hexa


def _strtod(token: bytes) -> float | None:
    """strtod() of the characters sscanf took: the number they start with, None if none."""
    match = _STRTOD.match(token)
    if not match:
        return None
    number = match.group(0)
    negative = number[:1] == b"-"
    body = number.lstrip(b"+-").lower()
    if body.startswith(b"nan"):
        return math.copysign(math.nan, -1.0 if negative else 1.0)
    if body.startswith(b"inf"):
        return -math.inf if negative else math.inf
    if body.startswith(b"0x"):
        try:
            return float.fromhex(number.decode("ascii"))
        except OverflowError:
            return -math.inf if negative else math.inf
    return float(number)


def scan_int(text: str | bytes) -> int | None:
    """The value glibc's ``sscanf(text, "%d", &i)`` stores in i, or None when it stores nothing.

    glibc converts with strtol (saturating at the long range) and stores the
    low 32 bits: 4294967297 is 1, 2147483648 is negative.
    """
    match = _SCANF_INT.match(_as_bytes(text).lstrip(C_SPACE))
    if not match:
        return None
    value = min(max(int(match.group(0)), LONG_MIN), LONG_MAX)
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


# -- the command line ---------------------------------------------------------

def parse_command_line(args: list[str]) -> tuple[Options, str, str] | str:
    """Options and the two file names, or "help" / "version".

    Options come before the files, as ndeval reads them; an unreadable
    number leaves the value as it was (ndeval's sscanf), and NaN passes
    ndeval's range checks.
    """
    opts = Options()
    args = list(args)
    while len(args) != 2:
        head = args[0] if args else ""
        if head == "-version":
            return "version"
        if head == "-help":
            return "help"
        if head in VALUED_OPTIONS and len(args) < 4:
            raise NdevalUsage(f"option {head} needs a value, then the two files qrels run")
        if head in ("-alpha", "-beta"):
            value = scan_double(args[1])
            if value is not None:
                setattr(opts, head[1:], value)
            current = getattr(opts, head[1:])
            if current < 0.0 or current > 1.0:
                raise NdevalUsage(f"{head} must be in [0, 1]")
            del args[:2]
        elif head == "-M":
            value = scan_int(args[1])
            if value is not None:
                opts.depth = value
            if opts.depth <= 0:
                raise NdevalUsage("-M needs a depth from 1 to 2147483647")
            del args[:2]
        elif head == "-baseline":
            opts.baseline = args[1]
            del args[:2]
        elif head == "-riskAlpha":
            value = scan_double(args[1])
            if value is not None:
                opts.risk_alpha = value
            opts.risk_alpha_text = args[1]
            if opts.risk_alpha < 0.0:
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


# -- reading lines as ndeval does ------------------------------------------------------

UTF8_BOM = b"\xef\xbb\xbf"
BLOCK_BYTES = 1 << 23  # lines are split a block of about this size at a time
NATURAL_DIGITS = 24    # natural numbers longer than this (zeros in front) are read one by one
# Scores Arrow converts exactly as strtod does: plain decimals, exponents of at most four digits.
PLAIN_DECIMAL = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?$"


@dataclass
class Block:
    """Whole lines of an input split into fields: field j of line i is ``data[starts[i, j]:ends[i, j]]``.

    ``data`` always ends with a newline; the lines are numbered from
    ``first_line``. ``failure`` is the problem of the first line that has too
    few fields (the lines split are those before it).
    """

    data: np.ndarray
    first_line: int
    n_lines: int         # lines in the block (those split end at the failure, if any)
    starts: np.ndarray
    ends: np.ndarray
    failure: tuple[int, str] | None = None

    def __len__(self) -> int:
        return len(self.starts)

    def field(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        return self.starts[:, j], self.ends[:, j]

    def text(self, row: int, j: int) -> bytes:
        return self.data[self.starts[row, j]:self.ends[row, j]].tobytes()


def line_blocks(source: InputFile) -> Iterator[bytes]:
    """The bytes of ``source`` in blocks of whole lines, each ending with a newline.

    A UTF-8 byte order mark at the start is skipped; the last line may lack its newline.
    """
    pending, first = [], True
    with source.open() as handle:
        while True:
            chunk = handle.read(BLOCK_BYTES)
            if first:
                first = False
                if chunk.startswith(UTF8_BOM):
                    chunk = chunk[len(UTF8_BOM):]
            if not chunk:
                break
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                pending.append(chunk)
                continue
            yield b"".join([*pending, chunk[:cut]]) if pending else chunk[:cut]
            pending = [chunk[cut:]] if cut < len(chunk) else []
    if pending:
        yield b"".join(pending) + b"\n"


def split_lines(source: InputFile, width: int, what: str, layout: str) -> Iterator[Block]:
    """The lines of ``source`` split as ndeval splits them, a block at a time (see :func:`split_block`)."""
    first_line = 1
    for block in line_blocks(source):
        at = block.find(b"\0")
        if at >= 0:  # ndeval's C strings end there: it drops or mangles lines, or crashes
            raise InputError(source.name, first_line + block.count(b"\n", 0, at),
                             f"syntax error in {what} file: a NUL byte")
        lines = split_block(block, first_line, width, layout)
        yield lines
        first_line += lines.n_lines


def split_block(block: bytes, first_line: int, width: int, layout: str) -> Block:
    """Split whole lines on C isspace; keep the positions of each line's first ``width`` fields."""
    data = np.frombuffer(block, dtype=np.uint8)
    space = (data == ord(" ")) | (data - np.uint8(9) <= 4)  # \t \n \v \f \r are 9 to 13
    newline = np.flatnonzero(data == ord("\n"))
    change = np.empty(len(data), dtype=bool)  # a field starts or ends at each change
    change[0] = not space[0]
    np.not_equal(space[1:], space[:-1], out=change[1:])
    del space
    edges = np.flatnonzero(change)
    del change
    starts, ends = edges[0::2], edges[1::2]  # the block ends with a newline: every field ends
    per_line = np.diff(np.searchsorted(starts, newline), prepend=0)
    short = np.flatnonzero(per_line < width)
    lines, failure = len(newline), None
    if len(short):
        lines = int(short[0])
        found = int(per_line[lines])
        failure = (first_line + lines, "blank line" if not found else
                   f"{found} field{'s' if found > 1 else ''}, expected {width} ({layout})")
    index = (np.cumsum(per_line) - per_line)[:lines, None] + np.arange(width)
    return Block(data, first_line, len(newline), starts[index], ends[index], failure)


def natural_numbers(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """ndeval's naturalNumber() of each field ``data[start:end]``: its value, or -1.

    ASCII digits only, and refused once the digits read so far exceed 100000
    (so 1000009 is the largest value, with any number of zeros in front).
    """
    length = ends - starts
    value = np.zeros(len(starts), dtype=np.int64)
    ok = length > 0
    last = len(data) - 1
    for position in range(min(int(length.max(initial=0)), NATURAL_DIGITS)):
        more = length > position
        digit = data[np.minimum(starts + position, last)].astype(np.int64) - ord("0")
        ok &= ~more | ((digit >= 0) & (digit <= 9) & (value <= NUMBER_LIMIT))
        value = np.where(more & ok, value * 10 + digit, value)
    value[~ok] = -1
    for row in np.flatnonzero(ok & (length > NATURAL_DIGITS)):
        value[row] = natural_number(data[starts[row]:ends[row]].tobytes())
    return value


def natural_number(text: bytes) -> int:
    """naturalNumber() of one field."""
    value = 0
    if not text:
        return -1
    for char in text:
        if char not in _DIGITS or value > NUMBER_LIMIT:
            return -1
        value = 10 * value + char - ord("0")
    return value


def run_topics(block: Block) -> np.ndarray:
    """ndeval's parseTopic() of each line: a number, or the number after a prefix ending in '-'.

    A topic with neither a leading digit nor a '-' makes ndeval read past the
    end of the field: the number is then the next field if a single separator
    lies between them, and an error otherwise.
    """
    data = block.data
    starts, ends = block.field(0)
    lead = data[starts]
    numbers = np.full(len(block), -1, dtype=np.int64)
    plain = (lead >= ord("0")) & (lead <= ord("9"))
    numbers[plain] = natural_numbers(data, starts[plain], ends[plain])
    others = np.flatnonzero(~plain)
    if not len(others):
        return numbers
    dashes = np.flatnonzero(data == ord("-"))
    after = np.searchsorted(dashes, starts[others])
    dash = dashes[np.minimum(after, len(dashes) - 1)] if len(dashes) else np.zeros(len(others), dtype=np.int64)
    prefixed = (after < len(dashes)) & (dash < ends[others])
    rows = others[prefixed]
    numbers[rows] = natural_numbers(data, dash[prefixed] + 1, ends[rows])
    rows = others[~prefixed]
    next_starts, next_ends = block.field(1)
    rows = rows[next_starts[rows] == ends[rows] + 1]
    numbers[rows] = natural_numbers(data, next_starts[rows], next_ends[rows])
    return numbers


def binary_field(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The fields ``data[start:end]`` as an Arrow binary array.

    The block is seen, without a copy, as alternating values (what precedes a
    field, the field); Arrow's take gathers the fields.
    """
    large = len(data) >= 2**31  # a block holding a line longer than 2 GiB
    bounds = np.empty(2 * len(starts) + 1, dtype=np.int64 if large else np.int32)
    bounds[0] = 0
    bounds[1::2] = starts
    bounds[2::2] = ends
    spans = pa.Array.from_buffers(pa.large_binary() if large else pa.binary(), 2 * len(starts),
                                  [None, pa.py_buffer(bounds), pa.py_buffer(data)])
    return spans.take(pa.array(np.arange(1, 2 * len(starts), 2))).cast(pa.binary())


def scan_scores(texts: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(value, whether sscanf("%lf") could read it) of each score.

    Plain decimals are converted by Arrow (correctly rounded, as strtod); the
    rest one by one as glibc's scanner reads them.
    """
    values = np.zeros(len(texts))
    readable = np.ones(len(texts), dtype=bool)
    plain = pc.match_substring_regex(texts, PLAIN_DECIMAL)
    mask = pc.cast(plain, pa.uint8()).to_numpy().view(bool)
    if mask.any():
        values[mask] = pc.cast(pc.cast(pc.filter(texts, plain), pa.string()), pa.float64()).to_numpy()
    for row in np.flatnonzero(~mask):
        value = scan_double(texts[int(row)].as_py())
        if value is None:
            readable[row] = False
        else:
            values[row] = value
    return values, readable


def _shown(text: bytes) -> str:
    return repr(text.decode("utf-8", "backslashreplace"))


def _first_bad_line(source: InputFile, block: Block, what: str, checks: list) -> None:
    """Raise for the first line of ``block`` that fails a check (or has too few fields).

    checks: (values, field index, name, rule) with values -1 where the field fails.
    """
    bad = [(int(np.argmax(values < 0)), j, name, rule) for values, j, name, rule in checks if (values < 0).any()]
    if bad:
        row, j, name, rule = min(bad)
        raise InputError(source.name, block.first_line + row,
                         f"syntax error in {what} file: {name} {_shown(block.text(row, j))} {rule}")
    if block.failure is not None:
        line, reason = block.failure
        raise InputError(source.name, line, f"syntax error in {what} file: {reason}")


NATURAL_RULE = "is not a natural number (digits 0-9 only, at most 1000009)"
TOPIC_RULE = "is not a natural number (digits 0-9 only, at most 1000009), nor one after a prefix ending in '-'"
QRELS_LAYOUT = "topic intent docno judgment"
RUN_LAYOUT = "topic Q0 docno rank score runtag"


def read_qrels(path: str) -> QrelsTable:
    """Qrels as ndeval reads them: natural-number topics, intents and judgments."""
    source = read_input(path)  # opened once, read as a stream of blocks
    topics, intents, levels, docnos = [], [], [], []
    for lines in split_lines(source, 4, "qrel", QRELS_LAYOUT):
        numbers = [natural_numbers(lines.data, *lines.field(j)) for j in (0, 1, 3)]
        _first_bad_line(source, lines, "qrel", [(values, j, name, NATURAL_RULE) for values, j, name in
                                                zip(numbers, (0, 1, 3), ("topic", "intent", "judgment"))])
        topics.append(numbers[0])
        intents.append(numbers[1])
        levels.append(np.minimum(numbers[2], 1))  # binary assessment only
        docnos.append(binary_field(lines.data, *lines.field(2)))
    if not docnos:
        raise InputError(source.name, None, "qrel file is empty")
    encoded = pc.dictionary_encode(pa.concat_arrays(docnos))
    level = np.concatenate(levels)
    return QrelsTable(
        name=source.name,
        topic=number_factor(np.concatenate(topics)),
        intent=number_factor(np.concatenate(intents)),
        docno=Factor(encoded.indices.to_numpy().astype(np.int32), encoded.dictionary),
        level=level,
        line=np.arange(1, len(level) + 1, dtype=np.int64),
    )


def number_factor(numbers: np.ndarray) -> Factor:
    """Numbers as ids: "007" and "7" are the same topic to ndeval."""
    uniques, codes = np.unique(numbers, return_inverse=True)
    return Factor(codes.astype(np.int32), uniques.astype(str).astype(object))


@dataclass
class NdevalRun:
    """A run as ndeval holds it, in columns: one entry per line, in file order."""

    name: str
    runid: str            # the runtag of the first line (bytes kept through surrogateescape)
    topic: np.ndarray     # int32 topic numbers
    rank: np.ndarray      # int32 rank numbers
    score: np.ndarray | None  # float64, read only with -traditional
    docno: pa.ChunkedArray

    def __len__(self) -> int:
        return len(self.topic)


def read_run(path: str, traditional: bool, warn: WarningSink) -> NdevalRun:
    """A run as ndeval reads it (the score only matters with -traditional)."""
    source = read_input(path)
    runid = None
    topics, ranks, scores, docnos = [], [], [], []
    first_unreadable, n_unreadable = None, 0  # (line, text) of the first score sscanf cannot read, and how many
    for lines in split_lines(source, 6, "run", RUN_LAYOUT):
        topic = run_topics(lines)
        rank = natural_numbers(lines.data, *lines.field(3))
        _first_bad_line(source, lines, "run", [(topic, 0, "topic", TOPIC_RULE), (rank, 3, "rank", NATURAL_RULE)])
        if runid is None:
            runid = lines.text(0, 5).decode("utf-8", "surrogateescape")
        topics.append(topic.astype(np.int32))
        ranks.append(rank.astype(np.int32))
        docnos.append(binary_field(lines.data, *lines.field(2)))
        if traditional:
            score, readable = scan_scores(binary_field(lines.data, *lines.field(4)))
            scores.append(score)
            if not readable.all():
                if first_unreadable is None:
                    row = int(np.argmax(~readable))
                    first_unreadable = (lines.first_line + row, lines.text(row, 4))
                n_unreadable += int((~readable).sum())
        del lines
    if runid is None:
        raise InputError(source.name, None, "run file is empty")
    release_unused_memory()  # the blocks' temporaries
    if first_unreadable is not None:
        line, text = first_unreadable
        more = f" (and {n_unreadable - 1} more line{'s' if n_unreadable > 2 else ''})" if n_unreadable > 1 else ""
        warn(f"{source.name}:{line}: score {_shown(text)} is not a number sscanf can read{more}: "
             f"ndeval -traditional would order it by uninitialised memory; read as 0")
    columns = []
    for blocks in (topics, ranks, scores):  # one column at a time, its blocks freed as it is joined
        columns.append(np.concatenate(blocks) if blocks else None)
        blocks.clear()
    return NdevalRun(source.name, runid, *columns, pa.chunked_array(docnos, pa.binary()))


# -- ranking as ndeval does, a group of whole topics at a time ------------------------

GROUP_LINES = 1 << 18  # lines ranked and scored together (whole topics, so a large topic is one group)


def topic_groups(topic: np.ndarray) -> Iterator[np.ndarray]:
    """Line indices (0-based) of groups of whole topics, ascending topics, file order within a topic."""
    order = np.argsort(topic, kind="stable")
    if len(order) < 2**31:
        order = order.astype(np.int32)
    sorted_topic = topic[order]
    starts = np.flatnonzero(np.r_[True, sorted_topic[1:] != sorted_topic[:-1]])
    del sorted_topic
    group_of_topic = starts // GROUP_LINES
    bounds = starts[np.r_[True, group_of_topic[1:] != group_of_topic[:-1]]]
    for lo, hi in zip(bounds, np.r_[bounds[1:], len(order)]):
        yield order[lo:hi].astype(np.int64)


def take_rows(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """``column[rows]`` without copying the whole column (as ChunkedArray.take would)."""
    if len(rows) and rows[-1] - rows[0] == len(rows) - 1 and (np.diff(rows) == 1).all():
        return column.slice(int(rows[0]), len(rows))
    bounds = np.cumsum([0] + [len(chunk) for chunk in column.chunks])
    chunk_of = np.searchsorted(bounds, rows, side="right") - 1
    by_chunk = np.argsort(chunk_of, kind="stable")
    pieces, at = [], 0
    for c, count in zip(*np.unique(chunk_of[by_chunk], return_counts=True)):
        local = rows[by_chunk[at:at + count]] - bounds[c]
        pieces.append(column.chunk(int(c)).take(pa.array(local)))
        at += count
    gathered = pa.concat_arrays(pieces) if pieces else pa.array([], pa.binary())
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[by_chunk] = np.arange(len(rows))
    return gathered.take(pa.array(inverse))


def traditional_ranks(rows: np.ndarray, topic: np.ndarray, score: np.ndarray, docnos: list[bytes],
                      n_lines: int) -> np.ndarray:
    """Ranks of ndeval -traditional for lines (file positions ``rows``, grouped by topic) when a score is NaN.

    ndeval sorts all lines with qsort(); glibc 2.36's qsort is a stable top-down
    merge sort (halves of n // 2), and ndeval's comparator orders by topic,
    score descending, then docno descending: with a NaN score neither score
    test holds, so the docno decides, and the order is not transitive. Since
    topics compare first, the order within a topic is that of the same merge
    tree restricted to its lines; any subtree whose lines are all NaN or all
    numbers is an ordinary stable sort, the rest is merged as glibc merges.
    """
    ranks = np.zeros(len(rows), dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], len(rows)]):
        items = [(int(rows[k]), float(score[k]), docnos[k], k) for k in range(lo, hi)]
        ordered = _merge_sort(items, 0, n_lines)
        for position, item in enumerate(ordered, start=1):
            ranks[item[3]] = position
    return ranks


def _merge_sort(items: list, lo: int, hi: int) -> list:
    """glibc's msort of the lines at positions [lo, hi), restricted to ``items`` (ascending positions)."""
    if len(items) <= 1:
        return items
    nans = sum(math.isnan(item[1]) for item in items)
    if nans in (0, len(items)):  # a consistent order: stable by docno descending, then (numbers) by score
        ordered = sorted(items, key=lambda item: item[2], reverse=True)
        return ordered if nans else sorted(ordered, key=lambda item: -item[1])
    middle = lo + (hi - lo) // 2
    split = next((k for k, item in enumerate(items) if item[0] >= middle), len(items))
    left, right = _merge_sort(items[:split], lo, middle), _merge_sort(items[split:], middle, hi)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if _compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _compare(a: tuple, b: tuple) -> int:
    """ndeval's resultCompareByScore within a topic: score descending, then docno descending (strcmp)."""
    if a[1] < b[1]:
        return 1
    if a[1] > b[1]:
        return -1
    return (b[2] > a[2]) - (b[2] < a[2])


def group_table(run: NdevalRun, rows: np.ndarray, traditional: bool) -> tuple[RunTable, str]:
    """The lines ``rows`` of a run as a RunTable, and the order rule that ranks them as ndeval does."""
    topic = run.topic[rows]
    docno = take_rows(run.docno, rows)
    order, rank = "rank", run.rank[rows].astype(np.int64)
    score = np.zeros(len(rows))
    if traditional:
        score = run.score[rows]
        order = "score"
        if np.isnan(score).any():
            docnos = docno.to_pylist()
            rank = traditional_ranks(rows, topic, score, docnos, len(run))
            order = "rank"
    table = RunTable(run.name, run.runid, number_factor(topic), docno, rank, score, rows + 1)
    return table, order


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
ALPHA_COLUMNS = slice(0, 14)  # every column but MAP-IA, P-IA and strec depends on alpha
BETA_COLUMNS = slice(12, 14)  # NRBP, nNRBP
C_NAN = math.copysign(math.nan, -1.0)  # what 0.0 / 0.0 gives in C on x86 (printed -nan)


@dataclass
class ScoredRun:
    runid: str
    topics: list[int]        # every run topic, ascending
    matrix: np.ndarray       # (topics, 21); zero rows for topics the qrels lack
    in_qrels: int            # run topics that the qrels have


def score(qrels: Qrels, path: str, opts: Options, measures: list[Measure], warn: WarningSink) -> ScoredRun:
    run = read_run(path, opts.traditional, warn)
    rows: dict[int, np.ndarray] = {}
    in_qrels = 0
    judged_topics = qrels.rel_count.sum(axis=1) > 0
    for lines in topic_groups(run.topic):
        table, order = group_table(run, lines, opts.traditional)
        ranked = rank_run(table, qrels, order=order, depth=opts.depth or None, duplicates_within_depth=True,
                          advice=False)
        known = score_matrix(qrels, ranked, measures, ranked.topics)
        known[np.isnan(known)] = C_NAN  # the only NaN ndeval makes with a numeric alpha and beta is 0/0
        for values, t in zip(known, ranked.topics):
            if judged_topics[t]:
                _mark_nan_parameters(values, opts)
            rows[int(qrels.topic_ids[t])] = values
        for topic in ranked.unknown_topics:
            rows[int(topic)] = np.zeros(len(measures))
        in_qrels += len(ranked.topics)
        del table, ranked
        release_unused_memory()  # the group's hash tables and temporaries
    topics = sorted(rows)
    matrix = np.array([rows[t] for t in topics]).reshape(len(topics), len(measures))
    return ScoredRun(run.runid, topics, matrix, in_qrels)


def _mark_nan_parameters(values: np.ndarray, opts: Options) -> None:
    """A NaN alpha (or beta) makes every value that depends on it NaN, of its sign, in a topic with relevant
    documents (one without stops before using them)."""
    if math.isnan(opts.beta):
        values[BETA_COLUMNS] = opts.beta
    if math.isnan(opts.alpha):
        values[ALPHA_COLUMNS] = opts.alpha


def risk_based(run: float, base: float, risk_alpha: float, alpha_first: bool = True) -> float:
    """ndeval's RiskBased(x, b, a): x - b where x >= b, else (1 + a)(x - b); NaN compares false, as in C.

    Where both 1 + a and x - b are NaN, the product is the NaN of one of them:
    ndeval prints a's (``alpha_first``) and adds x - b's to the mean (builds
    differ here: this is what the -O0 build does for every value and what
    both builds do for the means).
    """
    if run >= base:
        return run - base
    difference = run - base  # a NaN operand passes through, its sign kept
    if math.isnan(risk_alpha) and (alpha_first or not math.isnan(difference)):
        return risk_alpha
    return (risk_alpha + 1) * difference


def c_mean(matrix: np.ndarray, divisor: int) -> np.ndarray:
    """Column sums in row order, as ndeval adds them, divided by ``divisor``.

    A sum meeting NaNs is the last NaN added (its sign printed as ndeval prints it).
    """
    totals = np.cumsum(matrix, axis=0)[-1] if len(matrix) else np.zeros(matrix.shape[1])
    for j in np.flatnonzero(np.isnan(matrix).any(axis=0)):
        totals[j] = matrix[np.flatnonzero(np.isnan(matrix[:, j]))[-1], j]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = totals / divisor
    mean[np.isnan(mean) & ~np.isnan(totals)] = C_NAN  # 0 / 0
    return mean


def c_number(value: float) -> str:
    """printf("%.6f") of a value, NaN with its sign as glibc prints it."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return c_fixed(value)


def csv_text(qrels: Qrels, run: ScoredRun, baseline: ScoredRun | None, opts: Options) -> str:
    """ndeval's CSV: a row per topic, then the mean (over the run's topics in the qrels, or with -c all of them)."""
    divisor = qrels.n_topics if opts.complete else run.in_qrels
    if baseline is None:
        label, base = run.runid, ScoredRun(run.runid, [], np.zeros((0, len(COLUMNS))), 0)
    else:
        label, base = f"{run.runid} (rel to. {baseline.runid}; rs=1+a; a={opts.risk_alpha_text})", baseline
    topics, printed, added = _risk_rows(run, base, opts)
    if baseline is not None:
        divisor = max(divisor, len(topics))
    lines = [",".join(["runid", "topic", *COLUMNS])]
    lines += [",".join([label, str(topic), *map(c_number, values)]) for topic, values in zip(topics, printed)]
    lines.append(",".join([label, "amean", *map(c_number, c_mean(added, divisor))]))
    return "\n".join(lines) + "\n"


def _risk_rows(run: ScoredRun, baseline: ScoredRun, opts: Options) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Topics of the run (and, with -c, of the baseline), with RiskBased(run, baseline) values as printed
    and as added to the mean (they differ only in the sign of some NaN). Without a baseline, only NaN
    values can change (their sign): the rest are computed with numpy."""
    zeros = np.zeros(len(COLUMNS))
    run_rows = dict(zip(run.topics, run.matrix))
    base_rows = dict(zip(baseline.topics, baseline.matrix))
    topics = sorted(set(run.topics) | (set(baseline.topics) if opts.complete else set()))
    printed = np.array([run_rows.get(t, zeros) for t in topics]).reshape(len(topics), len(COLUMNS))
    added = printed.copy()
    scalar = np.ones(printed.shape, dtype=bool) if baseline.topics else np.isnan(printed)
    for row, col in zip(*np.nonzero(scalar)):
        x, b = float(printed[row, col]), float(base_rows.get(topics[row], zeros)[col])
        printed[row, col] = risk_based(x, b, opts.risk_alpha)
        added[row, col] = risk_based(x, b, opts.risk_alpha, alpha_first=False)
    return topics, printed, added


def write_csv(out: TextIO, qrels: Qrels, run: ScoredRun, baseline: ScoredRun | None, opts: Options) -> None:
    """The CSV, with the runids' bytes as they were in the run files."""
    text = csv_text(qrels, run, baseline, opts)
    raw = getattr(out, "buffer", None)
    if raw is None:
        out.write(text)
        return
    out.flush()
    raw.write(text.encode("utf-8", "surrogateescape"))
    raw.flush()


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
    if [qrels_path, run_path, opts.baseline].count(STDIN_NAME) > 1:
        err.write(f"{PROGRAM}: {display_name(STDIN_NAME)}: {STDIN_ONCE}\n")
        return 1

    def warn(message: str) -> None:
        err.write(f"{PROGRAM}: warning: {message}\n")

    try:
        qrels = build_qrels(read_qrels(qrels_path), duplicates="last")
        # A NaN alpha or beta is bound as 0.5 and its columns set to NaN afterwards (see _mark_nan_parameters).
        measures = ndeval_measures(0.5 if math.isnan(opts.alpha) else opts.alpha,
                                   0.5 if math.isnan(opts.beta) else opts.beta)
        run = score(qrels, run_path, opts, measures, warn)
        baseline = score(qrels, opts.baseline, opts, measures, warn) if opts.baseline is not None else None
    except InputError as exc:
        err.write(f"{PROGRAM}: {exc}\n")
        return 1
    write_csv(out, qrels, run, baseline, opts)
    return 0
