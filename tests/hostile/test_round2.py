"""Hostile input, round 2 (issue 26): compressed inputs, Ctrl-C, huge cutoffs, topic ids written
otherwise, ids in messages. Each test states the exact behaviour: status, message, output bytes."""
from __future__ import annotations

import bz2
import glob
import gzip
import io
import lzma
import os
import signal
import subprocess
import sys
import time
import zipfile

import pytest

from conftest import SAMPLE, run_cli, run_ndeval, sigint_as_a_terminal_sends_it
from divaleval.errors import InputError, as_written, describe_unknown_topics
from divaleval.io import read_run
from divaleval.io import source
from divaleval.io.source import peek_input, read_input
from divaleval.output.atomic import atomic_output

QRELS = SAMPLE / "qrels.txt"
RUN = SAMPLE / "runs" / "bm25.txt"


# -- A. compressed inputs -----------------------------------------------------------------------

def _arrow_compress(codec: str):
    def compress(data: bytes) -> bytes:
        import pyarrow as pa

        if not pa.Codec.is_available(codec):
            pytest.skip(f"this pyarrow has no {codec} codec to write the test file")
        return pa.compress(data, codec=codec, asbytes=True)
    return compress


COMPRESSORS = {
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstd": _arrow_compress("zstd"),
    "lz4": _arrow_compress("lz4"),
}


@pytest.mark.parametrize("name", sorted(COMPRESSORS))
def test_compressed_runs_and_qrels_are_read_by_their_bytes_whatever_their_name(tmp_path, name):
    expected = run_cli([QRELS, RUN])
    assert expected.returncode == 0
    packed = COMPRESSORS[name](RUN.read_bytes())
    qrels = tmp_path / "qrels"  # no extension: told by its first bytes
    qrels.write_bytes(COMPRESSORS[name](QRELS.read_bytes()))
    for path in (tmp_path / "run.txt", tmp_path / f"run.{name}"):
        path.write_bytes(packed)
        result = run_cli([qrels, path])
        assert (result.returncode, result.stdout, result.stderr) == (0, expected.stdout, b"")
    result = run_cli([qrels, "-"], stdin=packed)
    assert (result.returncode, result.stdout) == (0, expected.stdout)
    # The compiled splitter (and Arrow) only ever see the decompressed copy.
    table, plain = read_run(str(tmp_path / "run.txt")), read_run(str(RUN))
    assert table.docno.to_pylist() == plain.docno.to_pylist() and list(table.score) == list(plain.score)
    with read_input(str(tmp_path / "run.txt")).mapped() as data:
        assert bytes(data) == RUN.read_bytes()
    head = peek_input(str(tmp_path / "run.txt"))
    assert head.data == RUN.read_bytes() and head.whole


def test_concatenated_streams_are_read_whole(tmp_path):
    for name in ("bzip2", "xz", "zstd"):
        path = tmp_path / f"two.{name}"
        path.write_bytes(COMPRESSORS[name](b"1 Q0 a 1 2 r\n") + COMPRESSORS[name](b"1 Q0 b 2 1 r\n"))
        assert read_input(str(path)).data == b"1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n"


@pytest.mark.parametrize("name", sorted(COMPRESSORS))
def test_truncated_or_corrupt_compressed_data_is_an_error_naming_the_file(tmp_path, name):
    packed = COMPRESSORS[name](RUN.read_bytes())
    path = tmp_path / "cut.txt"
    path.write_bytes(packed[: len(packed) // 2])
    result = run_cli([QRELS, path])
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.startswith(f"divaleval: {path}: cannot decompress {name} data: ".encode())
    assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
    with pytest.raises(InputError, match=f"^<stdin>: cannot decompress {name} data: "):
        source._spooled("<stdin>", io.BytesIO(packed[: len(packed) // 2]))
    assert peek_input(str(path)) is None  # the full read reports it


def test_corrupt_bzip2_xz_and_zstd_data_say_what_is_wrong(tmp_path):
    reasons = {"bzip2": "Invalid data stream", "xz": "Corrupt input data", "zstd": ""}
    for name, reason in reasons.items():
        packed = bytearray(COMPRESSORS[name](RUN.read_bytes()))
        packed[len(packed) // 2] ^= 0xFF
        path = tmp_path / f"bad.{name}"
        path.write_bytes(bytes(packed))
        with pytest.raises(InputError) as error:
            read_input(str(path))
        assert str(error.value).startswith(f"{path}: cannot decompress {name} data: {reason}")


@pytest.mark.parametrize("kind, data, message", [
    ("zip", None, "a zip archive, not a text file: extract it first (unzip {file})"),
    ("7z", b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(24), "a 7z archive, not a text file: extract it first (7z x {file})"),
])
def test_archives_are_named_not_read(tmp_path, kind, data, message):
    path = tmp_path / f"run.{kind}"
    if data is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.write(RUN, "bm25.txt")
    else:
        path.write_bytes(data)
    result = run_cli([QRELS, path])
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr == f"divaleval: {path}: {message.format(file=path)}\n".encode()
    result = run_cli([QRELS, "-"], stdin=path.read_bytes())
    assert result.stderr == f"divaleval: <stdin>: {message.format(file='FILE')}\n".encode()


def test_zstd_without_a_module_to_read_it_is_refused_with_advice(tmp_path, monkeypatch):
    path = tmp_path / "run file.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(20))
    monkeypatch.setattr(source, "_arrow_codec", lambda codec: None)
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import fails
    monkeypatch.setitem(sys.modules, "compression", None)
    with pytest.raises(InputError) as error:
        read_input(str(path))
    assert str(error.value) == (f"{path}: zstd-compressed; decompress it first (zstd -d '{path}') "
                                "or install zstandard")
    assert peek_input(str(path)) is None


def test_text_that_starts_like_bzip2_is_text(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"BZh1 Q0 a 1 2 r\n")
    assert source.compression_of(path.read_bytes()) is None
    assert read_input(str(path)).data == b"BZh1 Q0 a 1 2 r\n"


# -- B. Ctrl-C ---------------------------------------------------------------------------------

def _wait_for(pattern: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not glob.glob(pattern):
        assert process.poll() is None and time.monotonic() < deadline, "never got there"
        time.sleep(0.002)


def test_ctrl_c_while_reading_exits_130_and_says_so(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    process = subprocess.Popen([sys.executable, "-m", "divaleval", str(QRELS), "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               preexec_fn=sigint_as_a_terminal_sends_it)
    process.stdin.write(RUN.read_bytes()[:200])
    process.stdin.flush()
    _wait_for(str(tmp_path / "divaleval-*.input"), process)  # reading standard input, which stays open
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, b"", b"divaleval: interrupted\n")
    assert os.listdir(tmp_path) == []  # the copy of standard input is removed


def test_ctrl_c_while_writing_leaves_no_partial_output_file(tmp_path):
    qrels = tmp_path / "qrels.txt"
    with qrels.open("w") as handle:
        for topic in range(1, 7):
            for doc in range(500):
                for intent in (1, 2, 3):
                    handle.write(f"{topic} {intent} d{doc} {(doc * intent + topic) % 2}\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "prefs.txt"
    process = subprocess.Popen([sys.executable, "-m", "divaleval", "simulate-preferences", "--kind", "pairs",
                                "-o", str(target), str(qrels)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=sigint_as_a_terminal_sends_it)
    _wait_for(str(out_dir / ".divaleval-*"), process)  # writing
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, b"", b"divaleval: interrupted\n")
    assert os.listdir(out_dir) == []


@pytest.mark.parametrize("stop", [KeyboardInterrupt, OSError, ValueError])
def test_atomic_output_is_whole_or_absent(tmp_path, stop):
    target = tmp_path / "out.txt"
    with pytest.raises(stop):
        with atomic_output(str(target)) as handle:
            handle.write("half")
            raise stop()
    assert os.listdir(tmp_path) == []
    target.write_text("old")
    with atomic_output(str(target)) as handle:
        handle.write("new \udcff")
    assert target.read_bytes() == b"new \xff" and os.listdir(tmp_path) == ["out.txt"]
    with pytest.raises(FileExistsError):
        with atomic_output(str(target), binary=True, replace=False) as handle:
            handle.write(b"x")
    assert target.read_bytes() == b"new \xff" and os.listdir(tmp_path) == ["out.txt"]
    umask = os.umask(0o022)
    os.umask(umask)
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~umask)


# -- D. topic ids written otherwise ---------------------------------------------------------------

ZERO_QRELS = "101 1 a 1\n101 2 b 1\n101 1 c 1\n102 1 d 1\n"
ZERO_RUN = "101 Q0 a 1 3 r\n0101 Q0 b 2 2 r\n0101 Q0 c 3 1 r\n102 Q0 d 1 1 r\n7 Q0 x 1 1 r\n"


def test_a_topic_written_with_leading_zeros_is_another_topic_and_the_warning_says_so(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text(ZERO_QRELS)
    run.write_text(ZERO_RUN)
    result = run_cli(["-m", "ERR-IA@5", qrels, run])
    assert result.returncode == 0
    assert result.stdout == b"runid,topic,ERR-IA@5\nr,101,0.363086\nr,102,0.726172\nr,amean,0.544629\n"
    assert result.stderr.decode() == (
        f"divaleval: warning: {run}: topic 0101 is not in the qrels; its 2 lines are ignored (the qrels have "
        "topic 101: topic ids are compared as text; `divaleval ndeval` reads them as numbers)\n"
        f"divaleval: warning: {run}: topics not in the qrels are ignored: 7 (1 line)\n")
    # ndeval compares numbers: 0101 is topic 101, with all three documents.
    status, out, _err = run_ndeval([qrels, run])
    assert status == 0
    assert [line.split(",")[:3] for line in out.splitlines()[:4]] == [
        ["runid", "topic", "ERR-IA@5"], ["r", "7", "0.000000"], ["r", "101", "0.605144"], ["r", "102", "0.726172"]]


def test_unknown_topic_warnings():
    assert describe_unknown_topics("R", [], ["1"]) == []
    assert describe_unknown_topics("R", ["9", "x"], ["1", "01x"]) == ["R: topics not in the qrels are ignored: 9, x"]
    assert describe_unknown_topics("R", ["9", "x"], ["1"], [2, 1]) == [
        "R: topics not in the qrels are ignored: 9 (2 lines), x (1 line)"]
    assert describe_unknown_topics("R", ["001", "02", "3" * 5000], ["1", "2", "0"]) == [
        "R: topics 001, 02 are not in the qrels; their lines are ignored (the qrels have topics 1, 2: topic ids "
        "are compared as text; `divaleval ndeval` reads them as numbers)",
        f"R: topics not in the qrels are ignored: {'3' * 5000}"]
    assert describe_unknown_topics("R", ["001", "02", "3"], ["1", "2"], [4, 1, 7]) == [
        "R: topics 001 (4 lines), 02 (1 line) are not in the qrels; their lines are ignored (the qrels have "
        "topics 1, 2: topic ids are compared as text; `divaleval ndeval` reads them as numbers)",
        "R: topics not in the qrels are ignored: 3 (7 lines)"]
    assert describe_unknown_topics("R", ["101"], ["0101"], [1])[0].startswith(
        "R: topic 101 is not in the qrels; its 1 line is ignored (the qrels have topic 0101")
    many = [str(900 + k) for k in range(12)]
    assert describe_unknown_topics("R", many, ["1"], [1] * 10 + [2, 3]) == [
        "R: topics not in the qrels are ignored: " + ", ".join(f"{t} (1 line)" for t in many[:10])
        + " and 2 more (5 lines)"]


# -- E. ids in messages ----------------------------------------------------------------------------

def test_ids_in_messages_are_shown_as_written():
    assert as_written(b"doc-101-001") == "doc-101-001"
    assert as_written(b"d\xffx") == "d\\xffx"
    assert as_written("d\udcffx") == "d\\xffx"  # a str holding undecodable bytes (surrogateescape)
    assert as_written("caf\u00e9".encode()) == "caf\u00e9"


def test_a_repeated_qrels_line_names_the_document_as_written(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"1 1 doc-101-001 1\n1 1 doc-101-001 0\n")
    run = tmp_path / "run"
    run.write_bytes(b"1 Q0 doc-101-001 1 1 r\n")
    result = run_cli([qrels, run])
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode() == (f"divaleval: {qrels}:2: judgment of document doc-101-001 for intent 1 of "
                                      f"topic 1 repeats line 1\n")


# -- C. huge cutoffs ---------------------------------------------------------------------------------

def test_a_cutoff_past_every_ranking_costs_nothing_and_scores_as_the_deepest_list():
    measures = ["alpha-nDCG", "nERR-IA", "NRBP", "P+Q#", "D#-nDCG", "IA-nERR", "RBU", "GAP", "strec",
                "ERR-IA(alpha=0.01)", "wg-alpha-nDCG", "CT", "EU"]
    # Past every ranking (15 documents), every ideal list (the qrels' 374 lines) and the ranks where the
    # ideal-ideal normaliser's terms vanish (about 3,700 with alpha=0.01): nothing changes.
    for cutoff in ("5000", "1000000000"):
        start = time.monotonic()
        result = run_cli([*(f"-m{m}@{cutoff}" for m in measures), QRELS, RUN])
        assert result.returncode == 0 and time.monotonic() - start < 60, result.stderr
        body = result.stdout.split(b"\n", 1)[1]
        if cutoff == "5000":
            expected = body
    assert body == expected


@pytest.mark.parametrize("measure", ["nERR-IA(alpha=0)@1000000000", "alpha-DCG(alpha=0)@10000001",
                                     "ERR-IA(alpha=0.000001)@100000000", "alpha-nDCG(alpha=0)@20000000"])
def test_a_normaliser_that_would_sum_minutes_of_ranks_is_refused_when_parsed(measure):
    result = run_cli(["-m", measure, QRELS, RUN])
    name, cutoff = measure.split("@")
    alpha = name.split("alpha=")[1].rstrip(")")
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().endswith(
        f"Error: measure '{measure}': cutoff {cutoff} with alpha={float(alpha):g}: the normaliser (every rank "
        "covering every intent) would add a term at each of more than 10000000 ranks (about a second per "
        "10^7); give a cutoff of at most 10000000 or a larger alpha\n")


def test_cutoffs_beyond_a_billion_are_refused_when_parsed():
    result = run_cli(["-m", "ERR-IA@3000000000", QRELS, RUN])
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().endswith(
        "Error: measure 'ERR-IA@3000000000': cutoff of ERR-IA must be between 1 and 1000000000\n")


def test_alpha_one_takes_any_cutoff():
    result = run_cli(["-m", "ERR-IA(alpha=1)@1000000000", "-m", "alpha-nDCG(alpha=1)@1000000000", QRELS, RUN])
    assert result.returncode == 0 and result.stderr == b""


def _group_members(group: int) -> list[int]:
    """The processes of a process group that have not ended (zombies aside), found in /proc."""
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(stat.split("/")[2]))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the worker processes in /proc")
def test_ctrl_c_with_worker_processes_exits_130_quietly_and_leaves_none(tmp_path):
    """-j 2 scores runs in two worker processes; Ctrl-C reaches all of them (the terminal signals the whole
    group). Sent as soon as the first worker exists (while the pool is being made, when a worker interrupted
    half made printed a traceback or left the pool's lock held and the command hung), then once both are
    working: no worker prints its own KeyboardInterrupt, the command says it was interrupted, exits 130 and
    leaves no process behind. Its output (some 200 KB, not read until the signal) fills the pipe, so the pool
    is alive, whatever the machine's speed, when the signal comes."""
    (tmp_path / "qrels").write_text("".join(f"{t} {i} d{d} {(t + i + d) % 2}\n"
                                            for t in range(1, 41) for i in (1, 2) for d in range(20)))
    runs = []
    for r in range(12):
        run = tmp_path / f"run{r}"
        run.write_text("".join(f"{t} Q0 d{(d * 7 + r) % 20} {d + 1} {20 - d} r{r}\n"
                               for t in range(1, 41) for d in range(20)))
        runs.append(str(run))
    for workers_seen in (1, 1, 1, 1, 1, 2, 2):
        process = subprocess.Popen([sys.executable, "-m", "divaleval", "-j", "2", str(tmp_path / "qrels"), *runs],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                   env=dict(os.environ, DIVALEVAL_CACHE="0"),
                                   preexec_fn=sigint_as_a_terminal_sends_it)
        deadline = time.monotonic() + 60
        while len(_group_members(process.pid)) < 1 + workers_seen:
            assert process.poll() is None and time.monotonic() < deadline, "the workers never started"
            time.sleep(0.0005)
        os.killpg(process.pid, signal.SIGINT)   # as a terminal's Ctrl-C: the command and its workers
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail("the command hung after Ctrl-C")
        assert (process.returncode, err) == (130, b"divaleval: interrupted\n")
        deadline = time.monotonic() + 10
        while _group_members(process.pid):
            assert time.monotonic() < deadline, "a worker outlived the command"
            time.sleep(0.01)
