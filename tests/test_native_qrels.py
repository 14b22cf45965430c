"""The compiled qrels splitter (divaleval/native/parse.c's split_qrels) against the reader it stands in for.

Every file is read both ways (``DIVALEVAL_NATIVE=0`` turns the kernels off, and io/table.py's reader reads
it): the same table, value for value, or the same error; the kernel takes the plain files and declines the
others. Skipped where the extension is not built (CI requires it: tests/test_native_kernels.py fails then).
"""
from __future__ import annotations

import contextlib
import itertools
import os
import random
from pathlib import Path

import numpy as np
import pytest

from divaleval import native
from divaleval.arrays import PackedTexts
from divaleval.errors import InputError
from divaleval.io.qrels import read_qrels

if not native.built():
    pytest.skip("the compiled kernels are not built here: nothing to compare", allow_module_level=True)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "qrels.txt"


@contextlib.contextmanager
def kernels_on(on: bool):
    before = os.environ.get(native.ENVIRONMENT)
    os.environ[native.ENVIRONMENT] = "1" if on else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[native.ENVIRONMENT]
        else:
            os.environ[native.ENVIRONMENT] = before


def split(data: bytes):
    with kernels_on(True):
        return native.kernels().split_qrels(data)


def outcome(path: Path, on: bool):
    with kernels_on(on):
        try:
            return "qrels", read_qrels(str(path))
        except InputError as error:
            return "error", str(error)


def assert_same_reading(path: Path) -> None:
    data = path.read_bytes()
    compiled, python = outcome(path, True), outcome(path, False)
    assert compiled[0] == python[0], (data, compiled, python)
    if compiled[0] == "error":
        assert compiled[1] == python[1], data
        return
    a, b = compiled[1], python[1]
    assert a.name == b.name
    for name in ("topic", "intent"):
        ours, theirs = getattr(a, name), getattr(b, name)
        assert ours.codes.dtype == theirs.codes.dtype == np.int32, (name, data)
        assert ours.codes.tolist() == theirs.codes.tolist(), (name, data)
        assert ours.labels.tolist() == theirs.labels.tolist(), (name, data)  # first-seen order, same text
    assert a.docno.codes.astype(np.int64).tolist() == b.docno.codes.astype(np.int64).tolist(), data
    # The compiled reader keeps its docnos packed (no Arrow array made); the other reads them into Arrow.
    assert isinstance(a.docno.labels, PackedTexts) == (split(data) is not None), data
    docnos = a.docno.labels.arrow() if isinstance(a.docno.labels, PackedTexts) else a.docno.labels
    assert docnos.to_pylist() == b.docno.labels.to_pylist(), data
    assert docnos.type == b.docno.labels.type, data
    assert a.docno.values().tolist() == b.docno.values().tolist(), data
    assert a.level.dtype == b.level.dtype == np.int16 and a.level.tolist() == b.level.tolist(), data
    assert np.asarray(a.line).tolist() == np.asarray(b.line).tolist(), data


TAKEN, DECLINED = True, False

# (id, bytes, whether the kernel takes them): each read both ways.
FILES = [
    ("space", b"1 1 d1 1\n1 2 d1 0\n1 1 d2 2\n", TAKEN),
    ("tab", b"1\t1\td1\t1\n1\t2\td2\t0\n", TAKEN),
    ("no newline at the end", b"1 1 d1 1\n1 2 d2 0", TAKEN),
    ("one line", b"7 0 doc 1\n", TAKEN),
    ("NTCIR levels", b"1 1 a L0\n1 1 b L3\n1 2 a L12\n", TAKEN),
    ("signs and zeros", b"1 1 a +1\n1 1 b -1\n1 1 c -0\n1 1 d 007\n", TAKEN),
    ("judgments at the ends of the range", b"1 1 a 32767\n1 1 b -32768\n", TAKEN),
    ("interleaved topics and intents", b"b 2 x 1\na 1 x 1\nb 1 y 0\nc 3 x 1\na 2 z 1\n", TAKEN),
    ("intents spelt two ways", b"1 1 a 1\n1 01 a 1\n", TAKEN),
    ("bytes that are not UTF-8", b"t\xff 1 d\xc3\xa9\x80 1\nu\xc3\xa9 \xfe d 0\n", TAKEN),
    ("docno of a control byte", b"1 1 d\x01\x7f 1\n", TAKEN),
    ("a judgment out of range", b"1 1 a 1\n1 1 b 40000\n", DECLINED),
    ("a judgment below the range", b"1 1 a -32769\n", DECLINED),
    ("a judgment of 25 digits", b"1 1 a 0000000000000000000000001\n", DECLINED),
    ("a judgment beyond 64 bits", b"1 1 a 99999999999999999999999\n", DECLINED),
    ("L without digits", b"1 1 a L\n", DECLINED),
    ("L with a sign", b"1 1 a L-1\n", DECLINED),
    ("a judgment not a number", b"1 1 a 1\n1 1 b x\n", DECLINED),
    ("a real judgment", b"1 1 a 1.0\n", DECLINED),
    ("five fields", b"1 1 a 1 extra\n", DECLINED),
    ("five fields on a later line", b"1 1 a 1\n1 1 b 0 extra\n", DECLINED),
    ("three fields on a later line", b"1 1 a 1\n1 b 0\n", DECLINED),
    ("CR line ends", b"1 1 a 1\r\n1 1 b 0\r\n", DECLINED),
    ("double separator", b"1 1 a 1\n1  1 b 0\n", DECLINED),
    ("blank line", b"1 1 a 1\n\n1 1 b 0\n", DECLINED),
    ("mixed space and tab", b"1\t1 a 1\n", DECLINED),
    ("BOM", b"\xef\xbb\xbf1 1 a 1\n", DECLINED),
    ("ad hoc qrels (three fields)", b"1 a 1\n1 b 0\n", DECLINED),
]


@pytest.mark.parametrize("data,taken", [case[1:] for case in FILES], ids=[case[0] for case in FILES])
def test_awkward_qrels_read_alike(tmp_path, data, taken):
    path = tmp_path / "qrels.txt"
    path.write_bytes(data)
    assert (split(data) is not None) == taken, "the kernel must take plain qrels and decline the others"
    assert_same_reading(path)


def test_the_judgments_read_are_the_files():
    """The values themselves, by hand: NTCIR levels, signs, first-seen codes."""
    table = outcome_of(b"b 2 x L3\na 1 y -1\nb 1 x +2\n")
    assert table.topic.labels.tolist() == ["b", "a"] and table.topic.codes.tolist() == [0, 1, 0]
    assert table.intent.labels.tolist() == ["2", "1"] and table.intent.codes.tolist() == [0, 1, 1]
    assert [table.docno.labels.text(i) for i in range(2)] == [b"x", b"y"]
    assert table.docno.codes.tolist() == [0, 1, 0]
    assert table.level.tolist() == [3, -1, 2]


def outcome_of(data: bytes):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "qrels.txt"
        path.write_bytes(data)
        kind, table = outcome(path, True)
    assert kind == "qrels" and split(data) is not None
    return table


@pytest.mark.parametrize("seed", range(6))
def test_random_plain_qrels_read_alike(tmp_path, seed):
    rng = random.Random(seed)
    separator = rng.choice([" ", "\t"])  # (one per file: a file mixing them is declined)
    lines = []
    for _ in range(rng.randint(1, 400)):
        topic = rng.choice(["1", "2", "10", "t-7", "x\xe9"])
        intent = str(rng.randint(0, 5))
        docno = "".join(rng.choice("abcXYZ019-_.") for _ in range(rng.randint(1, 12)))
        level = rng.choice(["0", "1", "2", "-2", "L1", "L0", "+3"])
        lines.append(separator.join([topic, intent, docno, level]))
    path = tmp_path / "qrels.txt"
    path.write_bytes(("\n".join(lines) + rng.choice(["", "\n"])).encode())
    assert split(path.read_bytes()) is not None
    assert_same_reading(path)


def real_qrels() -> list[Path]:
    found = [SAMPLE]
    if SHARED.is_dir():
        found += sorted(SHARED.glob("trec-web/20*/qrels-for-ndeval.txt"))
        found += sorted(SHARED.glob("trec-web/20*/qrels.diversity.txt"))[:2]
    return found


@pytest.mark.parametrize("path", real_qrels(), ids=lambda path: "/".join(path.parts[-3:]))
def test_real_qrels_are_taken_and_read_alike(path):
    assert split(path.read_bytes()) is not None
    assert_same_reading(path)


def _label_hash(label: bytes) -> int:
    """native/parse.c's bytes_hash, written out to build labels that share a slot (not to check any value)."""
    mask = (1 << 64) - 1
    h = (len(label) * 0x9E3779B97F4A7C15) & mask
    for at in range(0, len(label), 8):
        word = int.from_bytes(label[at:at + 8], "little")
        h = ((h ^ word) * 0xFF51AFD7ED558CCD) & mask
        if at + 8 <= len(label):
            h ^= h >> 32
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & mask
    return h ^ (h >> 33)


def test_docnos_made_to_share_a_slot_are_declined_and_read_alike(tmp_path):
    """260 docnos whose hashes agree in their low 10 bits fill one run of the kernel's table (1,024 slots by
    then): the 257th looks through 256 full slots, and the kernel declines the file to the Python reader
    (Arrow's hash table) rather than probe on; the table read is the same."""
    candidates = (b"clueweb-%08d" % i for i in itertools.count())
    sharing = list(itertools.islice((label for label in candidates if _label_hash(label) & 1023 == 0), 260))
    assert len(sharing) == 260
    data = b"".join(b"1 1 %s %d\n" % (label, i % 2) for i, label in enumerate(sharing))
    assert split(data[:data.index(b"1 1 " + sharing[200])]) is not None, "200 docnos in one run are taken"
    assert split(data) is None, "the kernel must decline past 256 probes"
    path = tmp_path / "qrels.txt"
    path.write_bytes(data)
    assert_same_reading(path)


# -- two halves, two threads: the same split as one pass ---------------------------------------------------------

def split_in_halves(data: bytes):
    """The kernel's split of ``data`` by two threads (halves from 0 bytes: any file of two lines or more)."""
    with kernels_on(True):
        return native.kernels().split_qrels(data, False, 0)


def assert_halves_split_alike(data: bytes) -> None:
    one_pass, halves = split(data), split_in_halves(data)
    assert (one_pass is None) == (halves is None), data
    if one_pass is not None:
        assert [bytes(part) if isinstance(part, bytearray) else part for part in halves] == \
            [bytes(part) if isinstance(part, bytearray) else part for part in one_pass], data


@pytest.mark.parametrize("data", [case[1] for case in FILES], ids=[case[0] for case in FILES])
def test_awkward_qrels_split_alike_in_halves(data):
    assert_halves_split_alike(data)


@pytest.mark.parametrize("seed", range(12))
def test_random_plain_qrels_split_alike_in_halves(seed):
    """Labels first seen in either half, or in both; the second half's labels coded after the first's."""
    rng = random.Random(100 + seed)
    separator = rng.choice([" ", "\t"])
    lines = [separator.join([rng.choice(["1", "2", "10", "t-7", "x\xe9"]), str(rng.randint(0, 5)),
                             "".join(rng.choice("abcXYZ019") for _ in range(rng.randint(1, 4))),
                             rng.choice(["0", "1", "2", "-2", "L1", "+3"])]) for _ in range(rng.randint(2, 600))]
    assert_halves_split_alike(("\n".join(lines) + rng.choice(["", "\n"])).encode())


def test_the_halves_merge_labels_in_first_seen_order():
    """By hand: the second half (from "b 3 z") adds topic c, intent 3 and docno z after the first half's."""
    data = b"a 1 x 1\nb 2 y 0\nb 3 z 2\nc 1 x 1\n"
    rows, topic, intent, docno, level, offsets, texts, topics, intents = split_in_halves(data)
    assert rows == 4 and topics == [b"a", b"b", b"c"] and intents == [b"1", b"2", b"3"]
    assert np.frombuffer(topic, np.int32).tolist() == [0, 1, 1, 2]
    assert np.frombuffer(intent, np.int32).tolist() == [0, 1, 2, 0]
    assert np.frombuffer(docno, np.int32).tolist() == [0, 1, 2, 0]
    assert bytes(texts) == b"xyz" and np.frombuffer(offsets, np.int32).tolist() == [0, 1, 2, 3]
    assert np.frombuffer(level, np.int16).tolist() == [1, 0, 2, 1]


def test_a_second_half_with_the_other_separator_is_declined_as_one_pass_declines_it():
    data = b"1 1 a 1\n" * 3 + b"1\t1\tb\t1\n" * 3
    assert split(data) is None and split_in_halves(data) is None


@pytest.mark.parametrize("path", real_qrels(), ids=lambda path: "/".join(path.parts[-3:]))
def test_real_qrels_split_alike_in_halves(path):
    assert_halves_split_alike(path.read_bytes())


def test_a_mapped_file_read_in_halves_reads_as_its_bytes(tmp_path):
    """A file mapped (as the reader maps it: the pages behind each half given back as it is read, 4 MB at a time)
    in two halves, each longer than that."""
    import mmap

    rng = random.Random(7)
    data = b"".join(b"%d %d doc-%d %d\n" % (rng.randint(1, 50), rng.randint(1, 9), rng.randint(1, 10**5),
                                            rng.randint(0, 3)) for _ in range(600_000))
    path = tmp_path / "qrels.txt"
    path.write_bytes(data)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        with kernels_on(True):
            halves = native.kernels().split_qrels(mapped, True, 0)
    assert len(data) > 2 * (4 << 20) and halves is not None
    assert [bytes(part) if isinstance(part, bytearray) else part for part in halves] == \
        [bytes(part) if isinstance(part, bytearray) else part for part in split(data)]


def model_of(path: Path, on: bool, sorted_docnos_below: int | None = None):
    """The qrels built from the file read with the kernels on or off (``sorted_docnos_below``: the number of
    docnos below which packed ones are sorted by numpy, else Arrow), and its table of judged pairs."""
    from divaleval.model import judged
    from divaleval.model.qrels import build_qrels

    with kernels_on(on), pytest.MonkeyPatch.context() as patch:
        if sorted_docnos_below is not None:
            patch.setattr(judged, "SORTED_DOCNOS", sorted_docnos_below)
        qrels = build_qrels(read_qrels(str(path)), duplicates="last")
        return qrels, qrels.judged_table


def assert_same_model(path: Path) -> None:
    """The compiled reader's packed docnos, sorted by numpy or by Arrow, build the qrels and the table of judged
    pairs that Arrow's docnos build, to the bit; and only numpy's sort keeps them packed."""
    theirs, their_table = model_of(path, False)
    assert "_packed_docnos" not in theirs.__dict__
    for below, packed in ((1 << 30, True), (0, False)):
        ours, our_table = model_of(path, True, below)
        assert ("_packed_docnos" in ours.__dict__) == packed
        assert ours.docnos.to_pylist() == theirs.docnos.to_pylist() and ours.docnos.type == theirs.docnos.type
        for name in ("row_start", "row_key", "levels", "rel_count", "weights"):
            assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name
        assert ours.topic_ids == theirs.topic_ids and ours.intent_ids == theirs.intent_ids
        for name in ("length", "group", "hash"):
            assert np.array_equal(getattr(our_table.keys, name), getattr(their_table.keys, name)), name
        assert np.array_equal(our_table.slots, their_table.slots)
        assert np.array_equal(our_table.native_arrays[2], their_table.native_arrays[2])


@pytest.mark.parametrize("seed", range(4))
def test_random_plain_qrels_build_alike(tmp_path, seed):
    rng = random.Random(seed)
    lines = [" ".join([rng.choice(["1", "2", "10"]), str(rng.randint(1, 4)),
                       "".join(rng.choice("ab\xff0") for _ in range(rng.randint(1, 19))), rng.choice(["0", "1", "2"])])
             for _ in range(rng.randint(1, 300))]
    path = tmp_path / "qrels.txt"
    path.write_bytes("\n".join(lines).encode("latin-1") + b"\n")
    assert_same_model(path)


@pytest.mark.parametrize("path", real_qrels(), ids=lambda path: "/".join(path.parts[-3:]))
def test_real_qrels_build_alike(path):
    assert_same_model(path)
