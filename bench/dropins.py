"""The drop-ins against the tools they replace: ``divaleval trec_eval`` and ``divaleval gdeval``.

    python bench/dropins.py            # both sections alone (make bench ends with them)
    TREC_EVAL=/path/to/trec_eval python bench/dropins.py      # or TREC_EVAL=/path/to/trec_eval's source tree
    GDEVAL=/path/to/gdeval.pl python bench/dropins.py         # default: the copy ir_measures ships

On the TREC 2012 Web track ad hoc qrels and its eight baseline runs (from ../shared; skipped where absent),
each tool in a child process, timed with its peak memory as bench/bench.py times the others:

* trec_eval: ``divaleval trec_eval -q -m all_trec QRELS RUN...``, all the runs in one call (the drop-in
  reads the qrels once), against trec_eval called once per run, as it must be (it takes one run). Its
  binary is what TREC_EVAL= names: a binary as given, or a source tree (trec_eval's repository, with its
  Makefile) built here with make into bench/out/ (never committed). Without TREC_EVAL=, on Linux x86-64,
  the binary Anserini packs for its jtreceval (trec_eval 9.0.4, built by its authors) is taken out of
  pyserini's source package from PyPI (``pip download``, 165 MB, once: kept in bench/out/, never
  committed); its output is compared with ``--trec-eval-version 9``'s. trec_eval's own sources are not to
  be had from a package registry: pytrec_eval's source package (0.3-0.5, and pytrec-eval-terrier's)
  downloads them from the trec_eval repository when it is built. Where ``pytrec_eval`` is installed (the
  bench extra installs it with ir_measures), the run is also timed against it: trec_eval 9.0's C code
  called from Python, every run in one process (``--trec-eval-version 9`` on divaleval's side, the version
  it embeds), and the numbers of every measure both print are compared at trec_eval's four decimals.
* gdeval: ``divaleval gdeval QRELS RUN...``, all the runs in one call (the drop-in reads the qrels once and
  prints what gdeval.pl prints for each run alone, one after the other), against gdeval.pl called once per
  run, as it must be (it takes one run), under perl: GDEVAL= names it, else the copy ir_measures ships in its
  package (version 1.2a, which takes k as a third argument, k = 20 here as gdeval's default, and prints no
  ``amean`` line: the outputs are compared without it). ``divaleval gdeval`` called once per run is timed
  too (its ratio, and its output, which must be the one call's byte for byte). gdeval.pl is not vendored.

Each section ends with the ratio: how many times faster (or slower) divaleval is. With inputs this
small, the time of a call is mostly the start of the process (Python importing the library against a
C binary or a perl script), which the one call of ``divaleval trec_eval`` or ``gdeval`` for every run pays
once.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench import BIN, SHARED, installed, measure, time_per_run_calls  # noqa: E402

GDEVAL_K = "20"  # gdeval.pl 1.2a takes k as its third argument; 20 is the default of 1.3 and of the drop-in


def ratio(theirs: float, mine: float) -> str:
    """How divaleval's time compares: ``3.2x faster`` or ``2.5x slower``."""
    return f"{theirs / mine:.1f}x faster" if theirs >= mine else f"{mine / theirs:.1f}x slower"


def trec_2012(tool: str) -> tuple[Path, list[Path]] | None:
    """The TREC 2012 ad hoc qrels and baseline runs, or None (said, for ``tool``) where ../shared lacks them."""
    year = SHARED / "data" / "trec-web" / "2012"
    runs = sorted((year / "baseline-runs").glob("*/*.txt"))
    if not runs:
        print(f"  {tool}: skipped (the TREC 2012 data of ../shared is not available)")
        return None
    return year / "qrels.adhoc.txt", runs


def trec_eval_binary(out: Path) -> Path | None:
    """trec_eval's binary from TREC_EVAL=: as given, or built from the source tree it names (into ``out``)."""
    given = os.environ.get("TREC_EVAL")
    if not given:
        return anserini_trec_eval(out)
    path = Path(given).expanduser().resolve()
    if path.is_file():
        return path
    if not (path / "Makefile").is_file():
        print(f"  trec_eval: skipped ({path} is neither a binary nor a source tree with a Makefile)")
        return None
    if shutil.which("make") is None or shutil.which(os.environ.get("CC", "cc")) is None:
        print("  trec_eval: skipped (no make or C compiler to build the source tree TREC_EVAL= names)")
        return None
    tree = out / "trec_eval-source"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(path, tree)  # built in bench/out/ (git-ignored), the given tree left as it is
    subprocess.run(["make", "-C", str(tree)], check=True, capture_output=True)
    return tree / "trec_eval"


ANSERINI_MEMBER = "trec_eval/trec_eval-linux-amd64"   # in the fat jar of pyserini's source package


def anserini_trec_eval(out: Path) -> Path | None:
    """trec_eval 9.0.4 as Anserini's jtreceval packs it (Linux x86-64), from pyserini's source package on PyPI:
    downloaded once into ``out`` and kept there; None (said) where it cannot be had."""
    import platform
    import tarfile
    import zipfile

    binary = out / "trec_eval-anserini"
    if binary.is_file():
        return binary
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        print("  trec_eval: skipped (point TREC_EVAL= at a trec_eval binary or at its source tree to include it)")
        return None
    download = out / "pyserini-sdist"
    print("  trec_eval: taking Anserini's trec_eval binary from pyserini's source package (pip download, once)",
          flush=True)
    fetched = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
                              ":all:", "--dest", str(download), "pyserini"], capture_output=True, text=True)
    sdists = sorted(download.glob("pyserini-*.tar.gz"))
    if fetched.returncode != 0 or not sdists:
        print("  trec_eval: skipped (pyserini's source package could not be downloaded; TREC_EVAL= names a binary)")
        return None
    with tarfile.open(sdists[-1]) as sdist:
        jars = [m for m in sdist.getmembers() if m.name.endswith("-fatjar.jar")]
        if not jars:
            print("  trec_eval: skipped (no fat jar in pyserini's source package; TREC_EVAL= names a binary)")
            return None
        with zipfile.ZipFile(sdist.extractfile(jars[0])) as jar:  # type: ignore[arg-type]
            if ANSERINI_MEMBER not in jar.namelist():
                print("  trec_eval: skipped (no Linux trec_eval in Anserini's jar; TREC_EVAL= names a binary)")
                return None
            binary.write_bytes(jar.read(ANSERINI_MEMBER))
    binary.chmod(0o755)
    shutil.rmtree(download, ignore_errors=True)
    return binary


def printed_values(path: Path) -> dict[tuple[int, str, str], str]:
    """(run, measure, topic) -> value as printed, of trec_eval -q lines (several runs, each one's topics
    before its summary, which its runid line opens; the per-topic lines only)."""
    values, run = {}, 0
    for line in path.read_text().splitlines():
        name, topic, value = (field.strip() for field in line.split("\t"))
        if name == "runid":
            run += 1
        elif topic != "all":
            values[(run, name, topic)] = value
    return values


def bench_trec_eval(results: Path) -> None:
    """divaleval trec_eval against trec_eval (TREC_EVAL=) and pytrec_eval (installed): see above."""
    data = trec_2012("trec_eval")
    if data is None:
        return
    qrels, runs = data
    flags = ["-q", "-m", "all_trec"]
    ours = results / "divaleval-trec_eval.trec2012.out"
    seconds, megabytes = measure([BIN / "divaleval", "trec_eval", *flags, qrels, *runs], ours)
    print(f"  {'divaleval trec_eval':<26} {len(runs):>3} runs  {seconds:7.2f} s  {megabytes:7.0f} MB  (1 call)",
          flush=True)
    ours9 = results / "divaleval-trec_eval9.trec2012.out"
    nine, _ = measure([BIN / "divaleval", "trec_eval", "--trec-eval-version", "9", *flags, qrels, *runs], ours9)
    print(f"  {'divaleval trec_eval (9)':<26} {len(runs):>3} runs  {nine:7.2f} s  (1 call, --trec-eval-version 9)",
          flush=True)
    binary = trec_eval_binary(results)
    if binary is not None:
        theirs = results / "trec_eval.trec2012.out"
        their_seconds, their_megabytes = time_per_run_calls([binary, *flags], qrels, runs, theirs)
        printed = theirs.read_bytes()
        same = ("identical to the default's" if printed == ours.read_bytes() else
                "identical to --trec-eval-version 9's" if printed == ours9.read_bytes() else "DIFFER")
        print(f"  {'trec_eval':<26} {len(runs):>3} runs  {their_seconds:7.2f} s  {their_megabytes:7.0f} MB  "
              f"({len(runs)} calls)")
        print(f"  trec_eval: divaleval {ratio(their_seconds, seconds)} than {len(runs)} calls of trec_eval; "
              f"outputs {same}", flush=True)
    if not installed("pytrec_eval"):
        print("  pytrec_eval: not installed, skipped (pip install pytrec-eval-terrier to include it)")
        return
    theirs = results / "pytrec_eval.trec2012.out"
    their_seconds, their_megabytes = measure([sys.executable, HERE / "dropins.py", "--pytrec-eval", qrels, *runs],
                                             theirs)
    print(f"  {'pytrec_eval':<26} {len(runs):>3} runs  {their_seconds:7.2f} s  {their_megabytes:7.0f} MB  "
          f"(1 process)")
    mine, reference = printed_values(ours9), printed_values(theirs)
    differ = sum(mine.get(key) != value for key, value in reference.items())
    print(f"  trec_eval: divaleval {ratio(their_seconds, nine)} than pytrec_eval; numbers: {len(reference)} "
          f"values compared, {differ} differ", flush=True)


def gdeval_script() -> Path | None:
    """gdeval.pl: GDEVAL=, else the copy in ir_measures' package (found without importing it)."""
    given = os.environ.get("GDEVAL")
    if given:
        return Path(given).expanduser().resolve() if Path(given).expanduser().is_file() else None
    spec = importlib.util.find_spec("ir_measures")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if (Path(folder) / "bin" / "gdeval.pl").is_file():
            return Path(folder) / "bin" / "gdeval.pl"
    return None


def without_means(path: Path) -> bytes:
    return b"".join(line for line in path.read_bytes().splitlines(keepends=True) if b",amean," not in line)


def bench_gdeval(results: Path) -> None:
    """divaleval gdeval, all the runs in one call (and one call a run), against gdeval.pl called once per run
    on the TREC 2012 baselines: see above."""
    data = trec_2012("gdeval")
    if data is None:
        return
    qrels, runs = data
    ours = results / "divaleval-gdeval.trec2012.out"
    seconds, megabytes = measure([BIN / "divaleval", "gdeval", qrels, *runs], ours)
    print(f"  {'divaleval gdeval':<26} {len(runs):>3} runs  {seconds:7.2f} s  {megabytes:7.0f} MB  (1 call)",
          flush=True)
    each = results / "divaleval-gdeval-per-run.trec2012.out"
    each_seconds, each_megabytes = time_per_run_calls([BIN / "divaleval", "gdeval"], qrels, runs, each)
    same = "identical" if each.read_bytes() == ours.read_bytes() else "DIFFER"
    print(f"  {'divaleval gdeval':<26} {len(runs):>3} runs  {each_seconds:7.2f} s  {each_megabytes:7.0f} MB  "
          f"({len(runs)} calls; outputs {same} to the one call's)", flush=True)
    script, perl = gdeval_script(), shutil.which("perl")
    if not (script and perl):
        print("  gdeval.pl: skipped (point GDEVAL= at gdeval.pl, or install ir_measures, with perl installed)")
        return
    # gdeval.pl 1.2a (ir_measures' copy) takes k after the files; 1.3 takes -k before them
    version = subprocess.run([perl, script, "-version"], capture_output=True, text=True).stdout
    theirs = results / "gdeval.pl.trec2012.out"
    their_seconds, their_megabytes = time_per_run_calls([perl, script], qrels, runs, theirs,
                                                        (GDEVAL_K,) if "1.2" in version else ())
    print(f"  {'gdeval.pl':<26} {len(runs):>3} runs  {their_seconds:7.2f} s  {their_megabytes:7.0f} MB  "
          f"({len(runs)} calls)")
    same = "identical" if without_means(ours) == without_means(theirs) else "DIFFER"
    source = "from " + os.environ["GDEVAL"] if os.environ.get("GDEVAL") else "shipped by ir_measures"
    print(f"  gdeval: divaleval {ratio(their_seconds, seconds)} than {len(runs)} calls of gdeval.pl ({script.name} "
          f"{source}) in one call, {ratio(their_seconds, each_seconds)} in one call a run; per-topic outputs "
          f"{same}", flush=True)


def bench_dropins(results: Path) -> None:
    """Both sections, as make bench ends."""
    print("\ntrec_eval drop-in (TREC 2012 ad hoc, 8 runs):")
    bench_trec_eval(results)
    print("\ngdeval drop-in (TREC 2012 ad hoc, 8 runs):")
    bench_gdeval(results)


def pytrec_eval_lines(qrels_path: str, run_paths: list[str]) -> None:
    """The pytrec_eval side: parse in Python, evaluate every run with every measure pytrec_eval knows, print
    trec_eval's per-topic lines (``%.4f``; counts whole), each run's followed by its runid line."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as handle:
        for line in handle:
            topic, _, docno, level = line.split()
            qrels.setdefault(topic, {})[docno] = int(level)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures)
    out = sys.stdout
    for path in run_paths:
        run: dict[str, dict[str, float]] = {}
        runid = None
        with open(path) as handle:
            for line in handle:
                topic, _, docno, _, score, tag = line.split()
                runid = runid or tag
                run.setdefault(topic, {})[docno] = float(score)
        for topic, values in sorted(evaluator.evaluate(run).items()):
            out.writelines(f"{name}\t{topic}\t{int(value) if name.startswith('num_') else f'{value:.4f}'}\n"
                           for name, value in sorted(values.items())
                           if not name.startswith(("gm_", "num_q", "runid", "relstring")))
        out.write(f"runid\tall\t{runid}\n")  # after its topics, as trec_eval -q prints it


def main() -> None:
    if sys.argv[1:2] == ["--pytrec-eval"]:
        pytrec_eval_lines(sys.argv[2], sys.argv[3:])
        return
    out = HERE / "out"
    out.mkdir(parents=True, exist_ok=True)
    bench_dropins(out)


if __name__ == "__main__":
    main()
