"""The fixed cost of a call: start-up, the smallest evaluation, one real run, and 50 calls of one run each.

A section of ``bench/bench.py`` (it calls :func:`bench_startup` with its timer and the ndeval it built);
every figure is a ratio against a reference timed in the same run, so that a loaded machine moves both:

* ``divaleval --version`` against ``python -c pass`` (target: within 0.1 s);
* the smallest evaluation (sample_data) and one TREC 2012 run (../shared) against Python's start-up plus
  numpy's import (target: within about twice that), and the TREC 2012 run against ndeval -O2 (within 2x);
* 50 calls of one run each on the benchmark's qrels, as a grading script makes them, with the cache of
  qrels (divaleval/model/stored.py; its first call, which fills it, timed apart) against 50 calls of
  ndeval -O2 (target: at least 5x faster), with the output checked identical to one call on every run;
* a few calls of one run each of ``divaleval ndeval`` (the drop-in) with the cache warm, scaled to 50, and
  checked against the same calls with the cache off;
* the TREC 2012 run and the 50 calls again with ``divaleval server`` running (divaleval/server.py: numpy,
  pyarrow and the evaluator imported once, a process forked per call), against the same references, and
  the served calls' output checked identical too. The server's start is timed apart; every served call is
  made with ``DIVALEVAL_SERVER=1``, so that one not served fails the bench instead of being timed in place.

The divaleval timed is the one a user installs: this tree installed by pip (not editable, no extras) into
a venv of its own beside the results (made once; the package reinstalled at each bench). The development venv's editable install and test extras cost every call more than any user
pays (the editable finder's imports in ``site``; pyarrow importing cloudpickle, which Dask brings, and
logging with it: about 20 ms together): one row times its 50 calls too. Where pip cannot install (no
index), every row times the development venv, and says so.

Short commands are timed several times and their median taken. Run alone:
``python bench/startup.py QRELS RUN...`` (no ndeval, only divaleval's figures).
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent
SHARED = Path(os.environ.get("DIVALEVAL_SHARED", ROOT.parent / "shared"))
REPEAT = 7
DROP_IN_TIMED = 5  # `divaleval ndeval` calls of one run timed with the cache warm (scaled to every run)


def median_seconds(argv: list, repeat: int = REPEAT, env: dict | None = None) -> float:
    """The median wall time of ``argv`` (output discarded) over ``repeat`` runs; a failure stops the bench."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([str(a) for a in argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"failed ({done.returncode}): {' '.join(map(str, argv))}\n{done.stderr.decode()}")
    return statistics.median(times)


def with_cache(directory: Path | str) -> dict:
    return {**os.environ, "DIVALEVAL_CACHE": str(directory)}


def calls_of_one_run(argv: list, qrels: Path, runs: list[Path], out: Path, env: dict) -> float:
    """Wall seconds of one call of ``argv QRELS RUN`` per run, as a grading script makes them; outputs
    concatenated into ``out``."""
    total = 0.0
    with open(out, "wb") as collected:
        for run in runs:
            start = time.perf_counter()
            done = subprocess.run([str(a) for a in [*argv, qrels, run]], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env)
            total += time.perf_counter() - start
            if done.returncode != 0:
                sys.exit(f"failed: {argv} {run}\n{done.stderr.decode()}")
            collected.write(done.stdout)
    return total


def installed_divaleval(out: Path) -> Path | None:
    """The bin directory of a venv holding this tree as pip installs it for a user (see the module's docstring),
    or None where it cannot be made."""
    venv, source = out / "installed-venv", out / "installed-source"
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-cache-dir"]
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for name in ("divaleval", "pyproject.toml", "setup.py", "README.md"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, source / name, **({"ignore": shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")}
                                            if (ROOT / name).is_dir() else {}))
    steps = [] if python.exists() else [[sys.executable, "-m", "venv", str(venv)]]
    steps += [[*pip, str(source)],  # (its dependencies, any the tree has added since)
              [*pip, "--force-reinstall", "--no-deps", str(source)]]  # (this tree's code, compiled by pip)
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"  (the installed divaleval could not be made: {' '.join(step[:4])}... failed; "
                  f"the development venv is timed instead)\n{done.stderr[-400:]}")
            shutil.rmtree(venv, ignore_errors=True)
            return None
    return venv / "bin"


def bench_startup(qrels: Path, runs: list[Path], results: Path, ndeval: list[str] | None,
                  ndeval_calls: float | None, whole: Path | None) -> list[tuple[str, bool]]:
    """Print the section's table; return its targets (text, met).

    ndeval: the ndeval -O2 command, or None; ndeval_calls: the seconds its one call per run took on
    ``runs`` (bench.py times it), or None; whole: divaleval's output for every run in one call, which the
    calls of one run each must reproduce (without the header each call repeats)."""
    user_bin = installed_divaleval(results)
    bin_timed = user_bin or BIN
    print(f"  divaleval timed: {'as installed by pip (' + str(user_bin.parent) + ')' if user_bin else 'the development venv'}")
    divaleval = bin_timed / "divaleval"
    interpreter = bin_timed / "python"
    off = with_cache("0")
    cache = results / "qrels-cache"
    shutil.rmtree(cache, ignore_errors=True)
    python = median_seconds([interpreter, "-c", "pass"])
    numpy = median_seconds([interpreter, "-c", "import numpy"])
    version = median_seconds([divaleval, "--version"])
    help_text = median_seconds([divaleval, "--help"])
    sample = median_seconds([divaleval, ROOT / "sample_data" / "qrels.txt", ROOT / "sample_data" / "runs" / "bm25.txt"],
                            env=off)
    rows = [("python -c pass", python), ("python -c 'import numpy'", numpy), ("divaleval --version", version),
            ("divaleval --help", help_text), ("divaleval, sample_data (1 run)", sample)]
    targets = [(f"--version within 0.1 s of python -c pass ({version:.3f} s vs {python:.3f} s)",
                version - python <= 0.1),
               (f"sample_data within 2x of Python's start-up plus numpy's import ({sample:.3f} s vs "
                f"{numpy:.3f} s: {sample / numpy:.2f}x)", sample <= 2 * numpy)]

    # The server's socket lies in a runtime directory of the bench's own (short: a socket's path is short).
    runtime = tempfile.mkdtemp(prefix="dvb")
    served_off = {**off, "XDG_RUNTIME_DIR": runtime, "DIVALEVAL_SERVER": "1"}
    served_cache = {**with_cache(cache), "XDG_RUNTIME_DIR": runtime, "DIVALEVAL_SERVER": "1"}
    start = time.perf_counter()
    subprocess.run([divaleval, "server", "start", "--idle", "0"], env=served_off, check=True,
                   stderr=subprocess.DEVNULL)
    rows.append(("divaleval server start", time.perf_counter() - start))
    try:
        return _timed_rows(divaleval, qrels, runs, results, ndeval, ndeval_calls, whole, rows, targets, numpy,
                           off, cache, user_bin, served_off, served_cache)
    finally:
        subprocess.run([divaleval, "server", "stop"], env=served_off, stderr=subprocess.DEVNULL)
        shutil.rmtree(runtime, ignore_errors=True)


def _timed_rows(divaleval, qrels, runs, results, ndeval, ndeval_calls, whole, rows, targets, numpy, off, cache,
                user_bin, served_off, served_cache) -> list[tuple[str, bool]]:
    year = SHARED / "data" / "trec-web" / "2012"
    trec_runs = sorted((year / "baseline-runs").glob("*/*.txt"))
    served_trec = None
    if trec_runs:
        trec_qrels = year / "qrels-for-ndeval.txt"
        run = trec_runs[0]
        cold = median_seconds([divaleval, trec_qrels, run], env=off)
        warm = median_seconds([divaleval, trec_qrels, run], env=with_cache(cache))
        served_trec = median_seconds([divaleval, trec_qrels, run], env=served_off)
        rows += [(f"divaleval, TREC 2012 ({run.parent.name}/{run.name}), no cache", cold),
                 ("  the same, cache of qrels warm", warm),
                 ("  the same, no cache, server running", served_trec)]
        targets.append((f"one TREC 2012 run within 2x of Python's start-up plus numpy's import ({cold:.3f} s, "
                        f"{cold / numpy:.2f}x)", cold <= 2 * numpy))
        if ndeval:
            theirs = median_seconds([*ndeval, trec_qrels, run])
            rows.append(("ndeval -O2, TREC 2012, the same run", theirs))
            targets.append((f"one TREC 2012 run within 2x of ndeval -O2 ({cold:.3f} s vs {theirs:.3f} s: "
                            f"{cold / theirs:.2f}x)", cold <= 2 * theirs))
            targets.append((f"one TREC 2012 run within 2x of ndeval -O2, server running ({served_trec:.3f} s vs "
                            f"{theirs:.3f} s: {served_trec / theirs:.2f}x)", served_trec <= 2 * theirs))
    else:
        print(f"  TREC 2012: skipped ({year} not available)")

    first = results / "startup.first.out"
    seconds_first = calls_of_one_run([divaleval], qrels, runs[:1], first, with_cache(cache))
    calls_out = results / "startup.calls.out"
    seconds_calls = calls_of_one_run([divaleval], qrels, runs, calls_out, with_cache(cache))
    off_calls = calls_of_one_run([divaleval], qrels, runs[:3], results / "startup.off.out", off) / 3 * len(runs)
    served_out = results / "startup.served.out"
    seconds_served = calls_of_one_run([divaleval], qrels, runs, served_out, served_cache)
    rows += [("divaleval, first call (fills the cache)", seconds_first),
             (f"divaleval, {len(runs)} calls of 1 run, cache warm", seconds_calls),
             (f"divaleval, {len(runs)} calls of 1 run, cache warm, server running", seconds_served),
             (f"divaleval, {len(runs)} calls of 1 run, no cache (3 timed, scaled)", off_calls)]
    # The drop-in, as a script written for ndeval calls it (its own entries in the same cache): a few calls, scaled.
    dropin = [divaleval, "ndeval"]
    dropin_first = calls_of_one_run(dropin, qrels, runs[:1], results / "startup.ndeval.first.out", with_cache(cache))
    timed = runs[:DROP_IN_TIMED]
    dropin_calls = calls_of_one_run(dropin, qrels, timed, results / "startup.ndeval.out", with_cache(cache))
    calls_of_one_run(dropin, qrels, timed[:2], results / "startup.ndeval.off.out", off)
    rows += [("divaleval ndeval, first call (fills its cache)", dropin_first),
             (f"divaleval ndeval, {len(runs)} calls of 1 run, cache warm ({len(timed)} timed, scaled)",
              dropin_calls / len(timed) * len(runs))]
    warm_lines = (results / "startup.ndeval.out").read_bytes().splitlines()
    off_lines = (results / "startup.ndeval.off.out").read_bytes().splitlines()
    targets.append(("divaleval ndeval prints the same with its cache warm as without it",
                    warm_lines[:len(off_lines)] == off_lines and len(off_lines) > 0))
    if user_bin is not None:
        development_cache = results / "qrels-cache-development"
        shutil.rmtree(development_cache, ignore_errors=True)
        calls_of_one_run([BIN / "divaleval"], qrels, runs[:1], results / "startup.development.first.out",
                         with_cache(development_cache))
        development = calls_of_one_run([BIN / "divaleval"], qrels, runs, results / "startup.development.out",
                                       with_cache(development_cache))
        rows.append((f"divaleval, {len(runs)} calls of 1 run, cache warm, from the development venv (editable, "
                     "test extras)", development))
    if ndeval_calls:
        rows.append((f"ndeval -O2, {len(runs)} calls of 1 run", ndeval_calls))
        targets.append((f"{len(runs)} calls of one run at least 5x faster than {len(runs)} ndeval -O2 calls "
                        f"({ndeval_calls / seconds_calls:.2f}x)", ndeval_calls >= 5 * seconds_calls))
        targets.append((f"{len(runs)} calls of one run at least 5x faster than {len(runs)} ndeval -O2 calls, server "
                        f"running ({ndeval_calls / seconds_served:.2f}x)", ndeval_calls >= 5 * seconds_served))
    if whole is not None:
        lines = whole.read_bytes().splitlines(keepends=True)
        header = lines[:1]
        for label, out in (("", calls_out), (", served", served_out)):
            body = [line for line in out.read_bytes().splitlines(keepends=True) if line not in header]
            targets.append((f"{len(runs)} calls of one run (cache warm{label}) print what one call on every run "
                            "prints", body == lines[1:]))
    width = max(len(label) for label, _ in rows) + 2
    for label, seconds in rows:
        print(f"  {label:<{width}}{seconds:9.3f} s")
    per_call = seconds_calls / len(runs)
    print(f"  a call of one run with the cache warm: {per_call:.3f} s, of which Python and numpy's import "
          f"{numpy:.3f} s; with a server running: {seconds_served / len(runs):.3f} s")
    return targets


def main() -> None:
    qrels, *runs = map(Path, sys.argv[1:])
    results = Path(os.environ.get("TMPDIR", "/tmp")) / "divaleval-startup"
    results.mkdir(exist_ok=True)
    for text, met in bench_startup(qrels, runs, results, None, None, None):
        print(f"  [{'met' if met else 'NOT MET'}] {text}")


if __name__ == "__main__":
    main()
