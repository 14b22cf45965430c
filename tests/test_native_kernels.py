"""The compiled kernels (divaleval/native) against the paths they accelerate: the same results, or a decline.

Each kernel must give exactly what its numpy/Arrow path gives, or return None and leave the input to
that path. Here every input is read both ways (``DIVALEVAL_NATIVE=0`` turns the kernels off) and the
results compared value for value and bit for bit: blocks of lines split into fields (io/lines.py), run
files split (io/runs.py, io/table.py), keys matched (model/text_keys.py), rows of numbers printed
(output/formatting.py, against Python's own ``%.*f``). Where the extension is not built the module is skipped, unless
``DIVALEVAL_REQUIRE_NATIVE=1`` (CI) says it must be: then one test fails.
"""
from __future__ import annotations

import contextlib
import math
import os
import random
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from divaleval import native
from divaleval.errors import InputError
from divaleval.io import lines as lines_module
from divaleval.io import table as table_module
from divaleval.io.lines import C_DIALECT, C_SPACE, Dialect, split_block
from divaleval.io.qrels import read_qrels
from divaleval.io.runs import read_run
from divaleval.io.source import read_input
from divaleval.model.text_keys import KeyTable, TextKeys, _compiled_matched_keys, matched_keys
from divaleval.output.formatting import c_fixed_rows

REQUIRED = os.environ.get("DIVALEVAL_REQUIRE_NATIVE") == "1"
NOT_BUILT = "the compiled kernels (divaleval/native/*.c) are not built here: nothing to compare"
if not native.built() and not REQUIRED:
    pytest.skip(NOT_BUILT, allow_module_level=True)


def test_the_extension_is_built_where_it_is_required():
    """CI sets DIVALEVAL_REQUIRE_NATIVE=1: a build that failed must not pass by skipping this module."""
    assert native.built(), "DIVALEVAL_REQUIRE_NATIVE=1, but divaleval.native._kernels did not import " \
                           "(build it with `pip install -e .` where a C compiler is found)"


@pytest.fixture(autouse=True)
def _kernels_built(request):
    if not native.built() and request.node.originalname != "test_the_extension_is_built_where_it_is_required":
        pytest.skip(NOT_BUILT)


@contextlib.contextmanager
def kernels_on(on: bool):
    """DIVALEVAL_NATIVE set for the block (read on every call), then put back as it was."""
    before = os.environ.get(native.ENVIRONMENT)
    os.environ[native.ENVIRONMENT] = "1" if on else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[native.ENVIRONMENT]
        else:
            os.environ[native.ENVIRONMENT] = before


def compiled():
    """The compiled kernels, turned on whatever DIVALEVAL_NATIVE says outside."""
    with kernels_on(True):
        return native.kernels()


def split(data: bytes):
    """The kernel's own answer for these bytes (None: it declines)."""
    return compiled().split_run(data)


# -- reading runs -------------------------------------------------------------------------------------

def read_outcome(path, on: bool):
    """read_run both ways: ("error", message) or ("run", table, whether the Python reader's careful path ran)."""
    with kernels_on(on), mock.patch.object(table_module, "_careful_split", wraps=table_module._careful_split) as careful:
        try:
            run = read_run(str(path))
        except InputError as error:
            return "error", str(error), careful.called
    return "run", run, careful.called


def assert_same_reading(path):
    """Both readers give the same table (or the same error) for the file at ``path``; the native outcome."""
    data = path.read_bytes()
    taken = split(data) is not None
    compiled, python = read_outcome(path, True), read_outcome(path, False)
    assert compiled[0] == python[0], (data, compiled, python)
    if compiled[0] == "error":
        assert compiled[1] == python[1], data
        return compiled
    a, b = compiled[1], python[1]
    assert a.name == b.name and a.runid == b.runid, data
    assert a.topic.values().tolist() == b.topic.values().tolist(), data
    assert a.docno.to_pylist() == b.docno.to_pylist(), data
    assert a.rank.tolist() == b.rank.tolist(), data
    assert a.score.dtype == b.score.dtype == np.float64, data
    assert a.score.view(np.int64).tolist() == b.score.view(np.int64).tolist(), data  # bits: -0.0, every ulp
    assert np.asarray(a.line).tolist() == np.asarray(b.line).tolist(), data
    assert np.asarray(a.line).dtype == np.asarray(b.line).dtype, data
    assert a.extra_fields == b.extra_fields, data
    assert a.rank_out_of_range == b.rank_out_of_range, data
    assert a.rank.dtype == b.rank.dtype, data  # int32 where every rank fits, on every path
    return compiled


def line(*fields: bytes | str, sep: bytes = b" ") -> bytes:
    return sep.join(f if isinstance(f, bytes) else f.encode() for f in fields) + b"\n"


TAKEN, DECLINED = True, False

# (id, bytes, whether the kernel takes them): each read both ways.
FILES = [
    ("space", line("1", "Q0", "d1", "1", "2.5", "run") + line("1", "Q0", "d2", "2", "1.5", "run"), TAKEN),
    ("tab", line("1", "Q0", "d1", "1", "2.5", "run", sep=b"\t") + line("1", "Q0", "d2", "2", "1", "run", sep=b"\t"),
     TAKEN),
    ("no newline at the end", line("1", "Q0", "d1", "1", "2.5", "r") + b"1 Q0 d2 2 1.5 r", TAKEN),
    ("one line", b"7 Q0 doc 1 0.5 tag\n", TAKEN),
    ("one line without newline", b"7 Q0 doc 1 0.5 tag", TAKEN),
    ("seven fields on every line", b"1 Q0 a 1 1 r x\n1 Q0 b 2 0.5 r y\n", TAKEN),
    ("eight fields on every line, tab", b"1\tQ0\ta\t1\t1\tr\tx\ty\n1\tQ0\tb\t2\t0.5\tr\tx\ty\n", TAKEN),
    ("seven fields on the first line only", b"1 Q0 a 1 1 r x\n1 Q0 b 2 0.5 r\n", TAKEN),
    ("eight fields on a later line", b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r x y\n", TAKEN),
    ("interleaved topics", b"b Q0 x 1 3 r\na Q0 x 1 3 r\nb Q0 y 2 2 r\nc Q0 x 1 1 r\na Q0 z 2 1 r\n", TAKEN),
    ("docno bytes", b"1 Q0 d\x00\x01\x7f\x80\xff\xc3\xa9 1 1 r\n1 Q0 \xff 2 0.5 r\n", TAKEN),
    ("topic with a control byte and NUL", b"t\x01\x00 Q0 d 1 1 r\nt\x01 Q0 d 1 1 r\n", TAKEN),
    ("topic not UTF-8", b"t\xff Q0 d 1 1 r\nu\xc3\xa9 Q0 d 1 1 r\nt\xff Q0 e 2 0.5 r\n", TAKEN),
    ("runtag not UTF-8", b"1 Q0 d 1 1 r\xfe\xff\n1 Q0 e 2 0.5 other\n", TAKEN),
    ("runtag differs per line", b"1 Q0 d 1 1 first\n1 Q0 e 2 0.5 second\n", TAKEN),
    ("docno of 5 MB", b"1 Q0 " + b"x" * (5 << 20) + b" 1 1 r\n1 Q0 y 2 0.5 r\n", TAKEN),
    ("CR line ends", b"1 Q0 d 1 1 r\r\n1 Q0 e 2 0.5 r\r\n", DECLINED),
    ("a lone CR", b"1 Q0 d 1 1 r\n1 Q0 e\r2 0.5 r\n", DECLINED),
    ("vertical tab", b"1 Q0 d 1 1 r\n1 Q0 e\x0b2 0.5 r\n", DECLINED),
    ("form feed in a docno", b"1 Q0 d 1 1 r\n1 Q0 e\x0cf 2 0.5 r\n", DECLINED),
    ("double separator", b"1 Q0 d 1 1 r\n1  Q0 e 2 0.5 r\n", DECLINED),
    ("double tab", b"1\tQ0\td\t1\t1\tr\n1\tQ0\t\te\t2\t0.5\tr\n", DECLINED),
    ("leading separator", b" 1 Q0 d 1 1 r\n", DECLINED),
    ("leading separator later", b"1 Q0 d 1 1 r\n 1 Q0 e 2 0.5 r\n", DECLINED),
    ("trailing separator", b"1 Q0 d 1 1 r \n", DECLINED),
    ("trailing tab", b"1\tQ0\td\t1\t1\tr\t\n", DECLINED),
    ("blank line in the middle", b"1 Q0 d 1 1 r\n\n1 Q0 e 2 0.5 r\n", DECLINED),
    ("blank line at the end", b"1 Q0 d 1 1 r\n\n", DECLINED),
    ("blank lines at the start", b"\n\n1 Q0 d 1 1 r\n", DECLINED),
    ("only a newline", b"\n", DECLINED),
    ("only spaces", b"   \n", DECLINED),
    ("BOM", b"\xef\xbb\xbf1 Q0 d 1 1 r\n1 Q0 e 2 0.5 r\n", DECLINED),
    ("empty", b"", DECLINED),
    ("five fields", b"1 Q0 d 1 1\n", DECLINED),
    ("five fields on a later line", b"1 Q0 d 1 1 r\n1 Q0 e 2 0.5\n", DECLINED),
    ("one field", b"x\n", DECLINED),
    ("mixed space and tab in a line", b"1 Q0\td 1 1 r\n", DECLINED),
    ("tab lines then a space line", b"1\tQ0\td\t1\t1\tr\n1 Q0 e 2 0.5 r\n", DECLINED),
    ("space lines then a tab line", b"1 Q0 d 1 1 r\n1\tQ0\te\t2\t0.5\tr\n", DECLINED),
    ("a tab inside a space-separated docno", b"1 Q0 d 1 1 r\n1 Q0 e\tf 2 0.5 r\n", DECLINED),
    ("a space inside a tab-separated docno", b"1\tQ0\td\t1\t1\tr\n1\tQ0\te f\t2\t0.5\tr\n", DECLINED),
    ("no separator", b"abcdef\n", DECLINED),
]


@pytest.mark.parametrize("data,taken", [case[1:] for case in FILES], ids=[case[0] for case in FILES])
def test_awkward_files_read_alike(tmp_path, data, taken):
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert (split(data) is not None) == taken, "the kernel must take plain files and decline the others"
    assert_same_reading(path)


@pytest.mark.parametrize("data", [
    pytest.param(b"t\xff Q0 d 1 1 r\n", id="topic not UTF-8"),
    pytest.param(b"1 Q0 a 1 1 r x\n1 Q0 b 2 0.5 r\n", id="extra fields on some lines"),
    pytest.param(b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r x y\n", id="eight fields on a later line"),
])
def test_rank_dtype_where_the_python_reader_takes_its_careful_path(tmp_path, data):
    """Ranks are int32 where they all fit, whichever reader read them (the careful path narrows them too)."""
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert split(data) is not None
    compiled, python = read_outcome(path, True), read_outcome(path, False)
    assert python[2], "the Python reader took its careful path"
    assert compiled[1].rank.tolist() == python[1].rank.tolist()
    assert compiled[1].rank.dtype == python[1].rank.dtype, (compiled[1].rank.dtype, python[1].rank.dtype)


# Scores: every form a C program or a script writes, and the forms the kernel must leave to the Python path.
PLAIN_SCORES = [
    "0", "1", "-1", "+1", "+1.5", "-2.25", "007", "-007.50", "5.", "-5.", ".5", "-.5", "+.5", "0.5", "00.500",
    "1e5", "1E5", "1e+5", "1e-5", "1E-05", "-1.5e+3", "+.5e-3", "5.e2", "1.5e0001", "0e999", "0e-999", "-0e5",
    "-0", "-0.0", "+0", "0.0", "000", "1e-30", "1e22", "1e23", "-1e-22", "9007199254740992", "9007199254740993",
    "123456789012345678", "1234567890123456789", "123456789012345678901", "1234567890123456789012345",
    "0.1234567890123456789", "0.123456789012345", "0.1234567890123456", "0.12345678901234567890123",
    "1.00000000000000000000001", "0.30000000000000004", "2.2250738585072014e-308", "1.7976931348623157e308",
    "4.4501477170144023e-308", "1e-300", "1e300", "123.456e-7", "0.000000000000000000000000000001",
    "100000000000000000000000000000000000000000000000000000000000000",  # 63 bytes: still strtod's
    "9.999999999999999e22", "8.98846567431158e307", "3.141592653589793238462643383279",
    "0.1000000000000000055511151231257827", "0.10000000000000000555111512312578271",
    # Runs of eight digits and more, read eight at a time, on either side of the point and among leading zeros:
    "12345678.87654321", "99999999999999999.5", "1.2345678901234567", "-00000000.000000001234",
    "0.0000000000000000001", "87654321", "1234567812345678", "12345678901234567890.5", "0.99999999",
]
OTHER_SCORES = [
    "1e400", "-1e400", "1e-400", "1e-310", "4.9e-324", "5e-324", "2.2250738585072011e-308", "1.7976931348623159e308",
    "inf", "-inf", "Inf", "INF", "Infinity", "-infinity", "nan", "NaN", "-nan", "0x10", "0x1p3", "1e", "1e+", "e5",
    ".", "-", "+", "+-1", "--1", "1.2.3", "1e5.0", "1,5", "1_000", "\u0661", "1d5", "0" * 70 + "1",
    "1" + "0" * 70, "0." + "1" * 70,
]
RANKS_TAKEN = ["1", "0", "-0", "+7", "-3", "007", "+007", "2147483647", "2147483648", "-2147483648",
               "-2147483649", "4294967296", "123456789012345678", "-123456789012345678", "999999999999999999"]
RANKS_DECLINED = ["1234567890123456789", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                  "-9223372036854775809", "99999999999999999999", "1234567890123456789012345",
                  "-1234567890123456789012345", "-", "+", "1.0", "1e3", "0x10", "+-1", "1_0", "\u0661"]


def is_plain_real(token: str) -> bool:
    import re

    return re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", token, re.ASCII) is not None


@pytest.mark.parametrize("sep", [b" ", b"\t"], ids=["space", "tab"])
@pytest.mark.parametrize("score", PLAIN_SCORES + OTHER_SCORES)
def test_every_score_form_reads_alike(tmp_path, score, sep):
    data = line("1", "Q0", "d1", "1", "0.5", "r", sep=sep) + line("1", "Q0", "d2", "2", score, "r", sep=sep)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    outcome = assert_same_reading(path)
    if score in PLAIN_SCORES:
        assert split(data) is not None, "a plain decimal in range is the kernel's"
    if split(data) is not None:
        assert is_plain_real(score)  # nothing but the plain form is taken
        # The reference of references: Python's own correctly rounded reading, bit for bit.
        assert outcome[1].score.view(np.int64)[1] == np.float64(float(score)).view(np.int64)


@pytest.mark.parametrize("rank", RANKS_TAKEN + RANKS_DECLINED)
def test_every_rank_form_reads_alike(tmp_path, rank):
    data = line("1", "Q0", "d1", rank, "1", "r") + line("1", "Q0", "d2", "5", "0.5", "r")
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    outcome = assert_same_reading(path)
    assert (split(data) is not None) == (rank in RANKS_TAKEN)
    if rank in RANKS_TAKEN:
        assert outcome[1].rank.tolist() == [int(rank), 5]
        fits = all(-2 ** 31 <= value < 2 ** 31 for value in (int(rank), 5))
        assert outcome[1].rank.dtype == (np.int32 if fits else np.int64)


def test_all_plain_forms_in_one_file(tmp_path):
    """Every plain score and taken rank on lines of one file, topics interleaved: taken, and read alike."""
    rng = random.Random(3)
    lines = [line(f"t{rng.randrange(7)}", "Q0", f"d{i}", rng.choice(RANKS_TAKEN), score, "run")
             for i, score in enumerate(PLAIN_SCORES * 3)]
    data = b"".join(lines)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert split(data) is not None
    assert_same_reading(path)


DOCNO_BYTES = [b"a", b"Z", b"0", b"-", b"_", b"/", b"\x00", b"\x01", b"\x1f", b"\x7f", b"\x80", b"\xff", b"\xc3\xa9",
               b"\xe2\x82\xac", b'"', b"'", b"#", b",", b"\\"]


def random_plain_run(rng: random.Random, topics: list[bytes]) -> bytes:
    """A run file of the plain form (one separator, six to eight fields, numbers of many forms)."""
    sep = rng.choice([b" ", b"\t"])
    width = rng.choice([6, 6, 7, 8, None])  # None: the width varies by line
    lines = []
    for i in range(rng.randint(1, 400)):
        topic = rng.choice(topics)
        docno = b"".join(rng.choice(DOCNO_BYTES) for _ in range(rng.randint(1, 12)))
        rank = rng.choice([str(i + 1), str(rng.randint(-2 ** 40, 2 ** 40)), rng.choice(RANKS_TAKEN),
                           f"+{i}", f"00{i}"])
        value = rng.choice([rng.random(), -rng.random() * 1e6, rng.random() * 10 ** rng.randint(-30, 30)])
        score = rng.choice([repr(value), "%.4f" % value, "%.17g" % value, "%.25g" % value, "%e" % value,
                            "%E" % value, str(rng.randint(-10 ** 6, 10 ** 6)), rng.choice(PLAIN_SCORES)])
        fields = [topic, b"Q0", docno, rank.encode(), score.encode(), b"run" + bytes([rng.choice(b"abc\xff")])]
        extra = (width or rng.choice([6, 7, 8])) - 6
        fields += [b"x%d" % j for j in range(extra)]
        lines.append(sep.join(fields) + b"\n")
    data = b"".join(lines)
    return data[:-1] if rng.random() < 0.2 else data


@pytest.mark.parametrize("seed", range(40))
def test_random_plain_runs_read_alike(tmp_path, seed):
    rng = random.Random(seed)
    many = [b"t%d" % j for j in range(rng.choice([1, 3, 350]))]  # up to 350 topics, interleaved
    topics = many + ([b"t\x01", b"\xff\xfe", b"\xc3\xa9t", b"t\x00x"] if seed % 2 else [])
    data = random_plain_run(rng, topics)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert split(data) is not None, "a plain file is the kernel's"
    assert_same_reading(path)


def test_many_topics_keep_their_first_seen_order(tmp_path):
    """More topics than the kernel's first table holds (it grows), each seen again much later."""
    rng = random.Random(9)
    labels = [b"q%d" % j for j in range(1000)]
    order = labels + rng.sample(labels, len(labels)) + [rng.choice(labels) for _ in range(2000)]
    data = b"".join(line(topic, "Q0", f"d{i}", str(i), "1", "r") for i, topic in enumerate(order))
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert split(data) is not None
    outcome = assert_same_reading(path)
    assert outcome[1].topic.labels.tolist() == [label.decode() for label in labels]


# Property-based: lines from a small alphabet that holds the awkward bytes, separators mostly plain.
FIELD_BYTES = st.sampled_from([b"1", b"0", b"7", b"9", b".", b"-", b"+", b"e", b"E", b"a", b"x", b"Q", b"\x00", b"\x01",
                               b"\xff", b"\xc3\xa9", b"inf", b"nan", b"0x"])
NUMBERISH = st.one_of(
    st.integers(-10 ** 20, 10 ** 20).map(lambda v: str(v).encode()),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda v: repr(v).encode()),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: ("%.25g" % v).encode()),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: ("%e" % v).encode()),
    st.sampled_from([s.encode() for s in PLAIN_SCORES + OTHER_SCORES + RANKS_TAKEN + RANKS_DECLINED]),
)
FIELD = st.one_of(st.lists(FIELD_BYTES, min_size=1, max_size=6).map(b"".join), NUMBERISH)
RANK = st.one_of(st.integers(-10 ** 18 + 1, 10 ** 18 - 1).map(lambda v: str(v).encode()),
                 st.sampled_from([s.encode() for s in RANKS_TAKEN]))
SCORE = st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(lambda v: repr(v).encode()),
                  st.floats(-1e6, 1e6).map(lambda v: ("%.6f" % v).encode()),
                  st.sampled_from([s.encode() for s in PLAIN_SCORES]))
GLUE = st.sampled_from([b" ", b"\t", b"  ", b" \t", b"\x0b", b"\x0c", b"\r"])
ENDS = st.sampled_from([b"\r\n", b"\n\n", b" \n", b"\t\n", b"", b"\r"])


@st.composite
def run_files(draw) -> bytes:
    """Up to 8 lines: plain ones (about half the files), or with now and then a field changed to anything
    (a number of any form, awkward bytes), a field dropped or added, other whitespace, other line ends."""
    sep = draw(st.sampled_from([b" ", b"\t"]))
    noise = draw(st.sampled_from([0, 0, 4, 10]))  # one change in `noise` chances (0: none)

    def now() -> bool:
        return noise > 0 and draw(st.integers(0, noise - 1)) == 0

    lines = []
    for _ in range(draw(st.integers(0, 8))):
        topic = draw(st.sampled_from([b"1", b"2", b"10", b"t\x01", b"\xff", b"\xc3\xa9", b"x\x00"]))
        docno = draw(st.lists(FIELD_BYTES, min_size=1, max_size=6).map(b"".join))
        rank, score = draw(NUMBERISH if now() else RANK), draw(NUMBERISH if now() else SCORE)
        fields = [topic, b"Q0", docno, rank, score, b"r"] + draw(st.lists(FIELD, max_size=2))
        if now():
            fields[draw(st.integers(0, len(fields) - 1))] = draw(FIELD)
        if now():
            del fields[draw(st.integers(0, len(fields) - 1))]
        glue = [draw(GLUE) if now() else sep for _ in fields[1:]]
        text = fields[0] + b"".join(g + f for g, f in zip(glue, fields[1:]))
        lines.append(text + (draw(ENDS) if now() else b"\n"))
    data = b"".join(lines)
    if now():
        data = b"\xef\xbb\xbf" + data
    if data.endswith(b"\n") and draw(st.booleans()):
        data = data[:-1]  # no newline at the end
    return data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(run_files())
def test_random_files_read_alike(tmp_path, data):
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    assert_same_reading(path)


def test_the_property_reaches_the_kernel():
    """The generator above is not all declines: a fair share of its files are the kernel's."""
    taken = []

    @settings(max_examples=100, deadline=None, database=None, derandomize=True)
    @given(run_files())
    def sample(data):
        taken.append(split(data) is not None)

    sample()
    assert 10 <= sum(taken) < len(taken), (sum(taken), len(taken))


# -- splitting blocks of lines into fields ------------------------------------------------------------

SPACE_BYTES = [bytes([c]) for c in b" \t\n\v\f\r"]
DIALECTS = {"C": C_DIALECT, "space": Dialect(space=b" "), "tab": Dialect(space=b"\t"),
            "space-tab": Dialect(space=b" \t"), "vt-cr": Dialect(space=b"\v\r"), "nul-refused": Dialect(nul="a NUL byte"),
            "no-bom-skip": Dialect(skip_bom=False), "control": Dialect(space=b"\x01\x1f "),
            "many": Dialect(space=bytes(range(33))), "none": Dialect(space=b"")}


def fields_both(block: bytes, dialect: Dialect = C_DIALECT) -> tuple[tuple, tuple | None]:
    """The numpy twin's (starts, ends, per_line) and the kernel's (None: it declines)."""
    with kernels_on(False):
        assert native.split_fields(block, dialect.space) is None
        twin = split_block(block, 7, dialect)
    with kernels_on(True):
        kernel = native.split_fields(block, dialect.space)
        used = split_block(block, 7, dialect)
    arrays = (twin.starts, twin.ends, twin.per_line)
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(arrays, (used.starts, used.ends,
                                                                                      used.per_line)))
    return arrays, kernel


def assert_split_alike(block: bytes, dialect: Dialect = C_DIALECT, taken: bool = True) -> None:
    twin, kernel = fields_both(block, dialect)
    assert (kernel is not None) == taken
    if kernel is not None:
        for ours, theirs in zip(twin, kernel):
            assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()


BLOCKS = [
    ("one-line", b"a b c\n"),
    ("one-field", b"x\n"),
    ("only-newlines", b"\n\n\n"),
    ("blank-lines-between", b"a b\n\n\nc d\n\n"),
    ("leading-and-trailing", b"  a\tb  \n\t\tc \n"),
    ("separators-in-runs", b"a \t\v\f\r b\n"),
    ("crlf", b"a b\r\nc d\r\n\r\n"),
    ("lone-cr", b"a\rb\rc\n"),
    ("nul-bytes", b"a\x00b \x00\n\x00\n"),
    ("control-bytes", bytes(range(0, 32)) + b" " + bytes(range(14, 33)) + b"\n"),
    ("high-bytes", b"\xef\xbb\xbfa \xff\xfe \x80\n\xc3\xa9 \xa0\n"),
    ("long-field", b"x" * 100_003 + b" " + b"y" * 9 + b"\n"),
    ("field-lengths", b"".join(b"z" * n + b" " for n in range(40)) + b"\n"),
    ("every-whitespace", b"".join(b"f" + c for c in SPACE_BYTES for _ in range(3)) + b"\n"),
]


@pytest.mark.parametrize("dialect", DIALECTS.values(), ids=DIALECTS.keys())
@pytest.mark.parametrize("block", [case[1] for case in BLOCKS], ids=[case[0] for case in BLOCKS])
def test_awkward_blocks_split_alike(block, dialect):
    assert_split_alike(block, dialect)


@pytest.mark.parametrize("block", [b"", b"a b", b"a\nb", b"a b\n "])
def test_a_block_not_ending_with_a_newline_is_left_to_numpy(block):
    assert compiled().split_fields(block, C_SPACE) is None


@pytest.mark.parametrize("space", [b",", b" ,", b"\x7f", b"\xa0"])
def test_a_dialect_with_a_separator_above_the_space_is_left_to_numpy(space):
    assert_split_alike(b"a,b c\x7fd\xa0e\n,\n", Dialect(space=space), taken=False)


def test_a_file_splits_alike_in_blocks_of_any_size(tmp_path):
    """Through io/lines.split: a BOM skipped, a last line without its newline, lines longer than a block."""
    rng = random.Random(3)
    words = [b"a", b"bb", b"\xc3\xa9", b"x" * 30, b"0.5", b"L2"]
    data = b"\xef\xbb\xbf" + b"".join(b" ".join(rng.choices(words, k=rng.randint(0, 6))) +
                                      rng.choice([b"\n", b"\r\n", b" \n", b"\t\n"]) for _ in range(3000)) + b"a b"
    path = tmp_path / "lines.txt"
    path.write_bytes(data)
    for block_bytes in (1, 7, 64, 4096, 1 << 23):
        both = []
        for on in (False, True):
            with kernels_on(on):
                both.append([(f.first_line, f.starts.tolist(), f.ends.tolist(), f.per_line.tolist(), f.data.tobytes())
                             for f in lines_module.split(read_input(str(path)), C_DIALECT, block_bytes)])
        assert both[0] == both[1]


BLOCK_BYTES = st.lists(st.sampled_from([*SPACE_BYTES, *SPACE_BYTES, b"\x00", b"\x01", b"\x1f", b" ", b"!", b"a",
                                        b"\xff", b"xyzxyzxyz"]), max_size=80).map(lambda parts: b"".join(parts) + b"\n")


@settings(max_examples=300, deadline=None)
@given(st.one_of(BLOCK_BYTES, st.binary(max_size=200).map(lambda data: data + b"\n")),
       st.sets(st.integers(0, 0x20), max_size=12).map(bytes))
def test_random_blocks_split_alike(block, space):
    assert_split_alike(block, Dialect(space=space))


def test_qrels_blocks_are_split_by_the_kernel(tmp_path):
    """read_qrels (as every reader of io/table) reaches the kernel, and reads the same without it. (Two spaces
    between fields: plain qrels are split whole by split_qrels, tests/test_native_qrels.py; these go to io/table.)"""
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"".join(b"%d  %d  doc-%d  %d\n" % (t, i, d, (t + d) % 3) for t in range(3) for i in range(2)
                              for d in range(50)))
    tables, answers = [], []

    def kernel(*args):
        answers.append(native.split_fields(*args))
        return answers[-1]

    for on in (False, True):
        with kernels_on(on), mock.patch.object(lines_module, "split_fields", kernel):
            table = read_qrels(str(path))
        tables.append([table.topic.values().tolist(), table.intent.values().tolist(), table.docno.values().tolist(),
                       table.level.tolist(), np.asarray(table.line).tolist()])
    assert [answer is not None for answer in answers] == [False, True]
    assert tables[0] == tables[1]


# -- matching keys ------------------------------------------------------------------------------------

def match_both(table, texts, group):
    with kernels_on(True):
        compiled = matched_keys(table, texts, group)
    with kernels_on(False):
        python = matched_keys(table, texts, group)
    return compiled, python


def assert_same_match(table, texts, group):
    (found, repeated), (found_py, repeated_py) = match_both(table, texts, group)
    assert found.dtype == found_py.dtype and found.tolist() == found_py.tolist()
    assert repeated.dtype == repeated_py.dtype and repeated.tolist() == repeated_py.tolist()
    return found, repeated


TEXT_BYTES = [b"a", b"b", b"\x00", b"\xff", b"\x80", b"\xc3\xa9", b"Z"]
UTF8_BYTES = [b"a", b"b", b"\x00", b"\xc3\xa9", b"\xe2\x82\xac", b"Z"]


def random_texts(rng: random.Random, count: int, alphabet: list[bytes]) -> list[bytes]:
    """Texts of 0..40 bytes or so: a word (8), two (16), shorter, longer, and prefixes of one another (cut at
    a whole character of the alphabet, so that UTF-8 stays UTF-8)."""
    stems = [[rng.choice(alphabet) for _ in range(rng.randint(0, 40))] for _ in range(count // 4 + 1)]
    stems += [[b"abcdefgh"], [b"abcdefgh"] * 2, [b"abcdefg"], [b"abcdefghi"], [], [b"\x00"] * 8, [b"\x00"] * 9]
    out = []
    for _ in range(count):
        pieces = rng.choice(stems)
        choice = rng.random()
        if choice < 0.3:
            pieces = pieces[: rng.randint(0, len(pieces))]  # a prefix of another
        elif choice < 0.4:
            pieces = [*pieces, rng.choice(alphabet)]
        out.append(b"".join(pieces))
    return out


def shapes(texts: list[bytes], rng: random.Random, utf8: bool):
    """The same texts as Arrow arrays of several shapes."""
    yield "binary", pa.array(texts, pa.binary())
    if utf8:
        yield "string", pa.array([t.decode() for t in texts], pa.string())
    cuts = sorted(rng.sample(range(len(texts) + 1), min(3, len(texts) + 1)))
    bounds = [0, *cuts, len(texts)]
    chunks = [pa.array(texts[a:b], pa.binary()) for a, b in zip(bounds[:-1], bounds[1:])]  # some may be empty
    yield "chunked", pa.chunked_array(chunks, pa.binary())
    padded = pa.array([b"before" * 3, b"x", *texts, b"after"], pa.binary())
    yield "sliced", padded.slice(2, len(texts))
    yield "chunked slices", pa.chunked_array([padded.slice(2, len(texts) // 2),
                                             padded.slice(2 + len(texts) // 2, len(texts) - len(texts) // 2)])


@pytest.mark.parametrize("seed", range(16))
def test_matching_alike_on_random_keys(seed):
    rng = random.Random(seed)
    utf8 = seed % 2 == 0
    values = random_texts(rng, rng.choice([1, 7, 60, 500]), UTF8_BYTES if utf8 else TEXT_BYTES)
    groups = np.array([rng.randrange(4) for _ in values], dtype=np.int64)  # interleaved, repeats among them
    judged = rng.sample(range(len(values)), rng.randint(0, len(values)))
    distinct = list(dict.fromkeys((int(groups[i]), values[i]) for i in judged))
    table = KeyTable(TextKeys.of(pa.array([v for _, v in distinct], pa.binary()),
                                 np.array([g for g, _ in distinct], dtype=np.int64)))
    asked_groups = groups.copy()
    asked_groups[::5] = 9  # a group the table lacks
    where = {key: i for i, key in enumerate(distinct)}
    keys = list(zip(asked_groups.tolist(), values))
    for name, texts in shapes(values, rng, utf8):
        for group in (asked_groups, asked_groups.astype(np.int32)):
            for with_table in (table, None):
                found, repeated = assert_same_match(with_table, texts, group)
                # And both are right: a dictionary says where each key is, and which repeat an earlier one.
                assert found.tolist() == [where.get(key, -1) if with_table else -1 for key in keys], name
                assert repeated.tolist() == [i for i, key in enumerate(keys) if key in keys[:i]], name


def test_the_kernel_matches_plain_arrays_and_declines_the_others():
    texts = pa.array([b"a", b"b", b"a"], pa.binary())
    group = np.zeros(3, np.int32)
    table = KeyTable(TextKeys.of(pa.array([b"a"], pa.binary()), np.zeros(1, np.int32)))
    with kernels_on(True):
        for kind in (pa.binary(), pa.string()):
            assert _compiled_matched_keys(table, texts.cast(kind), group) is not None
        assert _compiled_matched_keys(None, texts, group) is not None
        assert _compiled_matched_keys(table, texts.slice(1), group[1:]) is not None
        for kind in (pa.large_binary(), pa.large_string()):
            assert _compiled_matched_keys(table, texts.cast(kind), group) is None
            assert _compiled_matched_keys(table, pa.chunked_array([texts.cast(kind)]), group) is None
        assert _compiled_matched_keys(table, pa.array([], pa.binary()), np.zeros(0, np.int32)) is None
        assert _compiled_matched_keys(table, pa.chunked_array([], pa.binary()), np.zeros(0, np.int32)) is None
    for kind in (pa.large_binary(), pa.large_string()):  # declined, and so the same as numpy's
        assert_same_match(table, texts.cast(kind), group)
    assert_same_match(table, pa.array([], pa.binary()), np.zeros(0, np.int32))


def test_the_kernels_hash_is_numpys():
    """The C code hashes keys itself; a hash unlike TextKeys._hash would miss keys numpy's table holds
    (their slots found by the hash): 3,000 texts, half of them in the table, all found alike."""
    rng = np.random.default_rng(17)
    alphabet = np.frombuffer(b"ab\x00\xff\x80", dtype=np.uint8)
    values = [bytes(rng.choice(alphabet, size=rng.integers(0, 41))) for _ in range(3000)]
    groups = rng.integers(0, 6, size=len(values)).astype(np.int32)
    half = rng.permutation(len(values))[: len(values) // 2]
    keys = list(dict.fromkeys((int(groups[i]), values[i]) for i in half))
    table = KeyTable(TextKeys.of(pa.array([v for _, v in keys], pa.binary()), np.array([g for g, _ in keys])))
    with kernels_on(True):
        assert _compiled_matched_keys(table, pa.array(values, pa.binary()), groups) is not None  # the kernel's
    found, _ = assert_same_match(table, pa.array(values, pa.binary()), groups)
    where = {key: i for i, key in enumerate(keys)}
    assert found.tolist() == [where.get(key, -1) for key in zip(groups.tolist(), values)]
    assert (found >= 0).sum() >= len(values) // 2  # not vacuous: every key of the table is asked for


# -- printing numbers ---------------------------------------------------------------------------------

def printed(value: float, digits: int) -> str:
    """Python's own %.*f, with C's names for what it does not print: the reference."""
    if math.isnan(value):
        return "-nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%.*f" % (digits, value)


def number_matrix(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = [rng.random(300), -rng.random(100),
              rng.integers(0, 2 ** 20, 200) / 2.0 ** rng.integers(0, 24, 200),  # exact ties at many digits
              -(rng.integers(0, 2 ** 12, 100) / 2.0 ** rng.integers(1, 14, 100)),
              rng.random(100) * 2.0 ** rng.integers(0, 91, 100),  # up to 2**90
              rng.integers(0, 2 ** 62, 50).astype(np.float64) * 2.0 ** 28,
              rng.random(50) * 10.0 ** rng.integers(-20, -5, 50),
              [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, 0.125, 0.375, 5e-324, -5e-324, 1e-310, 2.0 ** -75, 2.0 ** -76,
               2.0 ** -1074, 2.2250738585072014e-308, 0.0000005, 0.00000049999999999999, 1.0000005, 0.9999995,
               0.1234565, 123456.7890125, 2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 90, -2.0 ** 90, 2.0 ** 93 - 2.0 ** 40,
               -(2.0 ** 93 - 2.0 ** 40), 0.05, 0.005, 0.0005, 5e-10, 4.5e-9, 9.5, 99.5, 1e15 + 0.5, 1 / 3]]
    flat = np.concatenate([np.asarray(v, dtype=np.float64) for v in values])
    flat = flat[: len(flat) // 7 * 7]
    return flat.reshape(-1, 7)


@pytest.mark.parametrize("digits", [*range(10), 10, 12])
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_print_as_python_prints_each_value(seed, digits):
    matrix = number_matrix(seed)
    expected = [",".join(printed(v, digits) for v in row) for row in matrix.tolist()]
    taken = compiled().fixed_rows(matrix, matrix.shape[0], matrix.shape[1], digits, ",")
    assert (taken is not None) == (digits <= 9), "the kernel prints up to 9 digits, and leaves more to Python"
    for on in (True, False):
        with kernels_on(on):
            assert c_fixed_rows(matrix, digits) == expected


@pytest.mark.parametrize("digits", [0, 3, 6, 9, 12])
def test_rows_with_nan_and_infinities(digits):
    nan = float("nan")
    matrix = np.array([[nan, 0.5, -nan], [float("inf"), -float("inf"), -0.0], [1 / 3, nan, 2.0 ** 90]])
    expected = [",".join(printed(v, digits) for v in row) for row in matrix.tolist()]
    assert expected[0].startswith("-nan,") and expected[1].startswith("inf,-inf,")
    if digits <= 9:
        assert compiled().fixed_rows(matrix, 3, 3, digits, ",") is not None
    for on in (True, False):
        with kernels_on(on):
            assert c_fixed_rows(matrix, digits) == expected
            assert c_fixed_rows(matrix, digits, "\t") == [row.replace(",", "\t") for row in expected]


def test_rows_beyond_the_kernels_range_are_left_to_python():
    """Past 2**93 the kernel declines: the row is still printed exactly."""
    matrix = np.array([[2.0 ** 93, 0.5], [1e30, -1e300], [2.0 ** 93 - 2.0 ** 40, 1.0]])
    assert compiled().fixed_rows(matrix[:1], 1, 2, 6, ",") is None
    assert compiled().fixed_rows(matrix[2:], 1, 2, 6, ",") is not None
    for on in (True, False):
        with kernels_on(on):
            assert c_fixed_rows(matrix, 6) == [",".join(printed(v, 6) for v in row) for row in matrix.tolist()]


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1)])
def test_rows_of_empty_and_single_matrices(shape):
    matrix = np.full(shape, 0.25)
    expected = [",".join(printed(v, 4) for v in row) for row in matrix.tolist()]
    for on in (True, False):
        with kernels_on(on):
            assert c_fixed_rows(matrix, 4) == expected


def test_rows_joined_by_a_separator_beyond_ascii():
    matrix = np.array([[0.5, 1.25]])
    with kernels_on(True):
        assert c_fixed_rows(matrix, 3, "\u00a6") == ["0.500\u00a61.250"]
    assert compiled().fixed_rows(matrix, 1, 2, 3, "\u00a6") is None  # the kernel declines; Python joins


# -- scoring: row sums, the blended ratio, P+ ------------------------------------------------------------

def random_gain_list(rng: np.random.Generator, rows: int, width: int, ideal_width: int):
    """A gain list as kernels meet them: leading entries with gains (some 0) at rising ranks, padding after
    (gain 0 at PAST_END), ideal lists of any width (0 included)."""
    from divaleval.context import PAST_END
    from divaleval.measures.ncu.lists import GainList

    length = rng.integers(0, width + 1, rows)
    gains = np.where(rng.random((rows, width)) < 0.8, rng.choice([1.0, 3.0, 7.0, 0.5, 1e-300], (rows, width)), 0.0)
    position = np.cumsum(rng.integers(1, 4, (rows, width)), axis=1)
    padding = np.arange(width)[None, :] >= length[:, None]
    gains[padding], position[padding] = 0.0, PAST_END
    ideal = -np.sort(-rng.choice([0.0, 1.0, 3.0, 7.0], (rows, ideal_width)), axis=1)
    return GainList.of(gains, position.astype(np.int64), ideal)


@pytest.mark.parametrize("width", [0, 1, 7, 8, 9, 64, 129, 300])
def test_masked_row_sums_are_numpys(width):
    from divaleval.measures.core.kernels import masked_row_sums

    rng = np.random.default_rng(width)
    values = rng.standard_normal((50, width)) * 10.0 ** rng.integers(-9, 9, (50, width))
    if values.size:
        values.reshape(-1)[rng.integers(0, values.size, values.size // 10 + 1)] = -0.0
    mask = rng.random((50, width)) < 0.6
    for columns in sorted({0, width // 3, width}):
        expected = np.where(mask[:, :columns], values[:, :columns], 0.0).sum(axis=1)
        for on in (True, False):
            with kernels_on(on):
                assert masked_row_sums(values, mask, columns).view(np.int64).tolist() == \
                    expected.view(np.int64).tolist(), (on, columns)


@pytest.mark.parametrize("seed", range(6))
def test_blended_ratio_and_p_plus_on_both_paths(seed):
    from divaleval.measures.ncu import kernels as ncu

    rng = np.random.default_rng(seed)
    width = [1, 5, 8, 40, 130, 300][seed]
    for ideal_width in (0, 1, width, width + 7):
        for beta in (0.0, 1.0, 0.37):
            results = {}
            for on in (True, False):
                gl = random_gain_list(np.random.default_rng(seed * 100 + ideal_width), 60, width, ideal_width)
                with kernels_on(on):
                    ratio = ncu._blended_ratio(gl, beta)
                    plus = [ncu.p_plus(gl, cutoff, beta) for cutoff in (None, 1, 5, 10, 20)]
                results[on] = ratio.view(np.int64).tolist(), [p.view(np.int64).tolist() for p in plus]
            assert results[True] == results[False], (width, ideal_width, beta)


@pytest.mark.parametrize("seed", range(6))
def test_err_probability_on_both_paths(seed):
    """P_ERR (and ERR, EBR, iRBU at every cutoff, which sum its terms) give the same bits with the kernel and
    without it; the compiled kernel is the one taken."""
    from divaleval.measures.ncu import kernels as ncu

    width = [0, 1, 5, 8, 130, 300][seed]
    results = {}
    for on in (True, False):
        gl = random_gain_list(np.random.default_rng(seed), 60, width, 9)
        with kernels_on(on):
            assert (native.kernel("err_probability") is not None) == on
            values = [ncu._err_probability(gl)] + [kernel(gl, cutoff, **params) for cutoff in (None, 1, 5, 20)
                                                   for kernel, params in ((ncu.err, {}), (ncu.ebr, {"beta": 1.0}),
                                                                          (ncu.irbu, {"p": 0.99}))]
        results[on] = [v.view(np.int64).tolist() for v in values]
    assert results[True] == results[False]


@pytest.mark.parametrize("seed", range(6))
def test_sums_at_every_cutoff_at_once_are_each_cutoffs_sums(seed):
    """A list's sums and P+'s parts at all its cutoffs (one pass, compiled or not) are, bit for bit, those of
    each cutoff alone (masked_row_sums and p_plus_parts on its own mask), on both paths: every NCU kernel at
    every cutoff gives the same bits whether its list knows the cutoffs or not."""
    from divaleval.measures.ncu import kernels as ncu
    from divaleval.measures.ncu.lists import GainList

    width = [0, 1, 7, 9, 130, 300][seed]
    cutoffs = (None, 1, 5, 10, 20, 1000)
    kernels = [(ncu.dcg, {}), (ncu.average_precision, {}), (ncu.average_precision_over_r, {}), (ncu.err, {}),
               (ncu.ebr, {"beta": 1.0}), (ncu.q_measure, {"beta": 0.5}), (ncu.rbp, {"p": 0.95}),
               (ncu.irbu, {"p": 0.99}), (ncu.p_plus, {"beta": 1.0})]
    results = {}
    for on in (True, False):
        for told in (True, False):
            gl = random_gain_list(np.random.default_rng(seed), 60, width, 9)
            if told:  # the run context's cutoffs, as the engine gives them
                gl = GainList(gl.gains, gl.position, gl.ideal, gl.n_relevant, gl.top_gain, cutoffs=cutoffs)
            with kernels_on(on):
                assert (native.kernel("cut_row_sums") is not None) == on
                assert (native.kernel("cut_p_plus_parts") is not None) == on
                assert (native.kernel("gain_list_sums") is not None) == on
                values = [kernel(gl, cutoff, **params) for kernel, params in kernels for cutoff in cutoffs
                          if width or kernel is not ncu.p_plus]  # (numpy has no largest gain of none)
                values += [ncu.precision(gl, cutoff) for cutoff in cutoffs[1:]]
            results[on, told] = [v.view(np.int64).tolist() for v in values]
    assert results[True, True] == results[True, False] == results[False, True] == results[False, False]


def test_sums_at_cutoffs_on_both_paths():
    """cut_row_sums and cut_p_plus_parts, compiled and numpy, on rows with NaN-free values of every sign and
    magnitude, entries outside the mask, and column counts of every class numpy's pairwise sum treats apart."""
    from divaleval.native.sums import cut_p_plus_parts, cut_row_sums

    rng = np.random.default_rng(7)
    for width in (0, 1, 8, 9, 64, 129, 300):
        values = rng.standard_normal((20, width)) * 10.0 ** rng.integers(-9, 9, (20, width))
        gains = np.where(rng.random((20, width)) < 0.7, rng.choice([1.0, 3.0, 0.25], (20, width)), 0.0)
        within = (gains > 0) & (rng.random((20, width)) < 0.9)
        position = np.cumsum(rng.integers(1, 4, (20, width)), axis=1)
        bounds = np.array([0, 3, width, 10 ** 9, -1], dtype=np.int64)  # (-1: within alone)
        columns = np.array([0, min(width, 8), width // 2, width, width], dtype=np.int64)
        results = {}
        for on in (True, False):
            with kernels_on(on):
                sums = cut_row_sums(values, within, position, bounds, columns)
                # (P+ over no column at all is numpy's argmax of nothing: never asked for)
                parts = cut_p_plus_parts(gains, within, position, values, bounds, np.maximum(columns, 1)) \
                    if width else ()
            results[on] = [sums.view(np.int64).tolist()] + [part.astype(np.int64).tolist() for part in parts[1:]] + \
                [part.view(np.int64).tolist() for part in parts[:1]]
        assert results[True] == results[False], width
        for j, (bound, count) in enumerate(zip(bounds, columns)):
            mask = within & (position <= bound) if bound >= 0 else within
            expected = np.where(mask[:, :count], values[:, :count], 0.0).sum(axis=1)
            assert results[True][0][j] == expected.view(np.int64).tolist()


@pytest.mark.parametrize("width", [0, 1, 7, 8, 9, 64, 75, 129, 300])
def test_gain_list_sums_on_both_paths(width):
    """Every NCU kernel's sums of a list at once, compiled and numpy, to the bit: rows of every length (padding
    after; some whose ranks do not ascend), entries past the deepest rank, cutoffs inside, past and without a
    bound, column counts of every class numpy's pairwise sum treats apart, and tables of mixed signs (sums of
    zero, of either sign, with them)."""
    from divaleval.context import PAST_END
    from divaleval.native.sums import gain_list_sums

    rng = np.random.default_rng(width)
    gl = random_gain_list(rng, 60, width, 9)
    if width:  # (a list's ranks ascend along its rows; any order is summed the same)
        gl.position[::7] = rng.permuted(gl.position[::7], axis=1)
    deepest = int(np.r_[gl.position[gl.position < PAST_END], 0].max()) - 1
    bounds = np.array([1, 5, 20, 10 ** 9, -1], dtype=np.int64)
    columns = np.array([min(width, 8), min(width, 8), min(width, 24), width, width], dtype=np.int64)
    tables = [rng.standard_normal(n) * rng.choice([0.0, -0.0, 1.0, 1e-300], n) + rng.choice([0.0, 1.0], n)
              for n in (width + 3, width // 2 + 1, 1)]
    results = {}
    for on in (True, False):
        with kernels_on(on):
            assert (native.kernel("gain_list_sums") is not None) == on
            for top in (deepest, PAST_END - 1):
                got = gain_list_sums(gl.gains, gl.position, gl.ideal, gl.top_gain, top, *tables, 0.7, bounds, columns)
                results.setdefault(on, []).extend(
                    [got.sums.view(np.int64).tolist(), got.first.tolist(), got.p_plus[0].view(np.int64).tolist(),
                     got.p_plus[1].tolist(), got.p_plus[2].tolist()])
    assert results[True] == results[False]


def test_gain_list_sums_by_hand():
    """One list of gains 3, 0, 1 at ranks 1, 2, 4 (ideal 3, 1, 1; beta 1; tables 1/log2(r+1), 0.5^(r-1),
    0.5^r), the sums worked out by hand, on both paths."""
    from divaleval.native.sums import TERM_KINDS, gain_list_sums

    gains, position = np.array([[3.0, 0.0, 1.0]]), np.array([[1, 2, 4]], dtype=np.int64)
    ideal, top_gain = np.array([[3.0, 1.0, 1.0]]), np.array([3.0])
    ranks = np.arange(6)
    discount = np.r_[1.0, 1 / np.log2(ranks[1:] + 1.0)]
    # cutoffs: the whole list, and rank 2 (entry 0 alone)
    bounds, columns = np.array([-1, 2], dtype=np.int64), np.array([3, 3], dtype=np.int64)
    # P_ERR: 3/4, then 0, then (1/4)(1/4)(1) = 1/16; BR: (1+3)/(1+3) = 1, then (2+4)/(4+5) = 2/3
    expected = {"precision": (1 + 2 / 4, 1.0), "discounted": (3 + 1 / math.log2(5), 3.0), "ratio": (1 + 2 / 3, 1.0),
                "err": (3 / 4 + 1 / 16 / 4, 3 / 4), "ebr": (3 / 4 + 1 / 16 * 2 / 3, 3 / 4),
                "rbp": (3 + 1 / 8, 3.0), "irbu": (3 / 4 / 2 + 1 / 16 / 16, 3 / 8), "one": (2.0, 1.0)}
    for on in (True, False):
        with kernels_on(on):
            got = gain_list_sums(gains, position, ideal, top_gain, 10, discount, 0.5 ** (ranks - 1.0), 0.5 ** ranks,
                                 1.0, bounds, columns)
        for kind, values in expected.items():
            assert got.sums[TERM_KINDS.index(kind), :, 0].tolist() == pytest.approx(values, rel=1e-15), (kind, on)
        assert got.first.tolist() == [1]
        # P+: the largest gain within comes first, so BR at rank 1 alone, at either cutoff
        assert [part[:, 0].tolist() for part in got.p_plus] == [[1.0, 1.0], [1, 1], [True, True]]


@pytest.mark.parametrize("probabilities", [(1.0,), (0.5, 0.3, 0.2), (0.25, 0.0, 0.75, 1e-9)])
def test_gap_terms_on_both_paths(probabilities):
    """GAP's terms, compiled and numpy, to the bit (grades past the last threshold, padding of grade 0)."""
    from divaleval.native.sums import gap_terms

    rng = np.random.default_rng(len(probabilities))
    for width in (0, 1, 17, 300):
        grade = np.where(rng.random((30, width)) < 0.8, rng.integers(0, 6, (30, width)), 0).astype(np.int64)
        position = np.cumsum(rng.integers(1, 4, (30, width)), axis=1).astype(np.int64)
        results = {}
        for on in (True, False):
            with kernels_on(on):
                assert (native.kernel("gap_terms") is not None) == on
                results[on] = gap_terms(grade, position, probabilities).view(np.int64).tolist()
        assert results[True] == results[False], width


@pytest.mark.parametrize("seed", range(4))
def test_inferred_precision_sums_on_both_paths(seed):
    """infAP's numerators, compiled and numpy, to the bit: topics in runs of lines (a topic's lines in rank
    order, gaps of unjudged ranks between), lines relevant, judged non-relevant or pooled only, rank 1 or not."""
    from divaleval.native.sums import inferred_precision_sums

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 60, 12)
    topic = np.repeat(rng.permutation(12), lengths).astype(np.int64)
    rank = np.concatenate([np.cumsum(rng.integers(1, 4, n)) for n in lengths]).astype(np.int32)
    kind = rng.integers(0, 3, len(topic))
    relevant, nonrelevant = kind == 0, kind == 1
    results = {}
    for on in (True, False):
        with kernels_on(on):
            assert (native.kernel("inferred_precision_sums") is not None) == on
            results[on] = inferred_precision_sums(topic, rank, relevant, nonrelevant, 12, 0.00001)
    assert results[True].view(np.int64).tolist() == results[False].view(np.int64).tolist()
    assert np.count_nonzero(results[True]) > 6


@pytest.mark.parametrize("seed", range(4))
def test_bpref_sums_on_both_paths(seed):
    """bpref's numerators, compiled and numpy, to the bit: topics in runs of lines, fewer or more judged
    non-relevant documents than relevant ones (min(N, R)), none of either."""
    from divaleval.native.sums import bpref_sums

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 60, 12)
    topic = np.repeat(rng.permutation(12), lengths).astype(np.int64)
    kind = rng.integers(0, 3, len(topic))
    relevant, nonrelevant = kind == 0, kind == 1
    relevant_total, nonrelevant_total = rng.integers(0, 40, 12), rng.integers(0, 40, 12)
    results = {}
    for on in (True, False):
        with kernels_on(on):
            assert (native.kernel("bpref_sums") is not None) == on
            results[on] = bpref_sums(topic, relevant, nonrelevant, relevant_total, nonrelevant_total)
    assert results[True].view(np.int64).tolist() == results[False].view(np.int64).tolist()
    assert np.count_nonzero(results[True]) > 6


def test_the_scoring_kernels_are_taken():
    """The comparisons above are not between two numpy paths: the kernels run on plain arrays."""
    with kernels_on(True):
        assert native.kernel("masked_row_sums") is not None, "this numpy sums rows as the kernel does (the probe passes)"
    gl = random_gain_list(np.random.default_rng(1), 4, 10, 3)
    out = np.empty(gl.gains.shape)
    compiled().blended_ratio(gl.gains, gl.position, gl.ideal, 4, 10, 3, 1.0, out)
    with kernels_on(False):
        from divaleval.measures.ncu import kernels as ncu
        assert out.view(np.int64).tolist() == ncu._blended_ratio(gl, 1.0).view(np.int64).tolist()


def test_a_large_mapped_file_read_alike(tmp_path):
    """Past a few MB the kernel gives a mapped file's pages back as it reads (madvise): what it read before is
    not looked at again (topic labels and the runtag are copies), and nothing of the file changes."""
    import mmap

    rng = random.Random(5)
    topics = [b"t%d" % j for j in range(300)]
    lines = [b"%s Q0 doc-%d-%s %d %.6f tag\n" % (rng.choice(topics), i, b"x" * rng.randint(0, 30), i, rng.random())
             for i in range(250_000)]  # about 12 MB, topics interleaved: early labels are met again at the end
    data = b"".join(lines)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        from_mapping = compiled().split_run(mapped, True)
    from_bytes = split(data)
    assert from_mapping is not None and len(data) > 3 * (4 << 20)
    assert [bytes(part) if isinstance(part, bytearray) else part for part in from_mapping] == \
        [bytes(part) if isinstance(part, bytearray) else part for part in from_bytes]
    assert path.read_bytes() == data
    assert_same_reading(path)


def test_only_a_read_only_mapping_is_given_back(tmp_path):
    """A copy-on-write mapping (or any writable buffer) flagged as mapped keeps what was written in it."""
    import mmap

    data = b"".join(b"t%d Q0 doc-%d %d 1.5 tag\n" % (i % 7, i, i) for i in range(400_000))  # about 10 MB
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY) as copy:
        copy[3:8] = b"QQ0 X"  # "t0 Q0 doc-0 ..." -> "t0 QQ0 Xc-0 ...": the first docno becomes "Xc-0"
        split_copy = compiled().split_run(copy, True)
        assert copy[3:8] == b"QQ0 X"
    assert bytes(split_copy[3])[:4] == b"Xc-0"
    assert path.read_bytes() == data


def test_the_kernels_refuse_shapes_that_overflow():
    """Sizes whose products overflow are errors, never reads past a buffer."""
    with pytest.raises(ValueError):
        compiled().fixed_rows(np.empty(0), 2 ** 61, 8, 6, ",")
    with pytest.raises(ValueError):
        compiled().masked_row_sums(np.empty(0), 2 ** 61, np.empty(0, bool), 2 ** 62, 2 ** 61, np.empty(4))
    with pytest.raises(ValueError):
        compiled().blended_ratio(np.empty(0), np.empty(0, np.int64), np.empty(0), 2 ** 61, 8, 8, 1.0, np.empty(0))
    cutoffs = np.array([5], dtype=np.int64)
    with pytest.raises(ValueError):
        compiled().cut_row_sums(np.empty(0), np.empty(0, bool), np.empty(0, np.int64), 2 ** 61, 8, cutoffs, cutoffs,
                                np.empty(0))
    with pytest.raises(ValueError):  # a column count past the width
        compiled().cut_row_sums(np.empty(4), np.empty(4, bool), np.empty(4, np.int64), 1, 4, cutoffs, cutoffs,
                                np.empty(1))
    with pytest.raises(ValueError):
        compiled().cut_p_plus_parts(np.empty(4), np.empty(4, bool), np.empty(4, np.int64), np.empty(4), 1, 4,
                                    cutoffs, cutoffs, np.empty(1), np.empty(1, np.int64), np.empty(1, bool))
    with pytest.raises(ValueError):
        compiled().inferred_precision_sums(np.empty(1, np.int64), np.empty(1, np.int64), np.empty(1, bool),
                                           np.empty(1, bool), 2 ** 61, 0.5, np.empty(1))
    with pytest.raises(ValueError):
        compiled().bpref_sums(np.empty(1, np.int64), np.empty(1, bool), np.empty(1, bool), 2 ** 61,
                              np.empty(1, np.int64), np.empty(1, np.int64), np.empty(1))
    with pytest.raises(ValueError):
        compiled().gap_terms(np.empty(0, np.int64), np.empty(0, np.int64), 2 ** 61, 8, np.ones(1), np.empty(0))


def test_a_position_numpy_cannot_index_by_is_left_to_numpy():
    """Ranks are never below 1; were one, the kernel declines and numpy's path answers as it always has (a
    rank of 0 reads the ideal list's last column, one far below raises IndexError)."""
    from divaleval.measures.ncu import kernels as ncu
    from divaleval.measures.ncu.lists import GainList

    gains, ideal = np.array([[1.0, 3.0]]), np.array([[3.0, 1.0, 1.0]])
    for position, outcome in (([[0, 2]], "value"), ([[-100, 2]], IndexError)):
        results = {}
        for on in (True, False):
            gl = GainList.of(gains, np.array(position, dtype=np.int64), ideal)
            with kernels_on(on):
                if outcome is IndexError:
                    with pytest.raises(IndexError):
                        ncu._blended_ratio(gl, 1.0)
                else:
                    results[on] = ncu._blended_ratio(gl, 1.0).view(np.int64).tolist()
        if outcome == "value":
            assert results[True] == results[False]
