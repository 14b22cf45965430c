"""Shared fixtures: where the golden files and the shared data are, and ways to run the CLI."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
NDEVAL_EXAMPLES = DATA / "ndeval" / "examples"
NDEVAL_EDGE = DATA / "ndeval" / "edge"
SHARED = Path(os.environ.get("DIVALEVAL_SHARED", ROOT.parent / "shared"))
SAMPLE = ROOT / "sample_data"
# No cache of qrels between calls (divaleval/model/stored.py): every test reads its qrels, and nothing is written
# to the user's cache directory. tests/test_cache.py points it at a temporary directory.
os.environ["DIVALEVAL_CACHE"] = "0"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


def run_ndeval(args: list[str]) -> tuple[int, str, str]:
    """`divaleval ndeval ARGS` in-process: (status, stdout, stderr)."""
    from divaleval.compat import ndeval

    out, err = io.StringIO(), io.StringIO()
    status = ndeval.main([str(a) for a in args], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def run_cli(args: list[str], stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The installed command in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "divaleval", *[str(a) for a in args]],
        input=stdin, capture_output=True, cwd=cwd,
    )


def sigint_as_a_terminal_sends_it() -> None:
    """``preexec_fn`` of a child that a test interrupts: SIGINT handled by default, as from a terminal. A shell
    without job control starts background jobs (a CI step, ``make test &``) with SIGINT ignored, which the
    child would inherit, and Python then installs no KeyboardInterrupt handler."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
