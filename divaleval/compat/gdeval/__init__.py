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
files, ``-`` for standard input (once), and several runs in one call
(``qrels run...``), whose output is the concatenation of gdeval.pl's calls
with each run alone (the qrels and the baseline read once): up to the first
run it refuses or stops in, that run's block (as far as gdeval.pl prints it)
and its error then ending the command.

The package, by concern: :mod:`.options` (the command line, numbers as Perl
reads and prints them), :mod:`.reading` (qrels and runs, a run's order),
:mod:`.scoring` (the values in gdeval.pl's arithmetic, risk), :mod:`.writer`
(its CSV, Perl's printf); here, the command.
"""
from __future__ import annotations

import sys
from typing import Iterator, TextIO

from ...errors import InputError
from ...io.source import STDIN_NAME, STDIN_ONCE, display_name
from ...output.streams import write_text
from .options import HELP, PROGRAM, VERSION, GdevalUsage, Options, parse_command_line, perl_int, perl_number
from .reading import Judgments, Run, read_qrels, read_run
from .scoring import STOP_REASON, Scored, dcg, err, risk_weighted, score
from .writer import csv_text, perl_fixed, perl_sprintf

__all__ = [
    "HELP", "PROGRAM", "STOP_REASON", "VERSION", "GdevalStopped", "GdevalUsage", "Judgments", "Options", "Run",
    "Scored", "command_blocks", "csv_text", "dcg", "err", "main", "parse_command_line", "perl_fixed", "perl_int",
    "perl_number", "perl_sprintf", "read_qrels", "read_run", "risk_weighted", "score",
]


def main(args: list[str], out: TextIO | None = None, err_out: TextIO | None = None) -> int:
    """Run gdeval.pl's command line (with several runs: its calls one after the other); returns the exit
    status. Each run's block is written as soon as it is computed, so those before an error are out."""
    out, err_out = out or sys.stdout, err_out or sys.stderr
    try:
        for text in command_blocks(args):
            write_text(out, text)
        return 0
    except GdevalUsage as exc:
        problem = f"{exc}\n{PROGRAM}: usage: divaleval gdeval [options] qrels run...   (-help: options)"
    except GdevalStopped as exc:
        write_text(out, exc.text)
        problem = str(exc)
    except InputError as exc:
        problem = str(exc)
    err_out.write(f"{PROGRAM}: {problem}\n")
    return 2


class GdevalStopped(Exception):
    """gdeval.pl stops part way through a run (:data:`STOP_REASON`): ``text`` is what it printed of it."""

    def __init__(self, path: str, text: str) -> None:
        super().__init__(f"{path}: {STOP_REASON}")
        self.text = text


def command_blocks(args: list[str]) -> Iterator[str]:
    """What gdeval.pl prints for ``args``, a block a run (one call's output each): the qrels and the
    baseline are read once, each run when its turn comes, so an error in one (:class:`InputError`, or
    :class:`GdevalStopped` with the rows it printed) comes after the blocks of the runs before it."""
    parsed = parse_command_line(args)
    if parsed == "version":
        yield f"{PROGRAM}: {VERSION}\n"
        return
    if parsed == "help":
        yield HELP
        return
    opts, qrels_path, run_paths = parsed
    if [qrels_path, *run_paths, opts.baseline].count(STDIN_NAME) > 1:
        raise InputError(display_name(STDIN_NAME), None, STDIN_ONCE)
    judgments = read_qrels(qrels_path)
    baseline = None
    if opts.baseline is not None:
        baseline = score(judgments, read_run(opts.baseline), opts)
        if baseline.stopped:
            raise GdevalStopped(opts.baseline, "")
    for run_path in run_paths:
        scored = score(judgments, read_run(run_path), opts, baseline)
        text = csv_text(scored, opts, baseline)
        if scored.stopped:
            raise GdevalStopped(run_path, text)
        yield text
