"""A 10M-line run through standard input stays below 1 GB in both commands (long profile: `make test-long`).

The run is generated in a temporary directory: 50 topics x 200,000 documents, the first 150
of each topic judged, scores descending; both the native command and the ndeval drop-in read it
from standard input, and the peak resident memory of each process is measured by the kernel
(``getrusage`` of the finished child).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

pytestmark = pytest.mark.long

TOPICS, PER_TOPIC, JUDGED = 50, 200_000, 150
LIMIT_BYTES = 1 << 30


def write_collection(tmp_path) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    with open(qrels, "w") as out:
        for topic in range(1, TOPICS + 1):
            for doc in range(JUDGED):
                out.write(f"{topic} {1 + doc % 3} d{topic}-{doc} {doc % 2}\n")
    with open(run, "w") as out:
        for topic in range(1, TOPICS + 1):
            out.writelines(f"{topic} Q0 d{topic}-{doc} {doc + 1} {PER_TOPIC - doc} big\n" for doc in range(PER_TOPIC))
    return str(qrels), str(run)


def peak_of(command: list[str], stdin_path: str) -> tuple[int, bytes]:
    """(peak resident bytes, standard output) of one child process fed ``stdin_path``."""
    code = ("import resource, subprocess, sys\n"
            "with open(sys.argv[1], 'rb') as feed:\n"
            "    done = subprocess.run(sys.argv[2:], stdin=feed, capture_output=True)\n"
            "sys.stdout.buffer.write(done.stdout)\n"
            "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024))\n"
            "sys.exit(done.returncode)\n")
    result = subprocess.run([sys.executable, "-c", code, stdin_path, *command], capture_output=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return int(result.stderr.decode().split()[-1]), result.stdout


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's getrusage in bytes of KB")
def test_a_10_million_line_run_through_stdin_peaks_below_1_gb(tmp_path):
    qrels, run = write_collection(tmp_path)
    native, out = peak_of([sys.executable, "-m", "divaleval", "-q", "-n", qrels, "-"], run)
    assert out.splitlines()[1].startswith(b"big,amean,")
    assert native < LIMIT_BYTES, f"native: {native / 2**20:.0f} MB"
    dropin, out = peak_of([sys.executable, "-m", "divaleval", "ndeval", qrels, "-"], run)
    assert out.splitlines()[-1].startswith(b"big,amean,")
    assert dropin < LIMIT_BYTES, f"drop-in: {dropin / 2**20:.0f} MB"
