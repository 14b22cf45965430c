"""divaleval against the reference tools, on the same files, in the same run.

    python bench/bench.py [--topics 200 --intents 20 --docs 500 --runs 50 --depth 1000] [--quick]
    NDEVAL=/path/to/ndeval.c python bench/bench.py      # or NDEVAL=/path/to/an/ndeval/binary

1. Generates (fixed seed, cached in bench/out/) a TREC-like collection: every
   judged document judged for every intent, P(relevant) per intent, levels
   1-3; runs ranking every judged document plus as many unjudged, with
   distinct scores.
2. Times, each in a child process with its peak memory (the summed resident
   memory of the child and its workers, sampled, and never below the child's
   own maximum):
   * divaleval on one run and on every run (ndeval's 21 measures), on every
     run with -j 2, and with the whole catalogue (-m all);
   * pyndeval (ndeval's C code; parsing in Python, the ideal built once);
   * ndeval itself, one call per run, only where the user points NDEVAL= at
     it: a binary is timed as given; a source file is built here (into
     bench/out/, never fetched) as shipped (-O0) and with -O2, if a C compiler
     is present; skipped cleanly otherwise;
   * ir_measures' command line on one run, and ranx (ad hoc measures: it has
     no diversity measure) on every run, where they are installed;
   * the reading floor: pyarrow alone, and pandas alone, reading the qrels and
     every run into typed columns (bench/floor.py).
   * divaleval's ir_measures provider against ir_measures' pyndeval provider,
     both in one process on the same DataFrames (bench/provider.py);
3. Checks that divaleval prints the same numbers as pyndeval (and ndeval) for
   every run and topic (the runs have no score ties, so every order agrees).
4. Prints the table, the ratios, where divaleval's time goes, and the targets.

    python bench/bench.py --gdeval      # GDEVAL=/path/to/gdeval.pl to compare (perl needed)

only times ``divaleval gdeval`` against gdeval.pl (bench/dropins.py); the full
benchmark ends with both drop-ins against the tools they replace
(``divaleval trec_eval`` and ``divaleval gdeval``: bench/dropins.py, which
also runs alone).

    python bench/bench.py --scale-out [--scale-out-runs 1000 --workers 2]

instead times scale-out (needs the [dask] extra): on a collection of 1,000 runs
(200 topics x 1,000 documents; about 11 GB in bench/out/, generated once), the
ndeval set in one process and on a Dask LocalCluster (``--scheduler local:2``),
with runs/s, their ratio, the client's peak memory on a quarter of the runs and
on all of them (flat: results stream out), and checks the outputs are identical.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import add_size_options, size_arguments  # noqa: E402
from pinned import bench_pinned  # noqa: E402
from procfs import process_fields  # noqa: E402
from provider import compare_providers  # noqa: E402
from startup import bench_startup  # noqa: E402

BIN = Path(sys.executable).parent
SHARED = Path(os.environ.get("DIVALEVAL_SHARED", HERE.parent.parent / "shared"))
PAGE = os.sysconf("SC_PAGE_SIZE")
IR_MEASURES_SET = [f"{m}@{k}" for m in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG") for k in (5, 10, 20)] \
    + ["NRBP", "nNRBP", "AP_IA"] + [f"{m}@{k}" for m in ("P_IA", "StRecall") for k in (5, 10, 20)]


def tree_rss(root: int) -> int:
    """Resident bytes of every process in ``root``'s session."""
    total = 0
    for pid, fields in process_fields().items():
        if int(fields[3]) != root:  # session id
            continue
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent``."""
    return [pid for pid, fields in process_fields().items() if int(fields[1]) == parent]


def run_sampled(command: list, stdout: Path, sample: Callable[[int], None], every: float, shown: list) -> float:
    """Wall seconds of ``command`` (its output to ``stdout``), ``sample(pid)`` called every ``every`` s while it
    runs; a failure stops the benchmark with its message (``shown``: the command line to name)."""
    with open(stdout, "wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([str(a) for a in command], stdout=out, stderr=err, start_new_session=True)
        done = threading.Event()

        def loop() -> None:
            while not done.is_set():
                sample(proc.pid)
                done.wait(every)

        sampler = threading.Thread(target=loop, daemon=True)
        sampler.start()
        proc.wait()
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, shown))}\n{err.read().decode()}")
    return seconds


def measure(argv: list, stdout: Path) -> tuple[float, float]:
    """(wall seconds, peak MB) of one command, its output to ``stdout``.

    Peak memory: the largest sampled sum over the command's processes, and at
    least the command's own maximum resident size as /usr/bin/time reports it
    (this process's getrusage would count the memory of the Python process it
    was forked from).
    """
    timer = ["/usr/bin/time", "-f", "%M", "-o"] if os.path.exists("/usr/bin/time") else None
    peak = [0]

    def sample(pid: int) -> None:
        peak[0] = max(peak[0], tree_rss(pid))

    with tempfile.NamedTemporaryFile("r") as maxrss:
        command = [*(timer + [maxrss.name] if timer else []), *argv]
        seconds = run_sampled(command, stdout, sample, 0.02, argv)
        own = int(maxrss.read().strip().splitlines()[-1]) * 1024 if timer else 0
    return seconds, max(peak[0], own) / 2**20


def measure_client(argv: list, stdout: Path) -> tuple[float, float, float, float, float]:
    """(wall seconds, the command's own peak MB, peak MB of it and its children, its own CPU seconds,
    CPU seconds of it and its children).

    The command's own memory and CPU time are sampled from /proc (a LocalCluster's workers are
    its children, and /usr/bin/time would report the largest of them); the CPU time of all of them
    is /usr/bin/time's (a LocalCluster's workers are waited for, so counted).
    """
    ticks = os.sysconf("SC_CLK_TCK")
    own, everything, cpu = [0], [0], [0.0]
    timer = ["/usr/bin/time", "-f", "%U %S", "-o"] if os.path.exists("/usr/bin/time") else None

    def sample(pid: int) -> None:
        everything[0] = max(everything[0], tree_rss(pid))
        if timer:  # the command is the child of /usr/bin/time
            pid = next(iter(children(pid)), None)
            if pid is None:
                return
        try:
            with open(f"/proc/{pid}/statm") as handle:
                own[0] = max(own[0], int(handle.read().split()[1]) * PAGE)
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            cpu[0] = max(cpu[0], (int(fields[11]) + int(fields[12])) / ticks)  # utime + stime
        except (OSError, IndexError, ValueError):
            pass

    with tempfile.NamedTemporaryFile("r") as times:
        command = [*(timer + [times.name] if timer else []), *argv]
        seconds = run_sampled(command, stdout, sample, 0.05, argv[:4] + ["..."])
        total = sum(map(float, times.read().split()[-2:])) if timer else float("nan")
    return seconds, own[0] / 2**20, everything[0] / 2**20, cpu[0], total


def collection(args: argparse.Namespace, label: str) -> tuple[Path, list[Path], Path]:
    """The qrels, the runs and the results folder of ``args``' collection (generated if not yet cached)."""
    name = f"t{args.topics}-i{args.intents}-d{args.docs}-r{args.runs}-k{args.depth}-p{args.p_relevant}-s{args.seed}"
    data = args.out / name
    print(f"{label} {name} (in {data})", flush=True)
    t = time.perf_counter()
    # In a child process, so that this one stays small (its children are forked from it).
    subprocess.run([sys.executable, HERE / "generate.py", data, *size_arguments(args)], check=True)
    print(f"  ready in {time.perf_counter() - t:.1f} s", flush=True)
    # Bytecode as an installed package has it (an editable install under PYTHONDONTWRITEBYTECODE has none).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "divaleval")], check=True)
    results = data / "results"
    results.mkdir(exist_ok=True)
    return data / "qrels.txt", sorted((data / "runs").iterdir()), results


def scale_out(args: argparse.Namespace) -> None:
    """One process against a LocalCluster of ``args.workers`` workers on ``args.scale_out_runs`` runs."""
    if not installed("distributed"):
        sys.exit("--scale-out needs Dask: pip install 'divaleval[dask]' (make bench installs it)")
    args.runs = args.scale_out_runs
    qrels, runs, results = collection(args, "scale-out: collection")
    divaleval = BIN / "divaleval"
    cluster = f"local:{args.workers}"
    quarter = runs[: max(1, len(runs) // 4)]
    plan = [
        ("one process", runs, []),
        (f"--scheduler {cluster}", quarter, ["--scheduler", cluster]),
        (f"--scheduler {cluster}", runs, ["--scheduler", cluster]),
    ]
    rows = []
    for label, chosen, options in plan:
        out = results / f"scale-out.{label.split()[-1]}.{len(chosen)}.out"
        seconds, own, everything, cpu, total = measure_client([divaleval, *options, qrels, *chosen], out)
        rows.append((label, len(chosen), seconds, own, everything, cpu, total, out))
        print(f"  {label:<24} {len(chosen):>5} runs  {seconds:8.1f} s  {len(chosen) / seconds:6.2f} runs/s  "
              f"client {own:6.0f} MB, {cpu:6.1f} CPU s  all processes {everything:6.0f} MB, {total:6.1f} CPU s",
              flush=True)
    single, small, full = rows
    same = single[7].read_bytes() == full[7].read_bytes()
    ratio = (full[1] / full[2]) / (single[1] / single[2])
    print(f"\n{'':<26}{'runs':>6}{'seconds':>10}{'runs/s':>9}{'client MB':>11}{'client CPU s':>14}{'all MB':>9}"
          f"{'all CPU s':>11}{'cores busy':>12}")
    for label, count, seconds, own, everything, cpu, total, _ in rows:
        print(f"{label:<26}{count:>6}{seconds:>10.1f}{count / seconds:>9.2f}{own:>11.0f}{cpu:>14.1f}"
              f"{everything:>9.0f}{total:>11.1f}{total / seconds:>12.2f}")
    cluster_run = (full[6] - small[6]) / max(1, full[1] - small[1])  # CPU a run past the start
    print(f"\nCPU time a run, all processes: one process {1000 * single[6] / single[1]:.0f} ms, on the cluster "
          f"{1000 * cluster_run:.0f} ms (past the start: {full[1]} runs less {small[1]}); the cluster's start costs "
          f"{small[6] - small[1] * cluster_run:.1f} CPU s. Cores busy below the machine's: other work shares it "
          "(see uptime's load average)")
    per_run = (full[5] - small[5]) / max(1, full[1] - small[1])
    print(f"\nthe client's own work on the cluster: {1000 * per_run:.0f} ms CPU a run (checking, finishing, "
          f"printing; the LocalCluster's scheduler runs in it too): about {1 / max(per_run, 1e-9):.0f} runs/s "
          "at most, whatever the number of workers")
    print(f"\nthroughput on {args.workers} workers: {ratio:.2f}x that of one process "
          f"(startup of the cluster included; this machine is shared, so timings vary from run to run)")
    targets = [
        (f"{full[1]} runs on {args.workers} workers at least 1.6x the runs/s of one process ({ratio:.2f}x)",
         ratio >= 1.6),
        (f"client's peak memory flat: {full[1]} runs at most 1.2x {small[1]} runs ({full[3]:.0f} MB vs "
         f"{small[3]:.0f} MB)", full[3] <= 1.2 * small[3]),
        ("output on the cluster identical to one process's, byte for byte", same),
    ]
    print("\ntargets:")
    for text, met in targets:
        print(f"  [{'met' if met else 'NOT MET'}] {text}")
    from dropins import bench_dropins  # (it imports this module's timers)
    bench_dropins(results)
    sys.exit(0 if same else 1)


def check_numbers(ours: Path, theirs: Path) -> tuple[int, int]:
    """(values compared, values that differ) between divaleval's CSV and pyndeval's rows."""
    mine = {}
    for line in ours.read_text().splitlines()[1:]:
        runid, topic, *values = line.split(",")
        if topic != "amean":
            mine[(runid, topic)] = values
    compared = differ = 0
    seen = set()
    for line in theirs.read_text().splitlines():
        runid, topic, *values = line.split(",")
        seen.add((runid, topic))
        expected = mine.get((runid, topic))
        if expected is None:
            differ += len(values)
            continue
        compared += len(values)
        differ += sum(a != b for a, b in zip(values, expected))
    differ += sum(len(v) for k, v in mine.items() if k not in seen)
    return compared, differ


def build_ndeval(out: Path) -> dict[str, list[str]]:
    """The ndeval commands to time, from NDEVAL= (a binary, or a source file built here)."""
    given = os.environ.get("NDEVAL")
    if not given:
        print("  ndeval: skipped (point NDEVAL= at an ndeval binary or at ndeval.c to include it)")
        return {}
    path = Path(given).expanduser().resolve()
    if not path.is_file():
        print(f"  ndeval: skipped ({path} is not a file)")
        return {}
    if path.suffix != ".c":
        return {"ndeval (given binary)": [str(path)]}
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        print("  ndeval: skipped (no C compiler to build the source NDEVAL= names)")
        return {}
    built = {}
    for label, flags in (("ndeval -O0 (as shipped)", ["-O0"]), ("ndeval -O2", ["-O2"])):
        binary = out / f"ndeval{flags[0]}"
        subprocess.run([compiler, *flags, "-o", str(binary), str(path), "-lm"], check=True, capture_output=True)
        built[label] = [str(binary)]
    return built


def installed(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def time_per_run_calls(command: list, qrels: Path, runs: list[Path], out: Path,
                       after: tuple = ()) -> tuple[float, float]:
    """(total seconds, peak MB) of one call of ``command`` per run (``after``: arguments after the files),
    outputs concatenated."""
    total, peak = 0.0, 0.0
    with open(out, "wb") as collected:
        for run in runs:
            single = out.with_suffix(".one")
            seconds, megabytes = measure([*command, qrels, run, *after], single)
            total, peak = total + seconds, max(peak, megabytes)
            collected.write(single.read_bytes())
    return total, peak


def rows_of_csv(path: Path) -> dict:
    """(runid, topic) -> printed values of an ndeval-format CSV (headers and means left out)."""
    rows = {}
    for line in path.read_text().splitlines():
        runid, topic, *values = line.split(",")
        if topic not in ("topic", "amean"):
            rows[(runid, topic)] = values
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_size_options(parser)
    parser.add_argument("--quick", action="store_true", help="a small collection (40 topics, 10 runs)")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--scale-out", action="store_true",
                        help="time one process against a Dask LocalCluster instead (see above)")
    parser.add_argument("--scale-out-runs", type=int, default=1000, help="runs of the scale-out case")
    parser.add_argument("--workers", type=int, default=2, help="workers of the scale-out case's LocalCluster")
    parser.add_argument("--gdeval", action="store_true", help="time only divaleval gdeval (see above)")
    parser.add_argument("--only", choices=("startup", "pinned"),
                        help="time only one section on the collection: start-up (bench/startup.py, without ndeval) "
                             "or the pinned scale-out (bench/pinned.py)")
    args = parser.parse_args()
    # The rows below read the qrels afresh at every call, as they always have (comparable from one run of the
    # benchmark to the next); the start-up section times the cache of qrels (model/stored.py) on its own.
    os.environ["DIVALEVAL_CACHE"] = "0"
    # And in their own process: a server the user runs (divaleval/server.py) takes no call of theirs; the
    # start-up section times calls through a server of its own apart.
    os.environ["DIVALEVAL_SERVER"] = "0"
    if args.gdeval:
        from dropins import bench_gdeval  # (it imports this module's timers)
        args.out.mkdir(parents=True, exist_ok=True)
        bench_gdeval(args.out)
        return
    if args.scale_out:
        scale_out(args)
        return
    if args.quick:
        args.topics, args.runs = 40, 10
    qrels, runs, results = collection(args, "collection")
    if args.only:
        section = bench_startup(qrels, runs, results, None, None, None) if args.only == "startup" else \
            bench_pinned(qrels, runs, results)
        for text, met in section:
            print(f"  [{'met' if met else 'NOT MET'}] {text}")
        return
    divaleval = BIN / "divaleval"
    pyndeval = [sys.executable, HERE / "pyndeval_eval.py"]
    floor = [sys.executable, HERE / "floor.py"]
    n = len(runs)
    plan = [
        ("pyndeval", 1, [*pyndeval, qrels, runs[0]]),
        ("pyndeval", n, [*pyndeval, qrels, *runs]),
        ("divaleval", 1, [divaleval, qrels, runs[0]]),
        ("divaleval", n, [divaleval, qrels, *runs]),
        ("divaleval -j 2", n, [divaleval, "-j", "2", qrels, *runs]),
        ("divaleval -m all", n, [divaleval, "-m", "all", qrels, *runs]),
        ("pyarrow read only", n, [*floor, "pyarrow", qrels, *runs]),
        ("pandas read only", n, [*floor, "pandas", qrels, *runs]),
    ]
    if installed("ir_measures"):
        plan.append(("ir_measures CLI", 1, [BIN / "ir_measures", qrels, runs[0], *IR_MEASURES_SET]))
    else:
        print("  ir_measures: not installed, skipped")
    if installed("ranx"):
        plan.append(("ranx (ad hoc)", n, [sys.executable, HERE / "ranx_eval.py", qrels, *runs]))
    else:
        print("  ranx: not installed, skipped (pip install ranx to include it)")
    rows = {}
    for tool, count, argv in plan:
        out = results / f"{tool.split()[0]}{'-'.join(tool.split()[1:])}.{count}.out"
        seconds, megabytes = measure(argv, out)
        rows[(tool, count)] = (seconds, megabytes, out)
        print(f"  {tool:<26} {count:>3} runs  {seconds:7.2f} s  {megabytes:7.0f} MB", flush=True)
    ndevals = build_ndeval(results)
    for tool, command in ndevals.items():
        out = results / f"{tool.split()[0]}{tool.split()[1]}.out"
        seconds, megabytes = measure([*command, qrels, runs[0]], out.with_suffix(".1"))
        rows[(tool, 1)] = (seconds, megabytes, out.with_suffix(".1"))
        print(f"  {tool:<26} {1:>3} runs  {seconds:7.2f} s  {megabytes:7.0f} MB", flush=True)
        seconds, megabytes = time_per_run_calls(command, qrels, runs, out)
        rows[(tool, n)] = (seconds, megabytes, out)
        print(f"  {tool:<26} {n:>3} runs  {seconds:7.2f} s  {megabytes:7.0f} MB  ({n} calls)", flush=True)

    ours = rows[("divaleval", n)][2]
    compared, differ = check_numbers(ours, rows[("pyndeval", n)][2])
    print()
    print(f"{'tool':<28}{'runs':>5}{'seconds':>10}{'peak MB':>10}{'vs pyndeval':>14}{'divaleval is':>16}")
    for (tool, count), (seconds, megabytes, _) in rows.items():
        base = rows[("pyndeval", count)][0]
        mine = rows[("divaleval", count)][0]
        print(f"{tool:<28}{count:>5}{seconds:>10.2f}{megabytes:>10.0f}{base / seconds:>13.2f}x"
              f"{seconds / mine:>15.2f}x")
    print("(vs pyndeval: how many times faster than pyndeval; divaleval is: how many times faster divaleval "
          "(ndeval set) is than this line)")
    print(f"\nnumbers: {compared} values compared with pyndeval, {differ} differ")
    ndeval_runs = [key for key in rows if key[0].startswith("ndeval") and key[1] == n]
    for tool, _ in ndeval_runs:
        theirs, mine = rows_of_csv(rows[(tool, n)][2]), rows_of_csv(ours)
        same = sum(mine.get(key) == values for key, values in theirs.items())
        print(f"numbers: {tool}: {same} of {len(theirs)} rows identical (and {len(mine)} printed by divaleval)")

    print("\nwhere divaleval's time goes (ndeval set, 5 runs, in-process):", flush=True)
    subprocess.run([sys.executable, HERE / "stages.py", qrels, *runs[:5]], check=True)
    print("\nir_measures providers (bench/provider.py):", flush=True)
    provider_speedup = compare_providers(qrels, runs) if installed("ir_measures") else None

    one, many = rows[("divaleval", 1)], rows[("divaleval", n)]
    pyn = rows[("pyndeval", n)]
    targets = [
        (f"{n} runs at least 4x faster than pyndeval ({pyn[0] / many[0]:.2f}x)", pyn[0] / many[0] >= 4),
    ]
    shipped = rows.get(("ndeval -O0 (as shipped)", n)) or rows.get(("ndeval (given binary)", n))
    if shipped:
        targets.append((f"{n} runs at least 25x faster than {n} calls of ndeval as shipped "
                        f"({shipped[0] / many[0]:.1f}x)", shipped[0] / many[0] >= 25))
    for reader in ("pyarrow", "pandas"):
        floor_seconds = rows[(f"{reader} read only", n)][0]
        bound = 1.3 if reader == "pyarrow" else 2
        targets.append((f"{n} runs within {bound}x of {reader} alone reading the files "
                        f"({many[0] / floor_seconds:.2f}x)", many[0] <= bound * floor_seconds))
    optimised = rows.get(("ndeval -O2", 1))
    if optimised:
        targets.append((f"1 run no slower than one ndeval -O2 call ({one[0]:.2f} s vs {optimised[0]:.2f} s)",
                        one[0] <= optimised[0]))
    catalogue = rows[("divaleval -m all", n)][0]
    targets += [
        (f"-m all at most 1.8x the ndeval set ({catalogue / many[0]:.2f}x)", catalogue <= 1.8 * many[0]),
        (f"peak memory of {n} runs at most 1.2x that of 1 run ({many[1] / one[1]:.2f}x)", many[1] <= 1.2 * one[1]),
        ("peak memory below pyndeval's (1 run and all runs)",
         one[1] < rows[("pyndeval", 1)][1] and many[1] < pyn[1]),
        ("same numbers as pyndeval", differ == 0 and compared > 0),
    ]
    if provider_speedup is not None:
        targets.append((f"divaleval's ir_measures provider faster than pyndeval's, same values "
                        f"({provider_speedup:.2f}x)", provider_speedup > 1))
    print("\nthe fixed cost of a call (bench/startup.py):", flush=True)
    o2 = rows.get(("ndeval -O2", n))
    targets += bench_startup(qrels, runs, results, ndevals.get("ndeval -O2"), o2[0] if o2 else None, ours)
    print("\nscale-out per core (bench/pinned.py):", flush=True)
    targets += bench_pinned(qrels, runs, results)

    print("\ntargets:")
    for text, met in targets:
        print(f"  [{'met' if met else 'NOT MET'}] {text}")
    from dropins import bench_dropins  # (it imports this module's timers)
    bench_dropins(results)
    sys.exit(0 if differ == 0 else 1)


if __name__ == "__main__":
    main()
