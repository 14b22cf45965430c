"""Output formats, number formatting and the warnings channel."""
from __future__ import annotations

import ctypes
import ctypes.util
import json
import random

import pytest

from conftest import NDEVAL_EXAMPLES as EX, run_cli
import numpy as np

from divaleval.output import c_fixed
from divaleval.output.formatting import c_fixed_rows

LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


def printf(value: float, digits: int) -> str:
    buffer = ctypes.create_string_buffer(512)
    LIBC.snprintf(buffer, 512, b"%.*f", ctypes.c_int(digits), ctypes.c_double(value))
    return buffer.value.decode()


def test_fixed_point_formatting_is_the_c_librarys():
    rng = random.Random(5)
    values = [0.0078125, 0.5, 1.5, 2.5, 0.0000005, 0.00000049999999999999, 1e-7, 0.1234565, -0.0, -1e-9,
              1.0000005, 0.9999995, 123456.7890125]
    values += [rng.random() for _ in range(3000)] + [rng.randint(0, 2**20) / 2**20 for _ in range(2000)]
    for value in values:
        for digits in (4, 6):
            assert c_fixed(value, digits) == printf(value, digits), value
    assert c_fixed(float("nan")) == "-nan"


def test_rows_are_formatted_as_the_c_library_formats_each_value():
    rng = np.random.default_rng(3)
    finite = np.vstack([rng.random((40, 7)), [[0.0078125, 0.5, 1.5, 2.5, 0.0000005, -0.0, 0.1234565]]])
    for digits in (4, 6):
        assert c_fixed_rows(finite, digits) == [",".join(printf(v, digits) for v in row) for row in finite.tolist()]
    mixed = np.array([[0.25, float("nan")], [float("inf"), -float("inf")], [1 / 3, 2 / 3]])
    assert c_fixed_rows(mixed) == ["0.250000,-nan", "inf,-inf", "0.333333,0.666667"]
    assert c_fixed_rows(np.zeros((2, 0))) == ["", ""]


def ndeval_values():
    result = run_cli([EX / "qrels.txt", EX / "runA.txt", EX / "runB.txt"])
    rows = [line.split(",") for line in result.stdout.decode().splitlines()]
    header = rows[0]
    return header, {(r[0], r[1]): dict(zip(header[2:], r[2:])) for r in rows[1:]}


def test_trec_format():
    header, values = ndeval_values()
    result = run_cli(["-f", "trec", EX / "qrels.txt", EX / "runA.txt", EX / "runB.txt"])
    lines = result.stdout.decode().splitlines()
    assert lines[0].split("\t") == ["runid".ljust(22), "all", "runA"]
    run = None
    for line in lines:
        name, topic, value = line.split("\t")
        if name.strip() == "runid":
            run = value
            continue
        topic = "amean" if topic == "all" else topic
        assert "%.4f" % float(values[(run, topic)][name.strip()]) == value
    assert sum(line.startswith("alpha-nDCG@20") and "\tall\t" in line for line in lines) == 2


def test_json_lines_and_means_only():
    header, values = ndeval_values()
    result = run_cli(["-f", "json", "-n", EX / "qrels.txt", EX / "runA.txt", EX / "runB.txt"])
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [(r["runid"], r["topic"]) for r in records] == [("runA", "amean"), ("runB", "amean")]
    for record in records:
        for name in header[2:]:
            assert "%.6f" % record[name] == values[(record["runid"], "amean")][name]


@pytest.mark.parametrize("fmt", ["ndeval", "table"])
def test_means_only(fmt):
    result = run_cli(["-n", "-f", fmt, EX / "qrels.txt", EX / "runA.txt"])
    text = result.stdout.decode()
    assert "amean" in text and ",1," not in text and " 1 " not in text


def test_warnings_go_to_stderr_and_quiet_silences_them():
    noisy = run_cli([EX / "qrels.txt", EX / "runA.txt"])  # runA has topic 5, unknown to the qrels
    assert b"topics not in the qrels are ignored: 5" in noisy.stderr
    assert b"warning" not in noisy.stdout
    quiet = run_cli(["-q", EX / "qrels.txt", EX / "runA.txt"])
    assert quiet.stderr == b"" and quiet.stdout == noisy.stdout


def test_topic_without_relevant_documents_scores_zero_and_is_named_once(tmp_path):
    from conftest import NDEVAL_EDGE

    result = run_cli([NDEVAL_EDGE / "q_norel.txt", NDEVAL_EDGE / "r_norel.txt", NDEVAL_EDGE / "r_norel.txt"])
    stderr = result.stderr.decode()
    assert stderr.count("without any relevant document") == 1 and stderr.rstrip().endswith(": 2")
    rows = [line.split(",") for line in result.stdout.decode().splitlines()[1:]]
    topic2 = [r for r in rows if r[1] == "2"]
    assert len(topic2) == 2 and all(v == "0.000000" for r in topic2 for v in r[2:])
    assert "nan" not in result.stdout.decode()


def test_complete_prints_zero_rows_for_missing_topics():
    result = run_cli(["-c", "-q", EX / "qrels.txt", EX / "runB.txt"])
    rows = [line.split(",") for line in result.stdout.decode().splitlines()[1:]]
    assert [r[1] for r in rows] == ["1", "2", "3", "4", "amean"]
    assert all(v == "0.000000" for v in rows[3][2:])
    # The mean divides by all four qrels topics, as ndeval -c does (runB.c.traditional.csv).
    expected = (EX / "expected" / "runB.c.traditional.csv").read_text().splitlines()[-1]
    assert ",".join(rows[-1]) == expected


def test_a_measure_name_holding_a_comma_is_quoted_in_the_csv_and_reads_back(tmp_path):
    """ndeval's CSV does not quote; a divaleval name with two parameters holds a comma, so it is quoted."""
    import csv

    result = run_cli(["-q", "-m", "RBU(p=0.9,e=0.1),alpha-nDCG@5", EX / "qrels.txt", EX / "runA.txt"])
    header = result.stdout.decode().splitlines()[0]
    assert header == 'runid,topic,"RBU(p=0.9,e=0.1)",alpha-nDCG@5'
    assert next(csv.reader([header])) == ["runid", "topic", "RBU(p=0.9,e=0.1)", "alpha-nDCG@5"]
    scores = tmp_path / "scores.csv"
    scores.write_bytes(result.stdout)
    from divaleval.io.scores import read_scores

    assert read_scores(str(scores)).measures == ["RBU(p=0.9,e=0.1)", "alpha-nDCG@5"]
