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

A run is read by the reader evaluation uses (io/table's read_columns, through
io/lines's splitter), so the two accept and refuse the same lines: a line
evaluation cannot read (fewer than six fields, a rank that is not an integer, a
score that is not a number; ``1e400`` is a number, infinite) is a problem here
marked :attr:`Problem.refused`, and so is a docno repeated within a topic and
a file without results; every other problem is an organiser's rule that
evaluation does not enforce. Only when the reader refuses some line are the
lines looked at one by one, and only those: the file is read again with them
blanked out (line numbers kept), and each is reported at its line. Every check
is then made over whole columns (numpy and Arrow), not line by line.

:func:`fix_run` writes what the file should have been: every line placed as
trec_eval ranks it (score descending, ties by docno descending), ranked 1..n,
``Q0``, the first line's runtag; lines that cannot be placed (too few fields, a
score that is not a number, a foreign topic, a docno off the pattern, a
repeated docno's later copies, documents past the N-th) are left out and
counted. The input is only read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..arrays import arrow_of, numpy_of, text_offsets
from ..errors import InputError
from ..ids import natural_key
from ..native import KeyArrays, match_keys
from .lines import split
from .runs import RUN_LAYOUT
from .source import BOM, InputFile, read_input
from .table import FLOAT, ID, INT64_MAX, INT64_MIN, INTEGER_PATTERN, RANK, REAL_PATTERN, TEXT, Factor, decode, \
    read_columns

RUN_FIELDS = 6
RUN_NAMES = ["topic", "Q0", "docno", "rank", "score", "runtag"]
_INTEGER = re.compile(INTEGER_PATTERN, re.ASCII)
_REAL = re.compile(REAL_PATTERN, re.ASCII)

# Problem kinds, in the order a summary lists them.
KINDS = ("fields", "Q0", "number", "runtag", "topic", "docno", "repeat", "rank", "order", "depth", "missing",
         "empty")


@dataclass(frozen=True)
class Problem:
    """One problem of a run file: where (line None: the whole file), its kind (:data:`KINDS`), and why.

    refused: evaluating the run refuses this line (or file) too; the other problems break an organiser's
    rule that evaluation does not enforce (Q0, one runtag, ranks 1..n in score order, extra fields...).
    """

    source: str
    line: int | None
    kind: str
    reason: str
    refused: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}" if self.line is not None else \
            f"{self.source}: {self.reason}"


def _alike(problem: Problem, count: int) -> Problem:
    """A problem of one cause on ``count`` lines, kept once at its first line, with the number of the others."""
    more = count - 1
    if not more:
        return problem
    return Problem(problem.source, problem.line, problem.kind,
                   problem.reason + f" (and {more} more line{'s' * (more != 1)} alike)", problem.refused)


@dataclass
class RunLines:
    """The lines of a run that hold six fields or more, in line order, as columns.

    rank_ok: the rank is an integer (``rank`` is 0 where not; clipped to 64 bits as the reader does);
    score: NaN where the score is not a number.
    """

    line: np.ndarray       # int64, 1-based
    topic: Factor
    q0: Factor
    docno: pa.Array        # binary
    rank: np.ndarray       # int64
    rank_ok: np.ndarray    # bool
    score: np.ndarray      # float64
    runtag: Factor

    def __len__(self) -> int:
        return len(self.line)

    def docno_text(self, row: int) -> str:
        return decode(self.docno[row].as_py())

    def topic_text(self, row: int) -> str:
        return str(self.topic.labels[self.topic.codes[row]])


@dataclass
class RunCheck:
    """What checking one run file found."""

    source: str
    lines: int = 0                       # non-blank lines
    topics: list[str] = field(default_factory=list)   # topics with a line, natural order
    runtag: str | None = None            # the first line's
    problems: list[Problem] = field(default_factory=list)
    read: RunLines | None = field(default=None, repr=False)        # the lines of six fields or more
    input: InputFile | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def refused(self) -> bool:
        """Whether evaluating the run refuses it (a line it cannot read, a repeated docno, no results)."""
        return any(problem.refused for problem in self.problems)

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
    ids = [pc.unique(fields.column(np.flatnonzero(fields.per_line), 0)) for fields in split(source)]
    distinct = pc.unique(pa.chunked_array(ids, pa.binary())).to_pylist() if ids else []
    return sorted((decode(text) for text in distinct), key=natural_key)


# -- reading: the evaluator's reader, and the lines it refuses ----------------------------------------------------

def _read_columns(source: InputFile):
    """The six fields of every non-blank line as evaluation's reader reads them (Q0 and the runtag kept)."""
    return read_columns(source, [ID, ID, TEXT, RANK, FLOAT, ID], names=RUN_NAMES, layout=RUN_LAYOUT,
                        extra_fields="ignore")


@dataclass
class _Shapes:
    """What a pass of the splitter finds: the lines of another width than six (and their widths), and the
    lines whose rank or score the reader cannot type."""

    odd: np.ndarray
    widths: np.ndarray
    bad_rank: np.ndarray
    bad_score: np.ndarray


def _shapes(source: InputFile, numbers: bool) -> _Shapes:
    odd, widths, bad_rank, bad_score = [], [], [], []
    for fields in split(source):
        per_line = fields.per_line
        wrong = np.flatnonzero((per_line > 0) & (per_line != RUN_FIELDS))
        odd.append(fields.first_line + wrong)
        widths.append(per_line[wrong])
        if numbers:
            full = np.flatnonzero(per_line >= RUN_FIELDS)
            for j, pattern, bad in ((3, INTEGER_PATTERN, bad_rank), (4, REAL_PATTERN, bad_score)):
                matched = numpy_of(pc.match_substring_regex(fields.column(full, j), pattern))
                bad.append(fields.first_line + full[~matched])
    join = lambda parts: np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)  # noqa: E731
    return _Shapes(join(odd), join(widths), join(bad_rank), join(bad_score))


def _read(source: InputFile) -> tuple[RunLines, list[Problem], int]:
    """The lines of six fields or more, the problems of lines the reader refuses and of lines of another
    width than six, and the number of non-blank lines."""
    try:
        columns = _read_columns(source)
        shapes = _shapes(source, numbers=False) if columns.extra_fields else None
        refused, extra = [], []
    except InputError as error:
        if error.line is None:
            raise
        shapes = _shapes(source, numbers=True)
        columns, refused, extra = _read_around(source, shapes)
    problems = [] if shapes is None else _width_problems(source.name, shapes)
    short = 0 if shapes is None else int((shapes.widths < RUN_FIELDS).sum())
    read = _joined(columns, extra)
    return read, problems + refused, len(read) + short


def _read_around(source: InputFile, shapes: _Shapes) -> tuple[object, list[Problem], list]:
    """The reader's columns of the lines it can read, read again with the others blanked out (their
    numbers kept); the problems of those others, and the fields of those with six or more."""
    short = shapes.odd[shapes.widths < RUN_FIELDS]
    refused = {int(line): "" for line in np.concatenate([short, shapes.bad_rank, shapes.bad_score])}
    parts = source.data.split(b"\n")
    while True:  # any line the reader still refuses (none, as the tests check) is named by it
        blanked = list(parts)
        for line in refused:
            blanked[line - 1] = b""
        try:
            columns = _read_columns(InputFile(source.name, data=b"\n".join(blanked)))
            break
        except InputError as again:
            if again.line is None or again.line in refused:
                raise
            refused[again.line] = again.reason
    return (columns, *_refused_lines(source.name, parts, refused))


def _refused_lines(name: str, parts: list[bytes], refused: dict[int, str]) -> tuple[list[Problem], list]:
    """The problems of the lines the reader refuses, and the fields of those with six or more."""
    problems, extra = [], []
    for line in sorted(refused):
        fields = [decode(f) for f in parts[line - 1].removeprefix(BOM if line == 1 else b"").split()]
        if len(fields) < RUN_FIELDS:
            if refused[line]:  # refused by the reader alone (the splitter's pass reports the others' width)
                problems.append(Problem(name, line, "fields", refused[line], True))
            continue
        topic, q0, docno, rank_text, score_text, runtag = fields[:RUN_FIELDS]
        rank_ok, score_ok = bool(_INTEGER.match(rank_text)), bool(_REAL.match(score_text))
        if not rank_ok:
            problems.append(Problem(name, line, "number", f"rank {rank_text!r} is not an integer", True))
        if not score_ok:
            problems.append(Problem(name, line, "number", f"score {score_text!r} is not a number", True))
        if rank_ok and score_ok:  # refused by the reader for a reason of its own
            problems.append(Problem(name, line, "number", refused[line], True))
        rank = min(max(int(rank_text), INT64_MIN), INT64_MAX) if rank_ok else 0
        score = float(score_text) if score_ok else np.nan
        extra.append((line, topic, q0, docno.encode("utf-8", "surrogateescape"), rank, rank_ok, score, runtag))
    return problems, extra


def _joined(columns, extra: list) -> RunLines:
    """The reader's columns, with the lines it refused that hold six fields or more put back in line order."""
    topic, q0, docno, (rank, _beyond), score, runtag = columns.fields
    lines = np.asarray(columns.lines, dtype=np.int64)
    docno = docno.combine_chunks() if isinstance(docno, pa.ChunkedArray) else docno
    rank = np.asarray(rank, dtype=np.int64)
    if not extra:
        return RunLines(lines, topic, q0, docno, rank, np.ones(len(rank), dtype=bool), score, runtag)
    line, topics, q0s, docnos, ranks, ranks_ok, scores, runtags = (list(values) for values in zip(*extra))
    order = np.argsort(np.concatenate([lines, line]), kind="stable")
    joined = lambda values, more, dtype: np.concatenate([values, np.array(more, dtype=dtype)])[order]  # noqa: E731
    return RunLines(joined(lines, line, np.int64), _factor_joined(topic, topics, order),
                    _factor_joined(q0, q0s, order),
                    pa.concat_arrays([docno.cast(pa.binary()), pa.array(docnos, pa.binary())]).take(arrow_of(order)),
                    joined(rank, ranks, np.int64), joined(np.ones(len(rank), dtype=bool), ranks_ok, bool),
                    joined(score, scores, np.float64), _factor_joined(runtag, runtags, order))


def _factor_joined(factor: Factor, more: list[str], order: np.ndarray) -> Factor:
    labels = list(factor.labels)
    code_of = {label: code for code, label in enumerate(labels)}
    codes = [code_of.setdefault(label, len(code_of)) for label in more]
    labels.extend(list(code_of)[len(labels):])
    return Factor(np.concatenate([factor.codes, np.array(codes, dtype=np.int32)])[order],
                  np.array(labels, dtype=object))


def _width_problems(name: str, shapes: _Shapes) -> list[Problem]:
    """Lines of another width than six, once per width (fewer fields are refused by evaluation too)."""
    problems = []
    for width, first, count in zip(*_firsts(shapes.widths)):
        width = int(width)
        problems.append(_alike(Problem(name, int(shapes.odd[first]), "fields", f"expected {RUN_FIELDS} fields "
                                       f"(topic Q0 docno rank score runtag), found {width}",
                                       width < RUN_FIELDS), count))
    return problems


def _firsts(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each distinct value of ``codes``, the row of its first occurrence and its count."""
    values, first, count = np.unique(codes, return_index=True, return_counts=True)
    return values, first, count.tolist()


# -- the checks, over whole columns ------------------------------------------------------------------------------

def check_run(source: str | InputFile, *, topics: list[str] | None = None, max_docs: int | None = None,
              docno_pattern: str | re.Pattern | None = None) -> RunCheck:
    """Every problem of one run file (see the module); ``topics``: the topic list, None to accept any."""
    if isinstance(source, str):
        source = read_input(source)
    pattern = re.compile(docno_pattern) if isinstance(docno_pattern, str) else docno_pattern
    name = source.name
    read, problems, lines = _read(source)
    check = RunCheck(name, lines, read=read, input=source)
    add = problems.append
    if len(read):
        check.runtag = str(read.runtag.labels[read.runtag.codes[0]])
    for code, first, count in zip(*_firsts(read.runtag.codes)):
        runtag = str(read.runtag.labels[code])
        if runtag != check.runtag:
            add(Problem(name, int(read.line[first]), "runtag", f"runtag {runtag!r} is not the file's first, "
                                                               f"{check.runtag!r} ({_lines(count)}); a file holds one run"))
    for code, first, count in zip(*_firsts(read.q0.codes)):
        q0 = str(read.q0.labels[code])
        if q0 != "Q0":
            add(_alike(Problem(name, int(read.line[first]), "Q0", f"second field is {q0!r}, not Q0"), count))
    allowed = None if topics is None else set(topics)
    if allowed is not None:
        for code, first, count in zip(*_firsts(read.topic.codes)):
            topic = str(read.topic.labels[code])
            if topic not in allowed:
                add(Problem(name, int(read.line[first]), "topic", f"topic {topic} is not in the topic list "
                                                                  f"({_lines(count)})"))
    if pattern is not None:
        off = np.flatnonzero(~_matching(read.docno, pattern))
        if len(off):
            add(_alike(Problem(name, int(read.line[off[0]]), "docno", f"docno {read.docno_text(off[0])!r} does not "
                                                                      f"match the pattern {pattern.pattern!r}"),
                       len(off)))
    present = np.unique(read.topic.codes)
    check.topics = sorted((str(read.topic.labels[code]) for code in present), key=natural_key)
    problems += _repeated_docnos(name, read)
    problems += _rank_problems(name, read, source)
    if max_docs is not None:
        problems += _depth_problems(name, read, max_docs)
    if not check.lines:
        add(Problem(name, None, "empty", "holds no results", True))
    elif allowed is not None:
        missing = sorted(allowed - set(check.topics), key=natural_key)
        if missing:
            add(Problem(name, None, "missing", f"no documents for {len(missing)} topic"
                                               f"{'s' * (len(missing) != 1)} of the topic list: "
                                               f"{_listed(missing)}"))
    problems.sort(key=lambda p: (p.line is None, p.line or 0, KINDS.index(p.kind)))
    check.problems = problems
    return check


def _matching(docno: pa.Array, pattern: re.Pattern) -> np.ndarray:
    """Whether each docno matches ``pattern`` whole (Python's regular expressions, each distinct docno once)."""
    encoded = pc.dictionary_encode(docno)
    texts = encoded.dictionary.to_pylist()
    matches = _bytes_pattern(pattern, encoded.dictionary)
    if matches is None:
        matches = pattern.fullmatch
        texts = [decode(text) for text in texts]
    distinct = np.array([matches(text) is not None for text in texts], dtype=bool)
    return distinct[numpy_of(encoded.indices)] if len(distinct) else np.zeros(len(docno), dtype=bool)


def _bytes_pattern(pattern: re.Pattern, docnos: pa.Array):
    """The pattern's fullmatch over bytes, where it matches exactly what it matches over the text (an ASCII
    pattern, docnos of printable ASCII only: no Unicode class or case rule can tell them apart); else None.
    Not decoding each docno halves the time of a pattern over a large run."""
    if not isinstance(pattern.pattern, str) or not pattern.pattern.isascii():
        return None
    data, offsets = docnos.buffers()[2], text_offsets(docnos)
    used = np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]] if data is not None else np.zeros(0, np.uint8)
    if len(used) and (used.min() < 0x21 or used.max() > 0x7e):
        return None
    try:
        return re.compile(pattern.pattern.encode("ascii"), pattern.flags & ~re.UNICODE).fullmatch
    except re.error:  # text-only syntax (\N{...}, \u...)
        return None


def _topic_groups(read: RunLines) -> tuple[np.ndarray, np.ndarray]:
    """The rows ordered by topic, then line; and where each topic's rows start in that order (and the end)."""
    by_topic = np.argsort(read.topic.codes, kind="stable")
    codes = read.topic.codes[by_topic]
    starts = np.flatnonzero(np.diff(codes, prepend=-1) != 0) if len(codes) else np.zeros(0, dtype=np.int64)
    return by_topic, np.append(starts, len(codes))


def _repeated_docnos(name: str, read: RunLines) -> list[Problem]:
    """Every later copy of a docno within its topic, naming the first (evaluation refuses them)."""
    if not len(read) or not _may_repeat(read):
        return []
    docno = numpy_of(pc.dictionary_encode(read.docno).indices).astype(np.int64)
    key = read.topic.codes.astype(np.int64) * (int(docno.max()) + 1) + docno
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    firsts = first[inverse.reshape(-1)]
    return [Problem(name, int(read.line[row]), "repeat", f"docno {read.docno_text(row)} of topic "
                    f"{read.topic_text(row)} repeats line {read.line[firsts[row]]}", True)
            for row in np.flatnonzero(firsts != np.arange(len(read))).tolist()]


def _may_repeat(read: RunLines) -> bool:
    """False where the compiled kernel evaluation matches keys with finds no (topic, docno) twice (a
    single pass, without the Arrow dictionary that names the lines of a repeat)."""
    docno = read.docno
    offsets = text_offsets(docno)
    if docno.type != pa.binary() or offsets.dtype != np.int32:
        return True
    found = match_keys(lambda: KeyArrays(read.topic.codes, offsets, docno.buffers()[2], None, np.int32))
    return found is None or len(found[1]) > 0


def _rank_problems(name: str, read: RunLines, source: InputFile) -> list[Problem]:
    """Within each topic: ranks repeated, ranks with gaps (each once per topic, at the first in rank order),
    and the first place where a score rises as the rank falls."""
    rows = np.flatnonzero(read.rank_ok)
    rows = rows[np.lexsort((read.line[rows], read.rank[rows], read.topic.codes[rows]))]
    topic, rank, line = read.topic.codes[rows], read.rank[rows], read.line[rows]
    same_topic = np.zeros(len(rows), dtype=bool)
    same_topic[1:] = topic[1:] == topic[:-1]
    repeat = same_topic.copy()
    repeat[1:] &= rank[1:] == rank[:-1]
    starts = np.flatnonzero(~repeat)                  # each rank's first line, in rank order
    first_of_rank = starts[np.searchsorted(starts, np.arange(len(rows)), side="right") - 1]
    distinct = ~repeat
    previous = np.zeros(len(rows), dtype=np.int64)    # the distinct rank before each, in its topic
    previous[starts[1:]] = rank[starts[:-1]]
    expected = np.where(same_topic, previous + 1, 1)
    gap = distinct & (rank != expected)
    problems = []
    clipped = (rank == INT64_MIN) | (rank == INT64_MAX)
    if clipped.any():  # beyond 64 bits: read as the reader reads them (clipped), shown as written
        texts = _field_texts(source, 3)
        rank = rank.astype(object)
        for j in np.flatnonzero(clipped).tolist():
            rank[j] = int(texts[rows[j]].as_py())
    for mask, kind in ((repeat, "repeat"), (gap, "gap")):
        at = np.flatnonzero(mask)
        for _, first, count in zip(*_firsts(topic[at])):
            j = int(at[first])
            t = str(read.topic.labels[topic[j]])
            reason = f"rank {rank[j]} of topic {t} repeats line {line[first_of_rank[j]]}" if kind == "repeat" else \
                f"rank {rank[j]} of topic {t} where {expected[j]} was expected (ranks run 1, 2, ... without gaps)"
            problems.append(_alike(Problem(name, int(line[j]), "rank", reason), count))
    score = read.score[rows]
    rising = np.zeros(len(rows), dtype=bool)
    rising[1:] = same_topic[1:] & (score[1:] > score[:-1])   # NaN (not a number) never compares
    at = np.flatnonzero(rising)
    if len(at):
        texts = _field_texts(source, 4)
        for _, first, count in zip(*_firsts(topic[at])):
            below = int(at[first])
            above = below - 1
            more = count - 1
            problems.append(Problem(
                name, int(line[below]), "order",
                f"topic {read.topic_text(rows[below])}: score {decode(texts[rows[below]].as_py())} at rank "
                f"{rank[below]} is above score {decode(texts[rows[above]].as_py())} at rank {rank[above]} (line "
                f"{line[above]}): ranks and scores order the documents differently"
                + (f" (and {more} more place{'s' * (more != 1)} in this topic)" if more else "")))
    return problems


def _depth_problems(name: str, read: RunLines, max_docs: int) -> list[Problem]:
    """Topics of more than ``max_docs`` lines, each at its first line past them."""
    by_topic, bounds = _topic_groups(read)
    problems = []
    for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        if end - start > max_docs:
            row = by_topic[start + max_docs]
            problems.append(Problem(name, int(read.line[row]), "depth", f"topic {read.topic_text(row)} has "
                                                                        f"{end - start} documents, more than {max_docs}"))
    return problems


def _field_texts(source: InputFile, j: int) -> pa.Array:
    """Field j of every line of six fields or more, as written (rows as :class:`RunLines`)."""
    parts = [fields.column(np.flatnonzero(fields.per_line >= RUN_FIELDS), j) for fields in split(source)]
    return pa.concat_arrays(parts) if parts else pa.array([], pa.binary())


def _lines(count: int) -> str:
    return f"{count} line{'s' * (count != 1)}"


def _listed(ids: list[str], limit: int = 10) -> str:
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


# -- fixing ------------------------------------------------------------------------------------------------------

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
    read = check.read
    dropped = {"short lines": check.lines - len(read), "bad scores": 0, "foreign topics": 0,
               "docnos off the pattern": 0, "repeated docnos": 0, "past the depth": 0}
    keep = ~np.isnan(read.score)
    dropped["bad scores"] = int((~keep).sum())
    if topics is not None:
        allowed = np.array([str(label) in set(topics) for label in read.topic.labels], dtype=bool)
        foreign = keep & ~allowed[read.topic.codes] if len(allowed) else np.zeros(len(read), dtype=bool)
        dropped["foreign topics"] = int(foreign.sum())
        keep &= ~foreign
    if pattern is not None:
        off = keep & ~_matching(read.docno, pattern)
        dropped["docnos off the pattern"] = int(off.sum())
        keep &= ~off
    rows = np.flatnonzero(keep)
    # trec_eval's order: score descending, ties by docno descending (byte order), so that every tool
    # and every order rule (rank, score) ranks the fixed file alike.
    topic_order = np.empty(len(read.topic.labels), dtype=np.int64)
    topic_order[sorted(range(len(read.topic.labels)), key=lambda c: natural_key(str(read.topic.labels[c])))] = \
        np.arange(len(read.topic.labels))
    docno = read.docno.take(arrow_of(rows))
    docno_rank = numpy_of(pc.rank(docno, sort_keys="ascending", tiebreaker="dense")) if len(rows) else rows
    placed = rows[np.lexsort((-docno_rank, -read.score[rows], topic_order[read.topic.codes[rows]]))]
    topic = read.topic.codes[placed]
    codes = numpy_of(pc.dictionary_encode(read.docno.take(arrow_of(placed))).indices).astype(np.int64)
    key = topic.astype(np.int64) * (int(codes.max()) + 1 if len(codes) else 1) + codes
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    first_copy = first[inverse.reshape(-1)]
    repeated = first_copy != np.arange(len(placed))
    starts = np.flatnonzero(np.diff(topic, prepend=-1) != 0) if len(topic) else np.zeros(0, dtype=np.int64)
    firsts_before = np.cumsum(~repeated) - ~repeated        # first copies placed before each, in the file
    rank = firsts_before - np.repeat(firsts_before[starts], np.diff(np.append(starts, len(placed)))) + 1
    # A later copy of a document left out past the depth is past the depth too (it was never placed).
    deep = np.zeros(len(placed), dtype=bool) if max_docs is None else (rank > max_docs)[first_copy]
    dropped["repeated docnos"] = int((repeated & ~deep).sum())
    dropped["past the depth"] = int(deep.sum())
    kept = ~repeated & ~deep
    placed, rank = placed[kept], rank[kept]
    return FixedRun(_written(check, placed, rank), len(placed), dropped)


def _written(check: RunCheck, rows: np.ndarray, rank: np.ndarray) -> bytes:
    """The lines ``topic Q0 docno rank score runtag`` of ``rows`` (the scores as written in the input)."""
    read = check.read
    runtag = (check.runtag if check.runtag is not None else "run").encode("utf-8", "surrogateescape")
    topics = [str(label).encode("utf-8", "surrogateescape") for label in read.topic.labels]
    scores = _field_texts(check.input, 4).take(arrow_of(rows)).to_pylist() if len(rows) else []
    docnos = read.docno.take(arrow_of(rows)).to_pylist() if len(rows) else []
    return b"".join(b"%s Q0 %s %d %s %s\n" % (topics[t], d, r, s, runtag)
                    for t, d, r, s in zip(read.topic.codes[rows].tolist(), docnos, rank.tolist(), scores))
