"""Checking TREC run submissions as a track organiser does, before evaluating them; and fixing them.

Every problem is reported, each at its file and line, instead of stopping at
the first: a line must hold six fields, the second ``Q0``; a file has one
runtag; within a topic a docno appears once, ranks run 1, 2, ... without gap or
repeat, and scores never rise as ranks fall (rank order and score order agree,
ties allowed); optionally, topics come from a topic list, a topic holds at most
N documents, docnos match a pattern. A problem caused on many lines (a second
runtag, a foreign topic, a second field that is always the same wrong one,
docnos off the pattern, ranks with gaps or out of score order in a topic) is
reported once, at its first line, with the number of lines it concerns.

:func:`fix_run` writes what the file should have been: every line placed as
trec_eval ranks it (score descending, ties by docno descending), ranked 1..n,
``Q0``, the first line's runtag; lines that cannot be placed (too few fields, a
score that is not a finite number, a foreign topic, a docno off the pattern, a
repeated docno's later copies, documents past the N-th) are left out and
counted. The input is only read.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..ids import natural_key
from .source import BOM, InputFile, read_input
from .table import INTEGER_PATTERN, REAL_PATTERN, decode

RUN_FIELDS = 6
_INTEGER = re.compile(INTEGER_PATTERN, re.ASCII)
_REAL = re.compile(REAL_PATTERN, re.ASCII)

# Problem kinds, in the order a summary lists them.
KINDS = ("fields", "Q0", "number", "runtag", "topic", "docno", "repeat", "rank", "order", "depth", "missing",
         "empty")


@dataclass(frozen=True)
class Problem:
    """One problem of a run file: where (line None: the whole file), its kind (:data:`KINDS`), and why."""

    source: str
    line: int | None
    kind: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}" if self.line is not None else \
            f"{self.source}: {self.reason}"


class _Alike:
    """Problems of one cause on many lines (a file written with 0 for Q0, gapped ranks in a topic):
    kept once, at the first line, with the number of lines it concerns."""

    def __init__(self) -> None:
        self.first: dict[tuple, Problem] = {}
        self.count: dict[tuple, int] = {}

    def note(self, key: tuple, problem: Problem) -> None:
        self.first.setdefault(key, problem)
        self.count[key] = self.count.get(key, 0) + 1

    def problems(self) -> list[Problem]:
        out = []
        for key, problem in self.first.items():
            more = self.count[key] - 1
            out.append(problem if not more else Problem(problem.source, problem.line, problem.kind, problem.reason
                                                        + f" (and {more} more line{'s' * (more != 1)} alike)"))
        return out


@dataclass
class _Entry:
    """A line that can be placed in its topic's ranking."""

    line: int
    topic: str
    docno: str
    rank: int | None    # None: not an integer
    score: float        # NaN: not a number
    score_text: str


@dataclass
class RunCheck:
    """What checking one run file found."""

    source: str
    lines: int = 0                       # non-blank lines
    topics: list[str] = field(default_factory=list)   # topics with a line, natural order
    runtag: str | None = None            # the first line's
    problems: list[Problem] = field(default_factory=list)
    entries: list[_Entry] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    def counts(self) -> dict[str, int]:
        """Problems by kind, in :data:`KINDS` order."""
        found = {kind: 0 for kind in KINDS}
        for problem in self.problems:
            found[problem.kind] += 1
        return {kind: n for kind, n in found.items() if n}

    def summary(self) -> str:
        shape = (f"{self.lines} lines, {len(self.topics)} topics, runtag "
                 f"{self.runtag!r}" if self.runtag is not None else f"{self.lines} lines")
        if self.ok:
            return f"{self.source}: OK ({shape})"
        kinds = ", ".join(f"{n} {kind}" for kind, n in self.counts().items())
        return f"{self.source}: {len(self.problems)} problem{'s' * (len(self.problems) != 1)} ({kinds}); {shape}"


def read_topic_list(source: str | InputFile) -> list[str]:
    """Topic ids: the first field of every non-blank line (a list of ids, or a qrels file), natural order."""
    if isinstance(source, str):
        source = read_input(source)
    data = source.data.removeprefix(BOM)
    return sorted({decode(line.split()[0]) for line in data.split(b"\n") if line.split()}, key=natural_key)


def check_run(source: str | InputFile, *, topics: list[str] | None = None, max_docs: int | None = None,
              docno_pattern: str | re.Pattern | None = None) -> RunCheck:
    """Every problem of one run file (see the module); ``topics``: the topic list, None to accept any."""
    if isinstance(source, str):
        source = read_input(source)
    pattern = re.compile(docno_pattern) if isinstance(docno_pattern, str) else docno_pattern
    allowed = None if topics is None else set(topics)
    check = RunCheck(source.name)
    add = check.problems.append
    alike = _Alike()
    name = source.name
    runtag_lines: dict[str, list[int]] = {}
    foreign: dict[str, list[int]] = {}
    data = source.data.removeprefix(BOM)
    for number, raw in enumerate(data.split(b"\n"), start=1):
        fields = [decode(f) for f in raw.split()]
        if not fields:
            continue
        check.lines += 1
        if len(fields) != RUN_FIELDS:
            alike.note(("fields", len(fields)), Problem(name, number, "fields", f"expected {RUN_FIELDS} fields "
                                                        f"(topic Q0 docno rank score runtag), found {len(fields)}"))
            if len(fields) < RUN_FIELDS:
                continue
        topic, q0, docno, rank_text, score_text, runtag = fields[:RUN_FIELDS]
        if q0 != "Q0":
            alike.note(("Q0", q0), Problem(name, number, "Q0", f"second field is {q0!r}, not Q0"))
        rank = int(rank_text) if _INTEGER.match(rank_text) else None
        if rank is None:
            add(Problem(name, number, "number", f"rank {rank_text!r} is not an integer"))
        score = float(score_text) if _REAL.match(score_text) else math.nan
        if not math.isfinite(score):
            add(Problem(name, number, "number", f"score {score_text!r} is not a finite number"))
        if check.runtag is None:
            check.runtag = runtag
        runtag_lines.setdefault(runtag, []).append(number)
        if allowed is not None and topic not in allowed:
            foreign.setdefault(topic, []).append(number)
        if pattern is not None and not pattern.fullmatch(docno):
            alike.note(("docno",), Problem(name, number, "docno", f"docno {docno!r} does not match the pattern "
                                                                  f"{pattern.pattern!r}"))
        check.entries.append(_Entry(number, topic, docno, rank, score, score_text))
    for runtag, lines in runtag_lines.items():
        if runtag != check.runtag:
            add(Problem(name, lines[0], "runtag", f"runtag {runtag!r} is not the file's first, {check.runtag!r} "
                                                  f"({_lines(lines)}); a file holds one run"))
    for topic, lines in foreign.items():
        add(Problem(name, lines[0], "topic", f"topic {topic} is not in the topic list ({_lines(lines)})"))
    by_topic: dict[str, list[_Entry]] = {}
    for entry in check.entries:
        by_topic.setdefault(entry.topic, []).append(entry)
    check.topics = sorted(by_topic, key=natural_key)
    for topic in check.topics:
        _check_topic(name, topic, by_topic[topic], max_docs, add, alike)
    check.problems.extend(alike.problems())
    if not check.lines:
        add(Problem(name, None, "empty", "holds no results"))
    elif allowed is not None:
        missing = sorted(allowed - set(by_topic), key=natural_key)
        if missing:
            add(Problem(name, None, "missing", f"no documents for {len(missing)} topic"
                                               f"{'s' * (len(missing) != 1)} of the topic list: "
                                               f"{_listed(missing)}"))
    check.problems.sort(key=lambda p: (p.line is None, p.line or 0, KINDS.index(p.kind)))
    return check


def _check_topic(name: str, topic: str, entries: list[_Entry], max_docs: int | None, add, alike: _Alike) -> None:
    """Repeated docnos, ranks 1..n, rank order against score order, and the depth, within one topic."""
    first_of: dict[str, int] = {}
    for entry in entries:
        if entry.docno in first_of:
            add(Problem(name, entry.line, "repeat", f"docno {entry.docno} of topic {topic} repeats line "
                                                    f"{first_of[entry.docno]}"))
        else:
            first_of[entry.docno] = entry.line
    ranked = sorted((e for e in entries if e.rank is not None), key=lambda e: (e.rank, e.line))
    expected = 1
    line_of_rank: dict[int, int] = {}
    for entry in ranked:
        if entry.rank in line_of_rank:
            alike.note(("rank repeated", topic), Problem(name, entry.line, "rank", f"rank {entry.rank} of topic "
                                                         f"{topic} repeats line {line_of_rank[entry.rank]}"))
            continue
        line_of_rank[entry.rank] = entry.line
        if entry.rank != expected:
            alike.note(("rank gap", topic), Problem(name, entry.line, "rank", f"rank {entry.rank} of topic {topic} "
                                                    f"where {expected} was expected (ranks run 1, 2, ... without gaps)"))
        expected = entry.rank + 1
    rising = [(above, below) for above, below in zip(ranked, ranked[1:])
              if math.isfinite(above.score) and math.isfinite(below.score) and below.score > above.score]
    if rising:
        above, below = rising[0]
        add(Problem(name, below.line, "order", f"topic {topic}: score {below.score_text} at rank {below.rank} is "
                                               f"above score {above.score_text} at rank {above.rank} (line "
                                               f"{above.line}): ranks and scores order the documents differently"
                                               + (f" (and {len(rising) - 1} more place{'s' * (len(rising) != 2)} "
                                                  "in this topic)" if len(rising) > 1 else "")))
    if max_docs is not None and len(entries) > max_docs:
        add(Problem(name, entries[max_docs].line, "depth", f"topic {topic} has {len(entries)} documents, more "
                                                           f"than {max_docs}"))


def _lines(lines: list[int]) -> str:
    return f"{len(lines)} line{'s' * (len(lines) != 1)}"


def _listed(ids: list[str], limit: int = 10) -> str:
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


@dataclass
class FixedRun:
    """A corrected run: its bytes, and how many lines were kept and left out, by reason."""

    data: bytes
    kept: int
    dropped: dict[str, int]

    def describe(self) -> str:
        gone = ", ".join(f"{n} {why}" for why, n in self.dropped.items() if n)
        return f"kept {self.kept} lines" + (f", left out {sum(self.dropped.values())} ({gone})" if gone else "")


def fix_run(check: RunCheck, *, topics: list[str] | None = None, max_docs: int | None = None,
            docno_pattern: str | re.Pattern | None = None) -> FixedRun:
    """The corrected run of a :func:`check_run` result (same options), as bytes (see the module)."""
    pattern = re.compile(docno_pattern) if isinstance(docno_pattern, str) else docno_pattern
    allowed = None if topics is None else set(topics)
    dropped = {"short lines": 0, "bad scores": 0, "foreign topics": 0, "docnos off the pattern": 0,
               "repeated docnos": 0, "past the depth": 0}
    dropped["short lines"] = check.lines - len(check.entries)
    by_topic: dict[str, list[_Entry]] = {}
    for entry in check.entries:
        if not math.isfinite(entry.score):
            dropped["bad scores"] += 1
        elif allowed is not None and entry.topic not in allowed:
            dropped["foreign topics"] += 1
        elif pattern is not None and not pattern.fullmatch(entry.docno):
            dropped["docnos off the pattern"] += 1
        else:
            by_topic.setdefault(entry.topic, []).append(entry)
    runtag = check.runtag if check.runtag is not None else "run"
    out: list[str] = []
    for topic in sorted(by_topic, key=natural_key):
        # trec_eval's order: score descending, ties by docno descending (byte order), so that every tool
        # and every order rule (rank, score) ranks the fixed file alike.
        placed = sorted(by_topic[topic], key=lambda e: e.docno.encode("utf-8", "surrogateescape"), reverse=True)
        placed.sort(key=lambda e: -e.score)
        seen: set[str] = set()
        rank = 0
        for entry in placed:
            if entry.docno in seen:
                dropped["repeated docnos"] += 1
                continue
            if max_docs is not None and rank >= max_docs:
                dropped["past the depth"] += 1
                continue
            seen.add(entry.docno)
            rank += 1
            out.append(f"{topic} Q0 {entry.docno} {rank} {entry.score_text} {runtag}\n")
    return FixedRun("".join(out).encode("utf-8", "surrogateescape"), len(out), dropped)
