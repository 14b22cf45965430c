"""ndeval's command line: its options, read as its C reads them (``sscanf`` emulated for numbers)."""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from ... import __version__
from ...io.lines import C_SPACE

PROGRAM = "ndeval"
VERSION = f"version 4.5 (divaleval {__version__}, ndeval 4.5 compatible)"
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

  Examples (from the root of the repository, on ndeval's own examples):
    divaleval ndeval tests/data/ndeval/examples/qrels.txt tests/data/ndeval/examples/runA.txt
    divaleval ndeval -c -traditional -M 10 tests/data/ndeval/examples/qrels.txt tests/data/ndeval/examples/runB.txt
    divaleval ndeval -alpha 0.8 -beta 0.9 tests/data/ndeval/examples/qrels.txt tests/data/ndeval/examples/runA.txt
    divaleval ndeval -baseline tests/data/ndeval/examples/runB.txt -riskAlpha 1 tests/data/ndeval/examples/qrels.txt tests/data/ndeval/examples/runA.txt

  Docs: docs/commands/ndeval.md
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
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
DIGITS = frozenset(b"0123456789")
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
        if char in DIGITS or (hexa and not got_exp and char in _HEX_DIGITS):
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


