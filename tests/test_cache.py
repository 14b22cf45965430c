"""The cache of qrels between calls (divaleval/model/stored.py): the same output bytes with it, without it, cold and
warm; a damaged, foreign or unwritable entry is ignored; changed qrels never hit an old entry.

The reference is divaleval's own output with the cache off (DIVALEVAL_CACHE=0, as every other test runs, which
the golden suites hold to ndeval's and the other tools' outputs): the cache must not change a byte of it."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from conftest import SAMPLE

QRELS = SAMPLE / "qrels.txt"
RUNS = SAMPLE / "runs"
# The ndeval set, then the catalogue at a relevance threshold (more derived quantities, the qrels at level 2).
CALLS = [[], ["-m", "all", "--rel-min", "2", "-f", "json"]]


def divaleval(cache: str, *args) -> bytes:
    """Standard output of ``divaleval ARGS`` with ``DIVALEVAL_CACHE=cache`` (it must succeed), in this process
    (click's runner; the command's start-up is not what is tested here)."""
    from click.testing import CliRunner

    from divaleval.cli import main_group

    done = CliRunner().invoke(main_group, list(map(str, args)), env={"DIVALEVAL_CACHE": cache})
    assert done.exit_code == 0, (done.output, done.exception)
    return done.stdout_bytes


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.qrels"))


def test_same_bytes_cold_warm_and_off(tmp_path):
    cache = tmp_path / "cache"
    for options in CALLS:
        expected = divaleval("0", *options, QRELS, RUNS)
        assert divaleval(str(cache), *options, QRELS, RUNS) == expected, options  # cold (or adding to the entry)
        assert divaleval(str(cache), *options, QRELS, RUNS) == expected, options  # warm
    assert len(entries(cache)) == 1  # one entry for one qrels, holding what every call derived


def test_an_entry_named_for_other_bytes_never_hits(tmp_path):
    """Qrels changed in place (same size, one level) get an entry of their own; each call's numbers are those
    of the bytes it read."""
    cache, qrels = tmp_path / "cache", tmp_path / "qrels.txt"
    text = QRELS.read_text()
    qrels.write_text(text)
    first = divaleval(str(cache), qrels, RUNS)
    line = next(line for line in text.splitlines() if line.endswith(" 1"))
    qrels.write_text(text.replace(line + "\n", line[:-1] + "0\n", 1))
    assert len(qrels.read_text()) == len(text)
    changed = divaleval(str(cache), qrels, RUNS)
    assert changed == divaleval("0", qrels, RUNS) and changed != first
    assert len(entries(cache)) == 2


def test_the_same_bytes_under_another_name_name_that_file(tmp_path):
    cache, copy = tmp_path / "cache", tmp_path / "judgments.txt"
    copy.write_bytes(QRELS.read_bytes())
    divaleval(str(cache), QRELS, RUNS)
    from divaleval.model import stored

    os.environ["DIVALEVAL_CACHE"] = str(cache)
    try:
        loaded = stored.load_qrels(str(copy))
    finally:
        os.environ["DIVALEVAL_CACHE"] = "0"
    assert loaded.name == str(copy) and loaded.cache  # from the entry (its derived quantities), named as read


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty", "garbage"])
def test_a_damaged_entry_is_ignored_and_written_again(tmp_path, damage):
    cache = tmp_path / "cache"
    expected = divaleval("0", QRELS, RUNS)
    divaleval(str(cache), QRELS, RUNS)
    [entry] = entries(cache)
    data = entry.read_bytes()
    damaged = {"truncated": data[: len(data) // 2], "flipped": data[:-100] + bytes([data[-100] ^ 1]) + data[-99:],
               "empty": b"", "garbage": b"not an entry at all"}[damage]
    entry.write_bytes(damaged)
    from divaleval.model import stored

    assert stored._read_entry(entry) is None
    assert divaleval(str(cache), QRELS, RUNS) == expected
    assert entry.read_bytes() != damaged and stored._read_entry(entry) is not None  # written whole again


@pytest.mark.parametrize("damage", [None, "truncated", "flipped first block", "flipped last block", "longer"])
def test_an_entry_read_in_blocks_is_checked_whole(tmp_path, monkeypatch, damage):
    """A large entry is read by a helper thread in blocks whose check sums are taken as they arrive: blocks of a
    few hundred bytes here (and of a number of bytes that cuts words), so that the sample's entry takes that
    path. A whole entry reads as the whole-file read reads it; a damage anywhere, or a file that ends early or
    late, is no entry."""
    from divaleval.model import stored

    cache = tmp_path / "cache"
    divaleval(str(cache), QRELS, RUNS)
    [entry] = entries(cache)
    data = entry.read_bytes()
    whole = stored._read_entry(entry)
    monkeypatch.setattr(stored, "READ_BLOCK", 253)
    assert len(data) > 8 * 253
    at = {"flipped first block": 200, "flipped last block": len(data) - 10}.get(damage)
    entry.write_bytes({None: data, "truncated": data[:-300], "longer": data + b"\0" * 64}.get(damage, data) if at is None
                      else data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
    read = stored._read_entry(entry)
    if damage is None:
        assert read is not None and stored._derived(read) == stored._derived(whole)
        assert all((read.__dict__[name] == whole.__dict__[name]).all() for name in ("levels", "weights", "rel_count"))
    else:
        assert read is None


def test_an_unwritable_cache_only_reads(tmp_path, monkeypatch):
    """A directory that cannot be made (its parent is a file) or written (mkstemp refused, as on a read-only
    filesystem): every call still evaluates, with the same bytes."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    expected = divaleval("0", QRELS, RUNS)
    assert divaleval(str(blocker / "cache"), QRELS, RUNS) == expected

    import tempfile

    import divaleval as library
    from divaleval.model import stored

    cache = tmp_path / "cache"
    divaleval(str(cache), QRELS, RUNS)  # an entry, then the directory "read-only"

    def refused(*args, **kwargs):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    monkeypatch.setenv("DIVALEVAL_CACHE", str(cache))
    before = entries(cache)[0].read_bytes()
    warm = library.evaluate(str(QRELS), str(RUNS), ["all"], warn=lambda m: None)  # derives more: cannot write it
    monkeypatch.setenv("DIVALEVAL_CACHE", "0")
    cold = library.evaluate(str(QRELS), str(RUNS), ["all"], warn=lambda m: None)
    assert warm.equals(cold)
    assert entries(cache)[0].read_bytes() == before
    assert not list(cache.glob("*.tmp"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_an_entry_another_user_owns_is_not_read(tmp_path):
    from divaleval.io.source import read_input
    from divaleval.model import stored

    cache = tmp_path / "cache"
    divaleval(str(cache), QRELS, RUNS)
    [entry] = entries(cache)
    assert stored._read_entry(entry) is not None
    os.chown(entry, 65534, 65534)
    assert stored._read_entry(entry) is None  # unpickling runs code: only our own entries are trusted
    assert read_input(str(QRELS)).name == str(QRELS)


def test_concurrent_writers_leave_a_whole_entry(tmp_path, monkeypatch):
    from divaleval.model import stored

    monkeypatch.setenv("DIVALEVAL_CACHE", "0")
    qrels = stored.load_qrels(str(QRELS))
    qrels.judged_table  # something derived, so that the entry is not trivial
    path = tmp_path / "cache" / "entry.qrels"
    writers = [threading.Thread(target=stored._write_entry, args=(path, qrels)) for _ in range(6)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    read = stored._read_entry(path)
    assert read is not None and (read.levels == qrels.levels).all() and read.topic_ids == qrels.topic_ids
    assert [p.name for p in path.parent.iterdir()] == ["entry.qrels"]  # no temporary left behind


@pytest.mark.parametrize("value", ["0", "off", "", "OFF"])
def test_turned_off(value, monkeypatch, tmp_path):
    from divaleval.model import stored

    monkeypatch.setenv("DIVALEVAL_CACHE", value)
    assert stored.cache_directory() is None
    monkeypatch.delenv("DIVALEVAL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert stored.cache_directory() == str(tmp_path / "divaleval")


@pytest.mark.parametrize("value", ["1", "on", "TRUE", "yes"])
def test_turned_on_is_the_usual_place_not_a_directory_of_that_name(value, monkeypatch, tmp_path):
    from divaleval.model import stored

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("DIVALEVAL_CACHE", value)
    assert stored.cache_directory() == str(tmp_path / "divaleval")
    monkeypatch.setenv("DIVALEVAL_CACHE", str(tmp_path / "mine"))
    assert stored.cache_directory() == str(tmp_path / "mine")


def test_the_arrays_are_read_in_place_aligned_and_writable(tmp_path):
    """Format 2: the arrays' bytes follow the pickle; read back they are views of the one block read (no copy),
    each at a multiple of ALIGN (the compiled kernels read their words in place), and writable as built."""
    import numpy as np

    from divaleval.model import stored

    qrels = stored.load_qrels(str(QRELS))  # (the cache is off: read and built)
    qrels.judged_table
    path = tmp_path / "entry.qrels"
    stored._write_entry(path, qrels)
    read = stored._read_entry(path)
    assert read is not None
    for name in ("levels", "row_key", "rel_count", "weights"):
        original, copy = getattr(qrels, name), getattr(read, name)
        assert copy.dtype == original.dtype and np.array_equal(copy, original), name
        assert copy.ctypes.data % stored.ALIGN == 0 and copy.flags.writeable, name
        assert not copy.flags.owndata, name  # a view of the block read, not a copy
    assert read.docnos.equals(qrels.docnos) and read.topic_ids == qrels.topic_ids


def test_docnos_kept_packed_through_two_entries_read_back_equal(tmp_path):
    """An entry keeps the docnos packed (numpy arrays: unpickling imports no pyarrow) and makes them an Arrow array
    when asked for; an entry written again from one read (something new derived) without asking for them keeps
    them packed, and they read back equal to the qrels built from the file."""
    from divaleval.model import stored

    qrels = stored.load_qrels(str(QRELS))
    first, second = tmp_path / "first.qrels", tmp_path / "second.qrels"
    stored._write_entry(first, qrels)
    read = stored._read_entry(first)
    assert "docnos" not in read.__dict__ and len(read._packed_docnos) == len(qrels.docnos)
    stored._write_entry(second, read)
    again = stored._read_entry(second)
    assert "docnos" not in again.__dict__
    assert again.docnos.equals(qrels.docnos) and again.docnos.to_pylist()[:2] == qrels.docnos.to_pylist()[:2]
    assert again.judged_table.keys.hash.tolist() == qrels.judged_table.keys.hash.tolist()


def _entry_bytes(tmp_path) -> tuple[Path, bytes]:
    from divaleval.model import stored

    qrels = stored.load_qrels(str(QRELS))
    qrels.judged_table
    path = tmp_path / "entry.qrels"
    assert stored._write_entry(path, qrels) is not None
    return path, path.read_bytes()


def test_an_entry_cut_anywhere_is_ignored(tmp_path):
    """Cut in its header, its table of buffer lengths, its pickle or its buffers."""
    from divaleval.model import stored

    path, data = _entry_bytes(tmp_path)
    _, length, _, _, pickled, count = stored.HEADER.unpack_from(data)
    table_end = stored.HEADER.size + stored.LENGTH.size * count
    cuts = [0, 7, stored.HEADER.size - 1, stored.HEADER.size, table_end - 3, table_end + pickled // 2,
            table_end + pickled, len(data) // 2, len(data) - 4097, len(data) - 1]
    for cut in cuts:
        path.write_bytes(data[:cut])
        assert stored._read_entry(path) is None, cut
    path.write_bytes(data + b"\0" * 64)  # longer than its header says
    assert stored._read_entry(path) is None
    path.write_bytes(data)
    assert stored._read_entry(path) is not None


def test_an_entry_whose_layout_disagrees_with_its_checksum_is_ignored(tmp_path):
    """A header claiming another pickle length or buffer count (the check sums cover what follows the header):
    the layout does not add up to the file's length, or the pickle is cut, so the entry is refused rather than
    unpickled from the wrong bytes."""
    from divaleval.model import stored

    path, data = _entry_bytes(tmp_path)
    magic, length, first_sum, second_sum, pickled, count = stored.HEADER.unpack_from(data)
    assert (first_sum, second_sum) == word_sums_by_hand(data[stored.HEADER.size:])
    for changed in [(pickled + stored.ALIGN, count), (pickled - 1, count), (pickled, count - 1), (pickled, count + 1)]:
        header = stored.HEADER.pack(magic, length, first_sum, second_sum, *changed)
        path.write_bytes(header + data[stored.HEADER.size:])
        assert stored._read_entry(path) is None, changed
    # A buffer length changed and the checksum recomputed: the buffers no longer end where the file does.
    body = bytearray(data[stored.HEADER.size:])
    first = stored.LENGTH.unpack_from(body)[0]
    stored.LENGTH.pack_into(body, 0, first + 1)
    path.write_bytes(stored.HEADER.pack(magic, length, *word_sums_by_hand(body), pickled, count) + bytes(body))
    assert stored._read_entry(path) is None


def word_sums_by_hand(body: bytes) -> tuple[int, int]:
    """An entry's check sums from their definition, word by word in Python integers: the 64-bit little-endian
    words of the body (the last padded with zero bytes), their sum and the sum of each times its place (1, 2,
    ...), modulo 2**64."""
    words = [int.from_bytes(body[at:at + 8].ljust(8, b"\0"), "little") for at in range(0, len(body), 8)]
    return sum(words) % 2**64, sum(place * word for place, word in enumerate(words, 1)) % 2**64


def test_the_check_sums_of_a_few_bytes_by_hand():
    """Twenty bytes 0, 1, ..., 19: words 0x0706050403020100, 0x0f0e0d0c0b0a0908 and 0x13121110 (padded); the
    first sum is theirs, the second 1, 2 and 3 times them; from any word on, carried over the words before."""
    from divaleval.model import stored

    body = bytes(range(20))
    words = [0x0706050403020100, 0x0F0E0D0C0B0A0908, 0x13121110]
    expected = (sum(words), words[0] + 2 * words[1] + 3 * words[2])
    assert stored._word_sums(body) == expected == word_sums_by_hand(body)
    assert stored._word_sums(body[8:], 1, stored._word_sums(body[:8])) == expected
    assert stored._word_sums(b"") == (0, 0)
    # Past 2**64 both wrap: 2**64 - 1 twice sums to 2**64 - 2; weighted, 3 * (2**64 - 1) = 2**64 - 3.
    assert stored._word_sums(b"\xff" * 16) == (2**64 - 2, 2**64 - 3)


def test_the_check_sums_of_many_words_match_their_definition(monkeypatch):
    """More words than one stretch summed at a time (SUM_WORDS made small), in stretches that end anywhere."""
    import random

    from divaleval.model import stored

    monkeypatch.setattr(stored, "SUM_WORDS", 7)
    body = random.Random(4).randbytes(8 * 50 + 5)
    assert stored._word_sums(body) == word_sums_by_hand(body)


def test_an_entry_of_the_first_format_is_ignored(tmp_path):
    """Format 1 (one in-band pickle after a header of magic, length and CRC-32) under an entry's name."""
    import pickle
    import struct
    import zlib

    from divaleval.model import stored

    payload = pickle.dumps(stored.load_qrels(str(QRELS)), protocol=pickle.HIGHEST_PROTOCOL)
    path = tmp_path / "entry.qrels"
    path.write_bytes(struct.pack("<8sQI", b"DIVQRLS\x00", len(payload), zlib.crc32(payload)) + payload)
    assert stored._read_entry(path) is None


def test_a_small_entry_reads_back(tmp_path):
    """An entry of a few judgments (its buffers smaller than the alignment)."""
    from divaleval.model import Qrels, stored

    qrels = Qrels.from_arrays(["1", "1", "2"], None, ["a", "b", "a"], [1, 0, 2])
    path = tmp_path / "entry.qrels"
    assert stored._write_entry(path, qrels) is not None
    read = stored._read_entry(path)
    assert read is not None and read.topic_ids == qrels.topic_ids and (read.levels == qrels.levels).all()


# -- the stat memo: a file unchanged since it was hashed is not hashed again -------------------------------------------

@pytest.fixture
def hashes(monkeypatch) -> list[int]:
    """Each hash of qrels' bytes from now on, by its size in bytes."""
    from divaleval.model import stored

    seen: list[int] = []
    digest = stored._digest

    def counted(data):
        seen.append(len(data))
        return digest(data)

    monkeypatch.setattr(stored, "_digest", counted)
    return seen


@pytest.fixture
def an_hour_later(monkeypatch) -> None:
    """The cache's clock an hour ahead: files written by the test count as settled (their change time cannot be set
    back, so the margin is passed this way rather than by waiting)."""
    import time

    from divaleval.model import stored

    monkeypatch.setattr(stored, "_clock", lambda: time.time_ns() + 3600 * 10**9)


def _old_copy(path: Path, text: str) -> Path:
    """``text`` written to ``path``, its modification time set back a day."""
    path.write_text(text)
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns - 86400 * 10**9))
    return path


def _same_size_edit(text: str) -> str:
    """The qrels with one judgment's level changed (1 to 0), the same number of bytes."""
    line = next(line for line in text.splitlines() if line.endswith(" 1"))
    changed = text.replace(line + "\n", line[:-1] + "0\n", 1)
    assert len(changed) == len(text) and changed != text
    return changed


def _memos(cache: Path) -> list[Path]:
    return sorted((cache / "files").glob("*")) if (cache / "files").is_dir() else []


def _later_change_time(path: Path, before: int) -> None:
    """Wait until the change time of ``path`` differs from ``before`` (setting its times again moves it): two writes
    in one tick of the filesystem's clock are the margin's business, not these tests'."""
    import time

    for _ in range(300):
        status = path.stat()
        if status.st_ctime_ns != before:
            return
        time.sleep(0.01)
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    pytest.fail("the change time never moved")


def test_an_unchanged_file_is_not_hashed_again(tmp_path, hashes, an_hour_later):
    from divaleval.model import stored

    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    expected = divaleval("0", qrels, RUNS)
    assert divaleval(str(cache), qrels, RUNS) == expected and hashes == [qrels.stat().st_size]
    [memo] = _memos(cache)
    status = qrels.stat()
    assert memo.name == f"{status.st_dev}-{status.st_ino}" and memo.stat().st_size == 72
    for options in CALLS:
        hashes.clear()
        assert divaleval(str(cache), *options, qrels, RUNS) == divaleval("0", *options, qrels, RUNS), options
        assert hashes == [], options  # the key came from the memo
    key = stored._recall(cache, stored._signature(os.stat(qrels)))
    assert key is not None and len(entries(cache)) == 1 and entries(cache)[0].name.startswith(key + "-")


def test_an_edit_with_its_modification_time_restored_is_hashed_again(tmp_path, hashes, an_hour_later):
    """The same size, the modification time set back to the nanosecond (as ``cp -p`` or ``rsync -t`` would): the
    change time moved, so the memo no longer matches."""
    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    first = divaleval(str(cache), qrels, RUNS)
    before = qrels.stat()
    qrels.write_text(_same_size_edit(QRELS.read_text()))
    os.utime(qrels, ns=(before.st_atime_ns, before.st_mtime_ns))
    _later_change_time(qrels, before.st_ctime_ns)
    after = qrels.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    hashes.clear()
    changed = divaleval(str(cache), qrels, RUNS)
    assert hashes == [after.st_size] and changed == divaleval("0", qrels, RUNS) and changed != first
    assert len(entries(cache)) == 2
    hashes.clear()
    assert divaleval(str(cache), qrels, RUNS) == changed and hashes == []  # the memo refreshed


def test_a_file_renamed_into_place_is_hashed_again(tmp_path, hashes, an_hour_later):
    """Another file of the same size and modification time renamed over the qrels: another inode."""
    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    first = divaleval(str(cache), qrels, RUNS)
    before = qrels.stat()
    other = tmp_path / "other.txt"
    other.write_text(_same_size_edit(QRELS.read_text()))
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, qrels)
    after = qrels.stat()
    assert after.st_ino != before.st_ino and (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    hashes.clear()
    replaced = divaleval(str(cache), qrels, RUNS)
    assert hashes == [after.st_size] and replaced == divaleval("0", qrels, RUNS) and replaced != first


@pytest.mark.parametrize("written", ["just now", "modification time set back"])
def test_a_file_written_within_the_margin_gets_no_memo(tmp_path, hashes, written):
    """Its times (the change time at least: it cannot be set back) are within the margin of now: a write in the same
    tick could leave them as they are, so every call hashes it; its entry is written and used all the same."""
    cache, qrels = tmp_path / "cache", tmp_path / "qrels.txt"
    if written == "just now":
        qrels.write_text(QRELS.read_text())
    else:
        _old_copy(qrels, QRELS.read_text())
    expected = divaleval("0", qrels, RUNS)
    size = qrels.stat().st_size
    for hashed in ([size, size], [size], [size]):  # (the first call hashes again after parsing, to write its entry)
        hashes.clear()
        assert divaleval(str(cache), qrels, RUNS) == expected and hashes == hashed
        assert _memos(cache) == [] and len(entries(cache)) == 1


def _memo_damages(memo: bytes) -> dict[str, bytes]:
    """Ways a memo can be wrong: not whole, not a memo at all, or whole and naming no entry."""
    import zlib

    from divaleval.model import stored

    body = bytearray(memo[:stored.MEMO.size])
    body[-20:] = bytes(20)  # a key with no entry
    return {"truncated": memo[:40], "empty": b"", "garbage": b"x" * len(memo), "longer": memo + b"\0",
            "flipped": memo[:30] + bytes([memo[30] ^ 1]) + memo[31:],
            "no entry": bytes(body) + stored.CRC.pack(zlib.crc32(body))}


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage", "longer", "flipped", "no entry"])
def test_a_damaged_memo_is_no_memo(tmp_path, hashes, an_hour_later, damage):
    from divaleval.model import stored

    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    expected = divaleval("0", qrels, RUNS)
    divaleval(str(cache), qrels, RUNS)
    [memo] = _memos(cache)
    whole = memo.read_bytes()
    memo.write_bytes(_memo_damages(whole)[damage])
    if damage == "no entry":
        assert stored._recall(cache, stored._signature(os.stat(qrels))) == "00" * 20
    else:
        assert stored._recall(cache, stored._signature(os.stat(qrels))) is None
    hashes.clear()
    assert divaleval(str(cache), qrels, RUNS) == expected and hashes == [qrels.stat().st_size]
    assert memo.read_bytes() == whole  # written again, whole
    hashes.clear()
    assert divaleval(str(cache), qrels, RUNS) == expected and hashes == []


def test_a_memo_whose_entry_is_gone_leads_to_hashing(tmp_path, hashes, an_hour_later):
    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    expected = divaleval("0", qrels, RUNS)
    divaleval(str(cache), qrels, RUNS)
    [entry] = entries(cache)
    entry.unlink()
    hashes.clear()
    assert divaleval(str(cache), qrels, RUNS) == expected and hashes == [qrels.stat().st_size]
    assert entries(cache) == [entry]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_a_memo_another_user_owns_is_not_read(tmp_path, hashes, an_hour_later):
    from divaleval.model import stored

    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    divaleval(str(cache), qrels, RUNS)
    [memo] = _memos(cache)
    os.chown(memo, 65534, 65534)
    assert stored._recall(cache, stored._signature(os.stat(qrels))) is None
    hashes.clear()
    divaleval(str(cache), qrels, RUNS)
    assert hashes == [qrels.stat().st_size]


@pytest.mark.parametrize("value", ["0", "off", "", "No"])
def test_the_memo_turned_off_hashes_every_call(tmp_path, hashes, an_hour_later, monkeypatch, value):
    monkeypatch.setenv("DIVALEVAL_CACHE_STAT", value)
    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    expected = divaleval("0", qrels, RUNS)
    for _ in range(3):
        hashes.clear()
        assert divaleval(str(cache), qrels, RUNS) == expected and hashes == [qrels.stat().st_size]
    assert _memos(cache) == [] and len(entries(cache)) == 1


def test_a_read_only_cache_records_no_memo(tmp_path, hashes, an_hour_later, monkeypatch):
    """mkstemp refused (as on a read-only filesystem), the entry there already or not: the same bytes, every call
    hashing, nothing left behind."""
    import tempfile

    cache, qrels = tmp_path / "cache", _old_copy(tmp_path / "qrels.txt", QRELS.read_text())
    expected = divaleval("0", qrels, RUNS)
    divaleval(str(cache), qrels, RUNS)
    for memo in _memos(cache):
        memo.unlink()

    def refused(*args, **kwargs):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    for where in (cache, tmp_path / "empty"):
        for _ in range(2):
            hashes.clear()
            assert divaleval(str(where), qrels, RUNS) == expected and hashes == [qrels.stat().st_size]
        assert _memos(where) == [] and not list(where.rglob("*.tmp"))


def test_a_file_rewritten_while_it_is_read_leaves_no_entry(tmp_path, hashes, an_hour_later, monkeypatch):
    """Rewritten (same size, modification time restored) after it was hashed and before it was parsed: the call's
    numbers are those it parsed, and no entry keeps them under the first bytes' key, so that a later call on the
    first bytes gets their own numbers."""
    from divaleval.model import stored

    cache, text = tmp_path / "cache", QRELS.read_text()
    qrels = _old_copy(tmp_path / "qrels.txt", text)
    first = divaleval("0", qrels, RUNS)
    read_qrels = stored.read_qrels

    def rewritten_first(source):
        before = qrels.stat()
        qrels.write_text(_same_size_edit(text))
        os.utime(qrels, ns=(before.st_atime_ns, before.st_mtime_ns))
        _later_change_time(qrels, before.st_ctime_ns)
        return read_qrels(source)

    monkeypatch.setattr(stored, "read_qrels", rewritten_first)
    raced = divaleval(str(cache), qrels, RUNS)
    monkeypatch.setattr(stored, "read_qrels", read_qrels)
    assert raced == divaleval("0", qrels, RUNS) and raced != first
    assert entries(cache) == []  # (its memo, of the first bytes' state, no longer matches the file)
    _old_copy(qrels, text)
    assert divaleval(str(cache), qrels, RUNS) == first


def test_standard_input_and_compressed_files_are_hashed_every_call(tmp_path, hashes, an_hour_later):
    """Their bytes are a copy made by the call (decompressed): hashed each time, the entry found by the hash."""
    import gzip

    from click.testing import CliRunner

    from divaleval.cli import main_group

    cache = tmp_path / "cache"
    expected = divaleval("0", QRELS, RUNS)
    packed = tmp_path / "qrels.txt.gz"
    packed.write_bytes(gzip.compress(QRELS.read_bytes()))
    os.utime(packed, ns=(0, 10**18))
    size = QRELS.stat().st_size
    for _ in range(2):
        hashes.clear()
        assert divaleval(str(cache), packed, RUNS) == expected and hashes == [size]
        hashes.clear()
        done = CliRunner().invoke(main_group, ["-", str(RUNS)], input=QRELS.read_bytes(),
                                  env={"DIVALEVAL_CACHE": str(cache)})
        assert done.exit_code == 0 and done.stdout_bytes == expected and hashes == [size]
    assert _memos(cache) == [] and len(entries(cache)) == 1


def test_the_ndeval_drop_in_keeps_its_own_entries(tmp_path, monkeypatch):
    """`divaleval ndeval` reads qrels by ndeval's rules (levels above 1 count as 1, a repeated judgment's last line
    stands): its entries are its own, and a warm call prints ndeval's bytes without reading the qrels."""
    from conftest import NDEVAL_EXAMPLES as EX
    from conftest import run_ndeval

    from divaleval.compat import ndeval

    cache = tmp_path / "cache"
    assert "2" in {line.split()[3] for line in (EX / "qrels.txt").read_text().splitlines()}  # graded levels
    divaleval(str(cache), EX / "qrels.txt", EX / "runA.txt")  # the main command's entry, graded levels kept
    monkeypatch.setenv("DIVALEVAL_CACHE", str(cache))
    expected = (EX / "expected" / "runA.default.csv").read_text()
    assert run_ndeval([EX / "qrels.txt", EX / "runA.txt"]) == (0, expected, "")  # cold: read by ndeval's rules
    assert sorted(path.name.endswith("-ndeval.qrels") for path in entries(cache)) == [False, True]

    def no_reading(source):
        raise AssertionError("the qrels were read again")

    monkeypatch.setattr(ndeval, "read_qrels", no_reading)
    assert run_ndeval([EX / "qrels.txt", EX / "runA.txt"]) == (0, expected, "")  # warm: from its entry
    assert run_ndeval(["-c", "-baseline", EX / "runB.txt", EX / "qrels.txt", EX / "runA.txt"]) == \
        (0, (EX / "expected" / "runA.c.baselineB.csv").read_text(), "")
    assert divaleval(str(cache), EX / "qrels.txt", EX / "runA.txt") == divaleval("0", EX / "qrels.txt", EX / "runA.txt")
