"""divaleval against the reference tools, on the same files, in the same run.

    python bench/bench.py [--topics 200 --intents 20 --docs 500 --runs 50 --depth 1000] [--quick]

1. Generates (fixed seed, cached in bench/out/) a TREC-like collection: every
   judged document judged for every intent, P(relevant) per intent, levels
   1-3; runs ranking every judged document plus as many unjudged, with
   distinct scores.
2. Times, each in a child process with its peak memory (the summed resident
   memory of the child and its workers, sampled, and never below the child's
   own maximum): divaleval and pyndeval on one run and on every run (ndeval's
   21 measures, default options; pyndeval parses in Python and builds its
   ideal once), divaleval with -j 2, ir_measures' command line on one run, and
   divaleval with the whole measure catalogue (-m all) on every run.
3. Checks that divaleval prints the same numbers as pyndeval for every run and
   topic (the runs have no score ties, so both orders agree).
4. Prints the table, the ratios to pyndeval, where divaleval's time goes, and
   the targets of issue 3.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import add_size_options, size_arguments  # noqa: E402

BIN = Path(sys.executable).parent
PAGE = os.sysconf("SC_PAGE_SIZE")
IR_MEASURES_SET = [f"{m}@{k}" for m in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG") for k in (5, 10, 20)] \
    + ["NRBP", "nNRBP", "AP_IA"] + [f"{m}@{k}" for m in ("P_IA", "StRecall") for k in (5, 10, 20)]


def tree_rss(root: int) -> int:
    """Resident bytes of every process in ``root``'s session."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != root:  # session id (fields after the name: state ppid pgrp session)
                continue
            with open(f"/proc/{entry}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def measure(argv: list, stdout: Path) -> tuple[float, float]:
    """(wall seconds, peak MB) of one command, its output to ``stdout``.

    Peak memory: the largest sampled sum over the command's processes, and at
    least the command's own maximum resident size as /usr/bin/time reports it
    (this process's getrusage would count the memory of the Python process it
    was forked from).
    """
    timer = ["/usr/bin/time", "-f", "%M", "-o"] if os.path.exists("/usr/bin/time") else None
    with open(stdout, "wb") as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as maxrss:
        command = [*(timer + [maxrss.name] if timer else []), *[str(a) for a in argv]]
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=err, start_new_session=True)
        peak = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss(proc.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        proc.wait()
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, argv))}\n{err.read().decode()}")
        own = int(maxrss.read().strip().splitlines()[-1]) * 1024 if timer else 0
    return seconds, max(peak[0], own) / 2**20


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_size_options(parser)
    parser.add_argument("--quick", action="store_true", help="a small collection (40 topics, 10 runs)")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args()
    if args.quick:
        args.topics, args.runs = 40, 10
    name = f"t{args.topics}-i{args.intents}-d{args.docs}-r{args.runs}-k{args.depth}-p{args.p_relevant}-s{args.seed}"
    data = args.out / name
    print(f"collection {name} (in {data})", flush=True)
    t = time.perf_counter()
    # In a child process, so that this one stays small (its children are forked from it).
    subprocess.run([sys.executable, HERE / "generate.py", data, *size_arguments(args)], check=True)
    print(f"  ready in {time.perf_counter() - t:.1f} s", flush=True)
    qrels = data / "qrels.txt"
    runs = sorted((data / "runs").iterdir())
    results = data / "results"
    results.mkdir(exist_ok=True)
    divaleval = BIN / "divaleval"
    pyndeval = [sys.executable, HERE / "pyndeval_eval.py"]
    n = len(runs)
    plan = [
        ("pyndeval", 1, [*pyndeval, qrels, runs[0]]),
        ("pyndeval", n, [*pyndeval, qrels, *runs]),
        ("divaleval", 1, [divaleval, qrels, runs[0]]),
        ("divaleval", n, [divaleval, qrels, *runs]),
        ("divaleval -j 2", n, [divaleval, "-j", "2", qrels, *runs]),
        ("divaleval -m all", n, [divaleval, "-m", "all", qrels, *runs]),
        ("ir_measures CLI", 1, [BIN / "ir_measures", qrels, runs[0], *IR_MEASURES_SET]),
    ]
    rows = {}
    for tool, count, argv in plan:
        out = results / f"{tool.replace(' ', '_')}.{count}.out"
        seconds, megabytes = measure(argv, out)
        rows[(tool, count)] = (seconds, megabytes, out)
        print(f"  {tool:<18} {count:>3} runs  {seconds:7.2f} s  {megabytes:7.0f} MB", flush=True)

    compared, differ = check_numbers(rows[("divaleval", n)][2], rows[("pyndeval", n)][2])
    print()
    print(f"{'tool':<18}{'runs':>5}{'seconds':>10}{'peak MB':>10}{'time vs pyndeval':>18}{'memory vs pyndeval':>20}")
    for (tool, count), (seconds, megabytes, _) in rows.items():
        base = rows[("pyndeval", count)]
        print(f"{tool:<18}{count:>5}{seconds:>10.2f}{megabytes:>10.0f}"
              f"{base[0] / seconds:>17.2f}x{megabytes / base[1]:>19.2f}x")
    print("(time vs pyndeval: how many times faster; memory vs pyndeval: share of pyndeval's peak)")
    print(f"\nnumbers: {compared} values compared with pyndeval, {differ} differ")

    print("\nwhere divaleval's time goes (ndeval set, 5 runs, in-process):", flush=True)
    subprocess.run([sys.executable, HERE / "stages.py", qrels, *runs[:5]], check=True)

    one, many = rows[("divaleval", 1)], rows[("divaleval", n)]
    targets = [
        (f"{n} runs at least 5x faster than pyndeval", rows[("pyndeval", n)][0] / many[0] >= 5),
        (f"{n} runs with -j 2 at least 5x faster than pyndeval", rows[("pyndeval", n)][0] / rows[("divaleval -j 2", n)][0] >= 5),
        ("1 run no slower than pyndeval", one[0] <= rows[("pyndeval", 1)][0]),
        ("full catalogue at most 3x the ndeval set", rows[("divaleval -m all", n)][0] <= 3 * many[0]),
        ("peak memory below pyndeval's (1 run and all runs)",
         one[1] < rows[("pyndeval", 1)][1] and many[1] < rows[("pyndeval", n)][1]),
        (f"memory flat in the number of runs ({n} runs within 10% of 1)", many[1] <= 1.1 * one[1]),
        ("same numbers as pyndeval", differ == 0 and compared > 0),
    ]
    print("\ntargets:")
    for text, met in targets:
        print(f"  [{'met' if met else 'NOT MET'}] {text}")
    sys.exit(0 if differ == 0 else 1)


if __name__ == "__main__":
    main()
