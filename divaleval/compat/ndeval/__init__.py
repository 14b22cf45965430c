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

The qrels are kept between calls in the cache of qrels (:mod:`divaleval.model.stored`), read by ndeval's
rules and under entries of their own, with the ideal rankings a call computed: a script that calls the
drop-in once per run, as it called ndeval, reads them once. The output is the same bytes either way.

The package, by concern: :mod:`.options` (the command line, numbers as
``sscanf`` reads them), :mod:`.reading` (lines through io/lines's splitter, in
ndeval's dialect, and its reading quirks), :mod:`.ordering` (its orders, NaN
scores included), :mod:`.scoring` (its columns), :mod:`.risk` (differences
from a baseline), :mod:`.writer` (its CSV and numbers); here, the command.
"""
from __future__ import annotations

import math
import sys
from typing import TextIO

from ...errors import InputError
from ...io.lines import BLOCK
from ...io.source import STDIN_NAME, STDIN_ONCE, InputFile, display_name
from ...model import stored
from ...model.qrels import Qrels, build_qrels
from .options import HELP, PROGRAM, VERSION, NdevalUsage, Options, parse_command_line, scan_double, scan_int
from .ordering import group_table, take_rows, topic_groups, traditional_ranks
from .reading import NdevalRun, natural_number, natural_numbers, read_qrels, read_run, run_topics, scan_scores
from .risk import risk_based
from .scoring import ALPHA_COLUMNS, BETA_COLUMNS, COLUMNS, CUTOFFS, ScoredRun, ndeval_measures, score
from .writer import c_mean, c_number, csv_text, write_csv

# Sizes, read by the modules below at each use (so that they can be changed here, as the tests do):
BLOCK_BYTES = BLOCK    # lines are split a block of about this size at a time
GROUP_LINES = 1 << 18  # lines ranked and scored together (whole topics, so a large topic is one group)

__all__ = [
    "ALPHA_COLUMNS", "BETA_COLUMNS", "BLOCK_BYTES", "GROUP_LINES", "COLUMNS", "CUTOFFS", "HELP", "PROGRAM", "VERSION", "NdevalRun", "NdevalUsage",
    "Options", "ScoredRun", "c_mean", "c_number", "csv_text", "group_table", "main", "natural_number",
    "natural_numbers", "ndeval_measures", "parse_command_line", "read_qrels", "read_run", "risk_based",
    "run_topics", "scan_double", "scan_int", "scan_scores", "score", "take_rows", "topic_groups",
    "traditional_ranks", "write_csv",
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
    if [qrels_path, run_path, opts.baseline].count(STDIN_NAME) > 1:
        err.write(f"{PROGRAM}: {display_name(STDIN_NAME)}: {STDIN_ONCE}\n")
        return 1

    def warn(message: str) -> None:
        err.write(f"{PROGRAM}: warning: {message}\n")

    try:
        # Kept between calls, as the main command keeps its own (a loop of one call per run reads them once).
        qrels = stored.load_qrels(qrels_path, ndeval_qrels, variant="ndeval")
        # A NaN alpha or beta is bound as 0.5 and its columns set to NaN afterwards (see _mark_nan_parameters).
        measures = ndeval_measures(0.5 if math.isnan(opts.alpha) else opts.alpha,
                                   0.5 if math.isnan(opts.beta) else opts.beta)
        run = score(qrels, run_path, opts, measures, warn)
        baseline = score(qrels, opts.baseline, opts, measures, warn) if opts.baseline is not None else None
    except InputError as exc:
        err.write(f"{PROGRAM}: {exc}\n")
        return 1
    write_csv(out, qrels, run, baseline, opts)
    stored.store(qrels)  # with the ideal rankings this call computed, for the next
    return 0


def ndeval_qrels(source: InputFile) -> Qrels:
    """Qrels read as ndeval reads them; a repeated judgment's last line stands."""
    return build_qrels(read_qrels(source), duplicates="last")
