"""gdeval.pl's command line, read as its Perl reads it: options before the files, numbers as Perl
turns strings into numbers (:func:`perl_number`), and the strings it prints back as it prints them."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ... import __version__

PROGRAM = "gdeval"
VERSION = f"version 1.3 (divaleval {__version__}, gdeval.pl 1.3 compatible)"
DEFAULT_DEPTH = 20
MAX_GRADE = 4  # the highest grade a qrels line may give, and ERR's (gdeval.pl's constant)

HELP = """\
divaleval gdeval [options] qrels run...
  A drop-in replacement for gdeval.pl 1.3 (TREC Web Track ad hoc evaluation):
  the same options and the same CSV on standard output (nDCG@k and ERR@k a topic,
  then their mean).

  options (before the file names):
    -c                average over every topic of the qrels with a relevant document
                      (default: over those the run has)
    -k K              evaluate the first K documents of each topic (K >= 1, default 20)
    -baseline FILE    print risk-sensitive differences from this baseline run
    -riskAlpha R      weight downside differences by 1+R (R >= 0, default 0)
    -help, -version (first)

  Beyond gdeval.pl: several runs in one call (the qrels read once; the output is
  that of one call a run, one after the other, the options applying to each),
  gzip files, and '-' for standard input.

Examples (from the root of the repository, on its test data):
  divaleval gdeval tests/data/gdeval/qrels.txt tests/data/gdeval/run.txt
  divaleval gdeval -k 10 -c tests/data/gdeval/edge000.qrels tests/data/gdeval/edge000.run
  divaleval gdeval -baseline tests/data/gdeval/baseline-carry.txt -riskAlpha 1 tests/data/gdeval/qrels-carry.txt tests/data/gdeval/run-carry.txt
  divaleval gdeval -c tests/data/gdeval/qrels.txt tests/data/gdeval/run.txt tests/data/gdeval/run-b.txt

Docs: docs/commands/gdeval.md
"""


OPTIONS = ("-k", "-baseline", "-riskAlpha")  # the options that take a value


class GdevalUsage(Exception):
    """A command line gdeval.pl would refuse (it prints its usage and stops)."""


Number = int | float

# Perl's reading of a string as a number (grok_number, then strtod for what is not an integer):
# leading white space, a sign, decimal digits with a point and an exponent, or Inf/Infinity/NaN in any
# case; the longest such prefix counts and the rest is ignored (with a warning); nothing numeric is 0.
_PERL_NUMBER = re.compile(
    rb"[ \t\n\r\f\v]*([+-]?)(?:(infinity|inf)|(nan)|([0-9]+)(?![.eE0-9])"
    rb"|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))",
    re.IGNORECASE)
IV_MIN, UV_MAX = -(1 << 63), (1 << 64) - 1


def perl_number(text: str | bytes) -> Number:
    """The number Perl makes of ``text`` in numeric context: an integer where the string is one within
    its 64-bit integer range (compared exactly, as Perl compares them), else a double."""
    raw = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    match = _PERL_NUMBER.match(raw)
    if match is None:
        return 0
    sign, infinity, nan, integer, decimal = match.groups()
    negative = sign == b"-"
    if infinity:
        return -math.inf if negative else math.inf
    if nan:
        return math.nan
    if integer is not None:
        value = -int(integer) if negative else int(integer)
        if IV_MIN <= value <= UV_MAX:
            return value
        return float(value)
    value = float(decimal)
    return -value if negative else value


def perl_int(text: str) -> Number:
    """Perl's ``int()`` of a string: its number truncated toward zero (Inf and NaN stay what they are)."""
    value = perl_number(text)
    if isinstance(value, float) and math.isfinite(value):
        truncated = int(value)
        return truncated if IV_MIN <= truncated <= UV_MAX else float(truncated)
    return value


def perl_string(value: Number) -> str:
    """A number interpolated in a Perl string: integers in full, doubles as ``%.15g``, Inf, -Inf, NaN."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return "%.15g" % value


@dataclass
class Options:
    depth: Number = DEFAULT_DEPTH     # -k: an integer, or Inf / NaN (which mean every document)
    complete: bool = False            # -c
    baseline: str | None = None       # -baseline
    risk_alpha: Number = 0            # -riskAlpha, as a number ...
    risk_alpha_text: str = "0"        # ... and as given (the label prints the string)

    def cutoff(self, length: int) -> int:
        """How many of ``length`` documents count: gdeval compares k <= length, false for NaN."""
        return min(int(self.depth), length) if math.isfinite(self.depth) else length


def parse_command_line(args: list[str]) -> tuple[Options, str, list[str]] | str:
    """Options, the qrels file and the run files, or "help" / "version".

    As gdeval.pl reads them: ``-v``/``-version`` only as the first argument;
    then, until exactly two arguments are left, the first must be ``-help``,
    ``-c`` (with two more after it) or ``-k``/``-baseline``/``-riskAlpha`` and
    a value (with two more after them); a later option overrides an earlier.
    Beyond gdeval.pl, where more than two are left and the first is no option
    (nor an unknown one: a ``-`` and more), it is the qrels and the rest are
    runs, each evaluated as gdeval.pl evaluates its one run.
    """
    if args and args[0] in ("-v", "-version"):
        return "version"
    opts, at = Options(), 0
    while len(args) - at != 2:  # arguments left: options first
        head, left = (args[at] if at < len(args) else ""), len(args) - at
        if head == "-help":
            return "help"
        if head == "-c" and left >= 3:
            opts.complete, at = True, at + 1
            continue
        if left > 2 and head not in OPTIONS and not (head.startswith("-") and head != "-"):
            break  # qrels, then several runs
        if head not in OPTIONS or left < 4:
            raise GdevalUsage("expected options, then the files: qrels run...")
        value, at = args[at + 1], at + 2
        if head == "-k":
            opts.depth = perl_int(value)
            if opts.depth < 1:  # False for NaN, as in Perl
                raise GdevalUsage(f"-k needs a depth of at least 1, not {value!r}")
        elif head == "-baseline":
            opts.baseline = value
        else:
            opts.risk_alpha, opts.risk_alpha_text = perl_number(value), value
            if opts.risk_alpha < 0.0:
                raise GdevalUsage(f"-riskAlpha must be >= 0, not {value!r}")
    return opts, args[at], args[at + 1:]
