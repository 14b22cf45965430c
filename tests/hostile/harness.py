"""Hostile input for the property-based suite (issue 16): how to run both commands in-process under a
time limit, what every outcome must look like, and hypothesis strategies that mutate real lines and
generate hostile ones.

The properties (see tests/hostile/test_properties.py):
* outcome: exit 0 with a well-formed CSV whose every value is in its measure's range, or the error
  status (2 natively, 1 in the drop-in) with ``FILE:LINE:`` (``FILE:`` for a whole-file problem) on
  stderr, naming an input and a line it has, and nothing on stdout;
* never a traceback, never a hang (each case runs under ``TIME_LIMIT`` seconds of SIGALRM).

Nothing here computes a measure: the ranges come from docs/worked-examples.md sec. 1, the numbers C
would read from the C library itself (ctypes), and the rest from the text of the inputs.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gzip
import io
import math
import re
import resource
import signal
import subprocess
import sys
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from conftest import NDEVAL_EXAMPLES, ROOT, SAMPLE

NDEVAL_EXAMPLES_QRELS = NDEVAL_EXAMPLES / "qrels.txt"
NDEVAL_EXAMPLES_RUN = NDEVAL_EXAMPLES / "runA.txt"
TIME_LIMIT = 10.0  # seconds for one in-process case; a hang fails the case, not the suite
NATIVE, DROPIN = "native", "ndeval"
COMMANDS = (NATIVE, DROPIN)
ERROR_STATUS = {NATIVE: 2, DROPIN: 1}

# ndeval's 21 columns (docs/worked-examples.md sec. 1), written out here rather than taken from divaleval.
NDEVAL_COLUMNS = (
    [f"{name}@{k}" for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)]
    + ["NRBP", "nNRBP", "MAP-IA"]
    + [f"{name}@{k}" for name in ("P-IA", "strec") for k in (5, 10, 20)]
)
# Bounded by 1 (docs/worked-examples.md sec. 1: ERR-IA and alpha-DCG are normalised by an "ideal-ideal"
# that covers every intent at every rank, so each intent's share is at most its ideal-ideal share; P-IA
# counts at most k N pairs; strec at most N intents; MAP-IA averages APs; NRBP's per-intent sum is at
# most 1/(1-(1-alpha)beta)). nERR-IA, alpha-nDCG and nNRBP divide by the greedy ideal, which is not
# optimal: they may exceed 1 and are only bounded below.
AT_MOST_ONE = {"ERR-IA", "alpha-DCG", "P-IA", "strec", "MAP-IA", "NRBP"}


# -- running a command in this process ---------------------------------------------------------

class Hang(Exception):
    """A case ran past its time limit."""


@contextmanager
def time_limit(seconds: float = TIME_LIMIT):
    """Raise Hang in the main thread after ``seconds`` (SIGALRM): a hang fails the case, not the suite."""
    def expire(_signum, _frame):
        raise Hang(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    """What one invocation did."""

    command: str                     # NATIVE or DROPIN
    argv: list[str]                  # as given to `divaleval`
    status: int | None               # exit status (None: hung or raised)
    stdout: bytes = b""
    stderr: str = ""
    traceback: str | None = None     # an exception that escaped the command
    hung: bool = False

    def describe(self) -> str:
        return (f"divaleval {_clip(' '.join(self.argv))!r}: status {self.status}, hung {self.hung}\n"
                f"--- stdout\n{_clip(repr(self.stdout))}\n--- stderr\n{_clip(self.stderr)}"
                + (f"\n--- traceback\n{_clip(self.traceback)}" if self.traceback else ""))


def _clip(text: str, keep: int = 1000) -> str:
    """The start and the end of a long text (a message may quote a 300 KB field)."""
    return text if len(text) <= 2 * keep else f"{text[:keep]} [... {len(text) - 2 * keep} characters ...] {text[-keep:]}"


def _status(code) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1  # sys.exit("message") exits 1


def invoke(command: str, args: list[str], stdin: bytes = b"") -> Outcome:
    """``divaleval ARGS`` (native) or ``divaleval ndeval ARGS`` (drop-in) in this process.

    Goes through divaleval.cli.main, the console script's entry point, with the three standard
    streams replaced by byte buffers (UTF-8 text over them, as on a UTF-8 terminal), so encoding
    problems surface as they would for a user.
    """
    from divaleval import cli

    argv = ([] if command == NATIVE else ["ndeval"]) + [str(a) for a in args]
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    outcome = Outcome(command, argv, None)
    try:
        with time_limit():
            cli.main(argv)
        outcome.status = 0
    except SystemExit as exc:
        outcome.status = _status(exc.code)
    except Hang:
        outcome.hung = True
    except BaseException:  # noqa: BLE001  (anything escaping is what the suite looks for)
        outcome.traceback = traceback.format_exc()
    finally:
        wrappers = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            try:
                wrapper.flush()
                wrapper.detach()  # so that collecting the wrapper does not close the buffer
            except (ValueError, OSError, AttributeError):
                pass
    outcome.stdout = out.getvalue()
    outcome.stderr = err.getvalue().decode("utf-8", "replace")
    return outcome


# -- what every outcome must look like ---------------------------------------------------------

def line_count(content: bytes) -> int:
    """Lines of a file: as wc -l counts them (plus an unterminated last one), or as \\r ends them."""
    by_newline = content.count(b"\n") + (1 if content and not content.endswith(b"\n") else 0)
    return max(by_newline, len(content.splitlines()))


def located(stderr: str, inputs: dict[str, bytes]) -> list[tuple[str, int | None]]:
    """Every ``NAME:LINE: `` or ``NAME: `` naming one of the inputs on stderr, warnings left out."""
    errors = "\n".join(line for line in stderr.splitlines() if ": warning: " not in line)
    found = []
    for name in inputs:
        for match in re.finditer(re.escape(name) + r":(?:(\d+):)? ", errors):
            found.append((name, int(match.group(1)) if match.group(1) else None))
    return found


def check_error(outcome: Outcome, inputs: dict[str, bytes], line: tuple[str, int] | None = None) -> None:
    """An error exit: its status, nothing on stdout, and a message naming an input and a line it has.

    inputs: the names the command was given (``<stdin>`` for ``-``) -> their bytes.
    line: the (name, line) the message must name, where the case knows it.
    """
    where = located(outcome.stderr, inputs)
    assert outcome.stdout == b"", "output on stdout with an error status\n" + outcome.describe()
    assert where, "the message names no input as FILE:LINE: or FILE:\n" + outcome.describe()
    for name, number in where:
        if number is not None:
            assert 1 <= number <= line_count(inputs[name]), \
                f"{name} has no line {number}\n" + outcome.describe()
    if line is not None:
        assert line in where, f"the message does not name {line[0]}:{line[1]}\n" + outcome.describe()


def check_sound(outcome: Outcome) -> None:
    """No hang, no exception escaping, no traceback on stderr."""
    assert not outcome.hung, "hang\n" + outcome.describe()
    assert outcome.traceback is None, "an exception escaped\n" + outcome.describe()
    assert "Traceback" not in outcome.stderr, "a traceback on stderr\n" + outcome.describe()


def check_outcome(outcome: Outcome, inputs: dict[str, bytes], options: list[str] | None = None) -> list | None:
    """The outcome property; returns the parsed CSV rows on success, None on an error exit."""
    check_sound(outcome)
    error = ERROR_STATUS[outcome.command]
    assert outcome.status in (0, error), f"exit status {outcome.status}, not 0 or {error}\n" + outcome.describe()
    if outcome.status == error:
        check_error(outcome, inputs)
        return None
    return check_csv(outcome, options or [])


@dataclass
class Row:
    prefix: str          # "runid,topic"
    values: list[str]    # as printed
    mean: bool

    def number(self, column: str) -> float:
        return float(self.values[NDEVAL_COLUMNS.index(column)])


def check_csv(outcome: Outcome, options: list[str]) -> list[Row]:
    """ndeval's CSV: the header, per-topic rows, each run closed by an ``amean`` row; values in range."""
    text = outcome.stdout.decode("utf-8", "surrogateescape")
    assert text.endswith("\n"), "output does not end with a newline\n" + outcome.describe()
    lines = text[:-1].split("\n")
    assert lines[0] == ",".join(["runid", "topic", *NDEVAL_COLUMNS]), "bad header\n" + outcome.describe()
    rows = []
    for line in lines[1:]:
        parts = line.rsplit(",", len(NDEVAL_COLUMNS))
        assert len(parts) == len(NDEVAL_COLUMNS) + 1 and "," in parts[0], \
            f"malformed row {line!r}\n" + outcome.describe()
        rows.append(Row(parts[0], parts[1:], parts[0].endswith(",amean")))
    assert rows and rows[-1].mean, "no closing amean row\n" + outcome.describe()
    block: list[Row] = []
    for row in rows:
        if not row.mean:
            block.append(row)
            continue
        # A mean over zero topics is no mean (issue 16: "print no fake mean").
        assert block, f"an amean row with no topic row before it: {row.prefix}\n" + outcome.describe()
        _check_block(outcome, block, row, options)
        block = []
    return rows


def _allowed_nan(command: str, column: str, row: Row, topics: list[Row], options: list[str]) -> bool:
    """Where ndeval itself prints -nan (docs/worked-examples.md sec. 1; ndeval edge cases E5, E6): the drop-in
    only."""
    if command != DROPIN:
        return False
    if column == "nNRBP":
        if not row.mean:
            return row.number("NRBP") == 0.0  # a topic without a relevant document: 0/0
        if any(math.isnan(topic.number("nNRBP")) for topic in topics):
            return True
    # No run topic in the qrels: every topic row is a zero row, the mean divides by 0 (not with -c).
    return row.mean and "-c" not in options and all(
        all(v in ("0.000000", "-nan") for v in topic.values) for topic in topics)


def _check_block(outcome: Outcome, topics: list[Row], mean: Row, options: list[str]) -> None:
    for row in [*topics, mean]:
        for column, text in zip(NDEVAL_COLUMNS, row.values):
            try:
                value = float(text)
            except ValueError:
                raise AssertionError(f"{column} = {text!r} is not a number\n" + outcome.describe()) from None
            if math.isnan(value):
                assert text == "-nan" and _allowed_nan(outcome.command, column, row, topics, options), \
                    f"{column} = {text} in row {row.prefix}\n" + outcome.describe()
                continue
            assert math.isfinite(value) and value >= 0, \
                f"{column} = {text} in row {row.prefix}\n" + outcome.describe()
            if column.split("@")[0] in AT_MOST_ONE:
                assert value <= 1, f"{column} = {text} > 1 in row {row.prefix}\n" + outcome.describe()


# -- the C library: what ndeval's sscanf reads ---------------------------------------------------

@lru_cache(maxsize=1)
def libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or None)


def c_scan_double(text: str | bytes) -> float | None:
    """``sscanf(text, "%lf", &x)``: x, or None when sscanf reads nothing (ndeval's -alpha, -beta, score)."""
    value = ctypes.c_double()
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
    return value.value if libc().sscanf(raw, b"%lf", ctypes.byref(value)) == 1 else None


def c_scan_int(text: str | bytes) -> int | None:
    """``sscanf(text, "%d", &x)``: x, or None (ndeval's -M)."""
    value = ctypes.c_int()
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
    return value.value if libc().sscanf(raw, b"%d", ctypes.byref(value)) == 1 else None


def natural_number(text: bytes) -> int | None:
    """ndeval's naturalNumber() (ndeval.c, read for the fact): ASCII digits only, refused once the
    value read so far exceeds 100000 before another digit; None where ndeval returns -1."""
    if not text:
        return None
    value = 0
    for byte in text:
        if not 0x30 <= byte <= 0x39:
            return None
        if value > 100000:
            return None
        value = 10 * value + byte - 0x30
    return value


# -- real lines --------------------------------------------------------------------------------

@dataclass
class Corpus:
    """A qrels file and runs for it, as lines (bytes, without their newline, blank lines left out)."""

    name: str
    qrels: list[bytes]
    runs: list[list[bytes]]
    topics: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.topics = sorted({line.split()[0] for line in self.qrels if line.split()})


def _lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().splitlines() if line.strip()]


@lru_cache(maxsize=None)
def corpora() -> tuple[Corpus, ...]:
    """The project's own real lines: sample_data/ and tests/data/ndeval/examples."""
    return (
        Corpus("sample", _lines(SAMPLE / "qrels.txt"),
               [_lines(p) for p in sorted((SAMPLE / "runs").iterdir())]),
        Corpus("examples", _lines(NDEVAL_EXAMPLES / "qrels.txt"),
               [_lines(NDEVAL_EXAMPLES / "runA.txt"), _lines(NDEVAL_EXAMPLES / "runB.txt")]),
        Corpus("mini", _lines(NDEVAL_EXAMPLES / "qrels_mini.txt"), [_lines(NDEVAL_EXAMPLES / "run_mini.txt")]),
    )


@lru_cache(maxsize=None)
def trec2012_corpus(root: Path) -> Corpus:
    """TREC Web 2012: the qrels ndeval reads and the organisers' four baselines."""
    runs = sorted(root.glob("baseline-runs/*/results-cat*.txt"))
    return Corpus("trec2012", _lines(root / "qrels-for-ndeval.txt"), [_lines(p) for p in runs])


def for_ndeval(line: bytes) -> bytes:
    """A qrels line ndeval reads: its negative judgments (TREC's -2, junk) written as 0, as ndeval refuses
    a sign (oracle/ndeval/edge E1); the mutations then start from lines both commands accept."""
    fields = line.split()
    if fields[3].startswith(b"-"):
        fields[3] = b"0"
    return b" ".join(fields)


@st.composite
def real_case(draw, corpus_strategy, command: str, max_run_lines: int = 40):
    """Qrels and run lines for one to three topics of a real corpus (the run's first lines per topic)."""
    corpus = draw(corpus_strategy)
    run = draw(st.sampled_from(corpus.runs))
    run_topics = sorted({line.split()[0] for line in run})
    # At least one topic in common with the qrels (a run with none is its own test).
    first = draw(st.sampled_from([topic for topic in run_topics if topic in corpus.topics]))
    others = draw(st.lists(st.sampled_from(run_topics), max_size=2, unique=True))
    topics = [first, *(topic for topic in others if topic != first)]
    # Sometimes a qrels topic the run lacks, or a run topic the qrels lack (real files have both).
    qrels_topics = set(topics) | set(draw(st.lists(st.sampled_from(corpus.topics), max_size=1)))
    qrels = [line for line in corpus.qrels if line.split()[0] in qrels_topics]
    if command == DROPIN:
        qrels = [for_ndeval(line) for line in qrels]
    per_topic = max_run_lines // len(topics)
    run_lines = []
    for topic in topics:
        run_lines += [line for line in run if line.split()[0] == topic][:per_topic]
    return list(qrels), run_lines


# -- hostile tokens ----------------------------------------------------------------------------

UNICODE_DIGITS = "٠١٢٣٤٥٦٧٨٩۰۹०९０９𝟎𝟗¹²³½Ⅻ௧"
NUMBER_WORDS = ["inf", "-inf", "+inf", "INF", "Infinity", "-Infinity", "infinity", "nan", "NaN", "-nan",
                "+nan", "nan(123)", "NAN(abc)", "in", "infinit", "na", "e", "E5", ".", "-", "+", "+-1", "--1",
                "1e", "1e+", "1.2.3", "1,5", "1_000", "1__0", "_1", "1_", "0x10", "0X1p3", "0x", "0xg", "-0x1A",
                "0b101", "0o17", "1e999", "-1e999", "1e-999", "4.9e-324", "1.7976931348623157e308", "-0",
                "-0.0", "0.", ".5", "5.", "00", "007", "0007.50", "99.25abc", "1d", "1f", "1L", "١٠",
                "٩٩", "１２", "۳", "९", "𝟗", "²", "½", "Ⅻ", "12\u0301", "\u20071", "9999999999999999999",
                "18446744073709551616", "-9223372036854775809", "9223372036854775808",
                "99999999999999999999", "2147483648", "-2147483649", "1000009", "1000010", "100001",
                "1" * 400, "0." + "0" * 400 + "1", "L1", "L01", "L-1", "L+2", "Lx", "L", "L٣", "l1"]


@st.composite
def numbers(draw) -> str:
    """Hostile spellings of numbers: signs, underscores, Unicode digits, hex, exponents, inf/nan,
    20+ digit integers, leading zeros."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from(NUMBER_WORDS))
    sign = draw(st.sampled_from(["", "", "", "+", "-"]))
    digits_alphabet = draw(st.sampled_from(["0123456789", "0123456789", "0123456789_", UNICODE_DIGITS,
                                            "0123456789" + UNICODE_DIGITS]))
    integer = draw(st.text(digits_alphabet, min_size=0, max_size=draw(st.sampled_from([3, 8, 25, 60]))))
    if kind == 1:
        return sign + integer
    if kind == 2:
        zeros = "0" * draw(st.integers(1, 30))
        return sign + zeros + (integer or "1")
    if kind == 3:
        fraction = draw(st.text(digits_alphabet, max_size=12))
        exponent = draw(st.sampled_from(["", "e", "E", "e+", "e-", "e1", "e-5", "E+308", "e309", "e-400",
                                         "e99999999999999999999", "e٣"]))
        return f"{sign}{integer}.{fraction}{exponent}"
    if kind == 4:
        return sign + draw(st.sampled_from(["0x", "0X"])) + draw(st.text("0123456789abcdefABCDEFpP.+-", max_size=10))
    return sign + (integer or "1") + draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "+", "-"])) \
        + draw(st.text(digits_alphabet, max_size=4))


IDS = ["", "-", "amean", "Q0", "#", "'", '"', "\\", "%s", "%d%n", "None", "null", "wt09-1", "wt12-151", "q1",
       "1-", "-1", "topic 1", "é", "ß", "日本", "\u200b", "\u202e", "\ufeff", "a,b", "a;b", "a\"b", "🙂"]


def ids() -> st.SearchStrategy[str]:
    """Odd ids: Unicode, punctuation, invisible characters, commas (which the CSV prints raw)."""
    return st.one_of(st.sampled_from(IDS),
                     st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=" \t\n\r\x0b\x0c"),
                             min_size=1, max_size=12))


def tokens() -> st.SearchStrategy[bytes]:
    """A field's bytes: a hostile number, an odd id, a very long field, or raw bytes."""
    text = st.one_of(numbers(), ids()).map(lambda s: s.encode("utf-8"))
    return st.one_of(text, text, long_fields(), st.binary(min_size=1, max_size=8).map(lambda b: b or b"x"))


def long_fields() -> st.SearchStrategy[bytes]:
    """Fields around the 64 KiB a reader looks at first, and beyond."""
    return st.sampled_from([1000, 65535, 65536, 65537, 70000, 200000]).map(lambda n: b"d" * n)


# -- mutations of lines (bytes) ----------------------------------------------------------------

SEPARATORS = [b"\t", b"  ", b" \t ", b"\t\t", b"\x0b", b"\x0c", b"\r", b" \r ", b"\x00", b"\xc2\xa0", b"\x1c",
              b"\xe2\x80\x83", b"\xe2\x80\xa8", b"\x85", b",", b";", b" ,"]
HOSTILE_BYTES = [b"\xef\xbb\xbf", b"\x00", b"\xff", b"\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\x80", b"\xc0\xaf",
                 b"\xf4\x90\x80\x80", b"\xe9", b"\r", b"\x1b[31m", b"\xe2\x80\xae", b"\x7f", b"\x08"]
LINE_ENDINGS = [b"\n", b"\r\n", b"\r", b"\n\n", b"\n \n", b"\n\t\n", b"\n\x0c\n", b"\r\r\n"]


@dataclass
class FileText:
    """A file being mutated: its lines (without newline), the newline after each, and the final one."""

    lines: list[bytes]
    endings: list[bytes] = field(default_factory=list)
    final: bool = True
    head: bytes = b""  # written before the first line (a BOM, say)

    def __post_init__(self) -> None:
        self.endings = self.endings or [b"\n"] * len(self.lines)

    def render(self) -> bytes:
        parts = [self.head]
        for number, (line, ending) in enumerate(zip(self.lines, self.endings), start=1):
            parts.append(line)
            if number < len(self.lines) or self.final:
                parts.append(ending)
        return b"".join(parts)


def _fields(line: bytes) -> list[bytes]:
    return line.split() or [b""]


FIELD_MUTATIONS = ("replace", "delete", "insert", "empty", "duplicate", "many", "long")
NUMBER_MUTATIONS = ("number",)
ENCODING_MUTATIONS = ("bytes", "bom", "latin1")
SEPARATOR_MUTATIONS = ("separator", "separators", "ending", "endings", "indent", "trailing")
LENGTH_MUTATIONS = ("empty_file", "one_line", "long_line", "no_final_newline", "blank_lines", "truncate",
                    "drop_line", "repeat_line")
ALL_MUTATIONS = FIELD_MUTATIONS + NUMBER_MUTATIONS + ENCODING_MUTATIONS + SEPARATOR_MUTATIONS + LENGTH_MUTATIONS


def mutate(draw, text: FileText, kind: str, numeric_fields: tuple[int, ...]) -> None:
    """Apply one mutation of ``kind`` to ``text`` in place (draw: hypothesis's draw)."""
    if not text.lines and kind not in ("bom",):
        return
    i = draw(st.integers(0, max(len(text.lines) - 1, 0)))
    line = text.lines[i] if text.lines else b""
    fields = _fields(line)
    j = draw(st.integers(0, len(fields) - 1))
    if kind == "replace":
        fields[j] = draw(tokens())
    elif kind == "number":
        j = draw(st.sampled_from([f for f in numeric_fields if f < len(fields)] or [j]))
        fields[j] = draw(numbers()).encode("utf-8")
    elif kind == "delete":
        del fields[j]
    elif kind == "insert":
        fields.insert(draw(st.integers(0, len(fields))), draw(tokens()))
    elif kind == "empty":  # an empty field: two tabs in a tab-separated line
        fields[j] = b""
        text.lines[i] = b"\t".join(fields)
        return
    elif kind == "duplicate":
        fields.insert(j, fields[j])
    elif kind == "many":
        fields += [b"x"] * draw(st.sampled_from([1, 2, 10, 1000]))
    elif kind == "long":
        fields[j] = draw(long_fields())
    elif kind == "bytes":
        position = draw(st.integers(0, len(line)))
        text.lines[i] = line[:position] + draw(st.sampled_from(HOSTILE_BYTES)) + line[position:]
        return
    elif kind == "bom":
        text.head = b"\xef\xbb\xbf"
        return
    elif kind == "latin1":
        fields[j] = fields[j] + "é".encode("latin-1")
    elif kind == "separator":
        gaps = [draw(st.sampled_from([b" ", *SEPARATORS])) for _ in fields[1:]]
        text.lines[i] = fields[0] + b"".join(g + f for g, f in zip(gaps, fields[1:]))
        return
    elif kind == "separators":  # every line of the file
        sep = draw(st.sampled_from(SEPARATORS))
        text.lines = [sep.join(_fields(each)) for each in text.lines]
        return
    elif kind == "ending":
        text.endings[i] = draw(st.sampled_from(LINE_ENDINGS))
        return
    elif kind == "endings":
        ending = draw(st.sampled_from(LINE_ENDINGS))
        text.endings = [ending] * len(text.lines)
        return
    elif kind == "indent":
        text.lines[i] = draw(st.sampled_from([b" ", b"\t", b"\x0b", b"\x0c", b"  \t"])) + line
        return
    elif kind == "trailing":
        text.lines[i] = line + draw(st.sampled_from([b" ", b"\t", b"\r", b"\x0b", b"\x0c", b" \r"]))
        return
    elif kind == "empty_file":
        text.lines, text.endings = [], []
        return
    elif kind == "one_line":
        text.lines, text.endings = [text.lines[i]], [text.endings[i]]
        return
    elif kind == "long_line":
        fields[j] = fields[j] + b"x" * draw(st.sampled_from([65536, 70000, 300000]))
    elif kind == "no_final_newline":
        text.final = False
        return
    elif kind == "blank_lines":
        text.lines.insert(i, draw(st.sampled_from([b"", b" ", b"\t", b"\r", b"\x0c"])))
        text.endings.insert(i, b"\n")
        return
    elif kind == "truncate":
        text.lines[i] = line[:draw(st.integers(0, len(line)))]
        return
    elif kind == "drop_line":
        del text.lines[i], text.endings[i]
        return
    elif kind == "repeat_line":
        text.lines.insert(i, line)
        text.endings.insert(i, b"\n")
        return
    else:
        raise ValueError(kind)
    text.lines[i] = b" ".join(fields)


QRELS_NUMERIC = (0, 1, 3)   # topic, intent, judgment (numbers in ndeval; the judgment natively)
RUN_NUMERIC = (0, 3, 4)     # topic, rank, score


@st.composite
def mutated_files(draw, case_strategy, kinds: tuple[str, ...], max_mutations: int = 3):
    """(qrels bytes, run bytes): real lines with one to ``max_mutations`` mutations of the given kinds."""
    qrels_lines, run_lines = draw(case_strategy)
    qrels, run = FileText(list(qrels_lines)), FileText(list(run_lines))
    for _ in range(draw(st.integers(1, max_mutations))):
        target, numeric = draw(st.sampled_from([(qrels, QRELS_NUMERIC), (run, RUN_NUMERIC), (run, RUN_NUMERIC)]))
        mutate(draw, target, draw(st.sampled_from(kinds)), numeric)
    return qrels.render(), run.render()


@st.composite
def one_run_mutated(draw, case_strategy, kinds: tuple[str, ...] = ALL_MUTATIONS):
    """(qrels bytes, the run's bytes as they are, the run's bytes with one to three mutations)."""
    qrels_lines, run_lines = draw(case_strategy)
    run = FileText(list(run_lines))
    for _ in range(draw(st.integers(1, 3))):
        mutate(draw, run, draw(st.sampled_from(kinds)), RUN_NUMERIC)
    return FileText(list(qrels_lines)).render(), FileText(list(run_lines)).render(), run.render()


@st.composite
def generated_files(draw):
    """(qrels bytes, run bytes) built from scratch: lines of hostile tokens, some well-formed."""
    def line(width: int, numeric: tuple[int, ...]) -> bytes:
        count = draw(st.sampled_from([width, width, width, 0, 1, width - 1, width + 1, width + 5]))
        fields = []
        for j in range(count):
            if j in numeric and draw(st.booleans()):
                fields.append(str(draw(st.integers(0, 30))).encode())
            else:
                fields.append(draw(tokens()))
        gap = draw(st.sampled_from([b" ", b" ", b"\t", *SEPARATORS]))
        return gap.join(fields)

    qrels = FileText([line(4, QRELS_NUMERIC) for _ in range(draw(st.integers(0, 6)))])
    run = FileText([line(6, RUN_NUMERIC) for _ in range(draw(st.integers(0, 6)))])
    for text in (qrels, run):
        if draw(st.booleans()):
            mutate(draw, text, draw(st.sampled_from(ENCODING_MUTATIONS + SEPARATOR_MUTATIONS + LENGTH_MUTATIONS)), ())
    return qrels.render(), run.render()


# -- options -----------------------------------------------------------------------------------

NATIVE_OPTIONS = [[], [], ["-c"], ["--order", "rank"], ["--order", "file"], ["-M", "3"], ["--dedupe"],
                  ["-c", "--order", "rank", "--dedupe"]]
DROPIN_OPTIONS = [[], [], ["-traditional"], ["-c"], ["-M", "5"], ["-c", "-traditional"], ["-M", "2", "-traditional"]]


def options(command: str) -> st.SearchStrategy[list[str]]:
    return st.sampled_from(NATIVE_OPTIONS if command == NATIVE else DROPIN_OPTIONS)


# -- hypothesis profiles -----------------------------------------------------------------------

def profile(examples: int, shrink: bool = False) -> settings:
    """Reproducible settings: derandomised, no example database, no deadline (the time limit is ours).

    The default profile does not shrink (a failure is reported as found, quickly); the long one does.
    """
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else [])
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None, phases=phases,
                    suppress_health_check=list(HealthCheck), print_blob=False)


def sizes(default: int, long: int):
    """The two profiles of a test: `default` cases in `make test`, `long` under `-m long`."""
    return [pytest.param(profile(default), id="default"),
            pytest.param(profile(long, shrink=True), id="long", marks=pytest.mark.long)]


# -- the real command line, in a subprocess ----------------------------------------------------

MEMORY_LIMIT = 3 << 30  # bytes of address space for a subprocess case: a huge allocation fails, not the machine


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def subprocess_case(command: str, args: list[str], stdin: bytes | None = None, timeout: float = 30) -> Outcome:
    """``python -m divaleval ARGS`` (``ndeval ARGS`` for the drop-in), memory-limited, under ``timeout``."""
    argv = ([] if command == NATIVE else ["ndeval"]) + [str(a) for a in args]
    outcome = Outcome(command, argv, None)
    try:
        done = subprocess.run([sys.executable, "-m", "divaleval", *argv], input=stdin or b"", capture_output=True,
                              timeout=timeout, preexec_fn=limited, cwd=ROOT)
    except subprocess.TimeoutExpired as exc:
        outcome.hung = True
        outcome.stdout, outcome.stderr = exc.stdout or b"", (exc.stderr or b"").decode("utf-8", "replace")
        return outcome
    outcome.status, outcome.stdout = done.returncode, done.stdout
    outcome.stderr = done.stderr.decode("utf-8", "replace")
    return outcome


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)
