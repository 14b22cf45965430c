"""``divaleval gdeval``: a drop-in replacement for gdeval.pl 1.3, the TREC Web Track's ad hoc evaluator.

Same options (``-c``, ``-k K``, ``-baseline FILE``, ``-riskAlpha R``,
``-help``, ``-version``), and the same standard output byte for byte on every
input gdeval.pl accepts: ``runid,topic,ndcg@K,err@K``, a row per topic the run
and the qrels share (ascending), then ``amean``, numbers as ``%.5f``.

What it computes (facts of gdeval.pl's behaviour, reimplemented):

* gains ``2^g - 1``; nDCG@k divides the run's DCG@k by that of the ideal list:
  every qrels line graded above 0, best first (a repeated line counts twice);
  ERR@k stops at a document with probability ``(2^g - 1) / 16`` (grade 4 is
  the maximum whatever the qrels hold). k is 20 unless ``-k`` says otherwise;
* a topic is one with a document graded above 0: others are neither printed
  nor counted, even with ``-c`` (which divides the mean by the number of such
  topics instead of the number the run has);
* against ``-baseline``, each value is the difference run - baseline, a loss
  weighted by 1 + riskAlpha; the label is ``RUNID (rel to. BASEID; rs=1+a;
  a=R)`` with R as typed; a topic the baseline lacks counts its values as 0.
  With ``-c`` too, topics the run lacks follow its rows (ascending) as losses
  from 0 (where the baseline lacks one as well, the previous such topic's
  baseline values are used: gdeval.pl does not reset them).

Reading as gdeval.pl reads (see :mod:`.reading` and :mod:`.options`):
``\\r`` deleted anywhere, fields split on white space, a topic's prefix up to
its last ``-`` dropped, topics kept as strings (``051`` is not ``51``) but
ordered as numbers; a qrels line needs a second field Perl reads as 0 and an
integer grade of at most 4; a run line needs ``Q0``, a rank of digits (else
unused) and a runid other than ``0``, and the runid printed is that of the
LAST line (``?????`` for an empty run). Each topic is ordered by score
descending (Perl's reading of numbers: ``1e3``, ``inf``, ``abc`` is 0), ties
by docno descending, then file order; repeated documents all count. A run
topic whose qrels lines sort under another spelling of its number makes
gdeval.pl divide by zero: the rows before it are printed and the status is
not 0, as there. A ``%`` in a runid is a printf conversion, as there.

Departures: a score Perl reads as NaN is refused (gdeval.pl's order then
depends on its merge sort's internals); an error's message is divaleval's
(``gdeval: FILE:LINE: ...``) and its status 2, not Perl's ``die`` status;
``-help`` and ``-version`` print divaleval's text; topic numbers beyond 64
bits compare exactly (Perl rounds them to doubles). Beyond gdeval.pl: gzip
files and ``-`` for standard input (once).

The package, by concern: :mod:`.options` (the command line, numbers as Perl
reads and prints them), :mod:`.reading` (qrels and runs, a run's order),
:mod:`.scoring` (the values in gdeval.pl's arithmetic, risk), :mod:`.writer`
(its CSV, Perl's printf); here, the command.
"""
from __future__ import annotations

import sys
from typing import TextIO

from ...errors import InputError
from ...io.source import STDIN_NAME, STDIN_ONCE, display_name
from ...output.writers import write_text
from .options import HELP, PROGRAM, VERSION, GdevalUsage, Options, parse_command_line, perl_int, perl_number
from .reading import Judgments, Run, read_qrels, read_run
from .scoring import STOP_REASON, Scored, dcg, err, risk_weighted, score
from .writer import csv_text, perl_fixed, perl_sprintf

__all__ = [
    "HELP", "PROGRAM", "STOP_REASON", "VERSION", "GdevalUsage", "Judgments", "Options", "Run", "Scored",
    "command_output", "csv_text", "dcg", "err", "main", "parse_command_line", "perl_fixed", "perl_int",
    "perl_number", "perl_sprintf", "read_qrels", "read_run", "risk_weighted", "score",
]


def main(args: list[str], out: TextIO | None = None, err_out: TextIO | None = None) -> int:
    """Run gdeval.pl's command line; returns the exit status."""
    err_out = err_out or sys.stderr
    try:
        text, problem = command_output(args)
    except GdevalUsage as exc:
        text, problem = "", f"{exc}\n{PROGRAM}: usage: divaleval gdeval [options] qrels run   (-help: options)"
    except InputError as exc:
        text, problem = "", str(exc)
    write_text(out or sys.stdout, text)
    if problem is None:
        return 0
    err_out.write(f"{PROGRAM}: {problem}\n")
    return 2


def command_output(args: list[str]) -> tuple[str, str | None]:
    """What gdeval.pl prints for ``args``, and why it stops short (None: it does not)."""
    parsed = parse_command_line(args)
    if parsed == "version":
        return f"{PROGRAM}: {VERSION}\n", None
    if parsed == "help":
        return HELP, None
    opts, qrels_path, run_path = parsed
    if [qrels_path, run_path, opts.baseline].count(STDIN_NAME) > 1:
        raise InputError(display_name(STDIN_NAME), None, STDIN_ONCE)
    judgments = read_qrels(qrels_path)
    baseline = None
    if opts.baseline is not None:
        baseline = score(judgments, read_run(opts.baseline), opts)
        if baseline.stopped:
            return "", f"{opts.baseline}: {STOP_REASON}"
    scored = score(judgments, read_run(run_path), opts, baseline)
    return csv_text(scored, opts, baseline), f"{run_path}: {STOP_REASON}" if scored.stopped else None
