"""``divaleval validate [OPTIONS] RUN...``: check run submissions before evaluating them (and fix them)."""
from __future__ import annotations

import os
import re
import sys

import click

from ..errors import DivalevalError
from ..io import expand_run_paths
from ..io.validate import check_run, fix_run, read_topic_list
from ..output.atomic import atomic_output
from ..output.paths import FOLDER, cannot_write, check_output
from .group import CONTEXT, main_group
from .types import PlainInt

EPILOG = """\b
Checks: six fields a line, the second Q0; one runtag per file; within each
topic no repeated docno, ranks 1, 2, ... without gap or repeat, and ranks in
score order (scores never rise as ranks fall; ties are fine); with --topics,
every topic in the list (and every listed topic answered); with --max-docs, at
most N documents per topic; with --docno-pattern, every docno matching it.
Lines are read by the reader evaluating uses, with its rules: what it refuses
(fewer than six fields, a rank that is no integer, a score that is no number,
a docno repeated in a topic) is a problem here, and what it reads is read
alike (1e400 and inf are scores; docnos are bytes, of any length).

\b
Every problem is printed as FILE:LINE: reason (one cause on many lines, such
as a second runtag, once, at its first line), then one summary line per file.
Exit status: 0 when every file is valid, 1 when some file has a problem, 2 on
a bad option or a file that cannot be read.

\b
--fix writes a corrected copy (never over an input or any existing file): lines
placed as trec_eval ranks them (score descending, ties by docno descending)
and ranked 1..n, so that every tool and order rule agrees on the ranking;
Q0 and the first line's runtag everywhere; lines that cannot be placed (too few
fields, a score that is no number, a topic off the list, a docno off the
pattern, a repeated docno's later copies, documents past --max-docs) are left
out and counted on standard error.

\b
Examples (from the root of the repository, on its sample data):
  divaleval validate sample_data/runs/
  divaleval validate --topics sample_data/qrels.txt --max-docs 1000 --docno-pattern 'doc-\\d{3}-\\d{3}' sample_data/runs/bm25.txt
  divaleval validate --topics sample_data/qrels.txt --fix fixed/ sample_data/runs/   # one corrected copy per run, in fixed/
"""


@main_group.command("validate", context_settings=CONTEXT, epilog=EPILOG,
                    short_help="Check run submissions (FILE:LINE for every problem), and fix them with --fix.")
@click.argument("runs", metavar="RUN...", nargs=-1, required=True)
@click.option("--topics", "topic_file", metavar="FILE",
              help="The topic list: the first field of every line (a list of topic ids, or the qrels).")
@click.option("--max-docs", type=PlainInt(min=1), metavar="N", help="At most N documents per topic.")
@click.option("--docno-pattern", metavar="REGEX", help="Every docno must match this regular expression (whole).")
@click.option("--fix", "fix_path", metavar="PATH",
              help="Write a corrected copy: to PATH for one RUN, into the directory PATH for several.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary lines, not every problem.")
def validate_command(runs, topic_file, max_docs, docno_pattern, fix_path, quiet):
    """Check TREC run files as a track organiser does before evaluating them."""
    try:
        pattern = re.compile(docno_pattern) if docno_pattern is not None else None
    except re.error as exc:
        raise click.UsageError(f"--docno-pattern {docno_pattern!r}: {exc}") from None
    try:
        paths = expand_run_paths(list(runs))
        targets = _fix_targets(fix_path, paths, runs, topic_file) if fix_path is not None else None
        topics = read_topic_list(topic_file) if topic_file is not None else None
        invalid = 0
        for index, path in enumerate(paths):
            check = check_run(path, topics=topics, max_docs=max_docs, docno_pattern=pattern)
            if not quiet:
                for problem in check.problems:
                    click.echo(str(problem))
            click.echo(check.summary())
            invalid += not check.ok
            if targets is not None:
                fixed = fix_run(check, topics=topics, max_docs=max_docs, docno_pattern=pattern)
                _write_new(targets[index], fixed.data)
                click.echo(f"divaleval: wrote {targets[index]}: {fixed.describe()}", err=True)
        if len(paths) > 1:
            click.echo(f"{len(paths)} files: {len(paths) - invalid} valid, {invalid} with problems")
    except DivalevalError as exc:
        click.echo(f"divaleval: {exc}", err=True)
        sys.exit(2)
    sys.exit(1 if invalid else 0)


def _fix_targets(fix_path: str, paths: list[str], given: tuple[str, ...], topic_file: str | None) -> list[str]:
    """Where each corrected copy goes: never an input, never an existing file (checked before any is read)."""
    several = len(paths) > 1 or any(os.path.isdir(item) for item in given) or os.path.isdir(fix_path) \
        or fix_path.endswith(("/", os.sep))
    if several:
        if os.path.exists(fix_path) and not os.path.isdir(fix_path):
            raise click.UsageError(f"--fix {fix_path}: several runs need a directory to write into")
        check_output(fix_path, "--fix", kind=FOLDER)
        targets = [os.path.join(fix_path, os.path.basename(path)) for path in paths]
        repeated = {t for t in targets if targets.count(t) > 1}
        if repeated:
            raise click.UsageError(f"--fix {fix_path}: two runs would be written to {sorted(repeated)[0]}")
    else:
        targets = [fix_path]
    for target in targets:
        check_output(target, "--fix", inputs=[*paths, *given, *([topic_file] if topic_file else [])], parents=True,
                     exists="it will not be overwritten (runs are never fixed in place)")
    return targets


def _write_new(path: str, data: bytes) -> None:
    """Write a new file (a directory is made if need be); an existing one is never replaced."""
    folder = os.path.dirname(path)
    try:
        if folder:
            os.makedirs(folder, exist_ok=True)
        with atomic_output(path, binary=True, replace=False) as handle:  # never half a file, even on Ctrl-C
            handle.write(data)
    except FileExistsError:
        raise click.UsageError(f"--fix {path} exists: it will not be overwritten") from None
    except OSError as exc:  # checked before the work, failed since (a full disk, a directory removed)
        raise cannot_write(path, exc, "--fix") from None
