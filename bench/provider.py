"""divaleval's ir_measures provider against ir_measures' pyndeval provider, in one process.

    python bench/provider.py QRELS RUN...

ndeval's 21 measures under ir_measures' names, on the qrels and runs in the form PyTerrier and
ir_measures users hold them: DataFrames (``query_id, iteration, doc_id, relevance``;
``query_id, doc_id, score``), read once by pandas and given to both providers. Timed: each
provider's evaluator (the qrels read, the ideal rankings built) and its ``iter_calc`` over every
run, consumed whole; the reading of the files is neither's. Every per-topic value is checked equal
(the benchmark's runs have no score ties, so every tie order agrees). The last line is
``speedup: X`` (pyndeval's provider's seconds over divaleval's), which bench.py reads.
"""
from __future__ import annotations

import subprocess
import sys
import time
import warnings
from pathlib import Path


def ndeval_set() -> list:
    """ndeval's default measures as ir_measures writes them."""
    from ir_measures import AP_IA, ERR_IA, NRBP, P_IA, StRecall, alpha_DCG, alpha_nDCG, nERR_IA, nNRBP

    cut = [m @ k for m in (ERR_IA, nERR_IA, alpha_DCG, alpha_nDCG) for k in (5, 10, 20)]
    return [*cut, NRBP, nNRBP, AP_IA, *(m @ k for m in (P_IA, StRecall) for k in (5, 10, 20))]


def read_frames(qrels: str, runs: list[str]):
    import pandas as pd

    text = {"query_id": str, "iteration": str, "doc_id": str}
    qrels_frame = pd.read_csv(qrels, sep=" ", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                              dtype=text)
    for path in runs:
        yield qrels_frame, pd.read_csv(path, sep=" ", header=None, usecols=[0, 2, 4],
                                       names=["query_id", "q0", "doc_id", "rank", "score", "runid"], dtype=text)


def main(argv: list[str]) -> None:
    import ir_measures

    import divaleval.ir_measures as divaleval_provider

    warnings.simplefilter("ignore")  # (the runs rank unjudged documents; nothing to report here)
    qrels_path, *run_paths = argv
    measures = ndeval_set()
    providers = {"pyndeval": ir_measures.pyndeval, "divaleval": divaleval_provider.provider}
    seconds = {name: 0.0 for name in providers}
    evaluators = {}
    values = {name: {} for name in providers}
    for number, (qrels, run) in enumerate(read_frames(qrels_path, run_paths)):
        for name, provider in providers.items():
            start = time.perf_counter()
            if name not in evaluators:
                evaluators[name] = provider.evaluator(measures, qrels)
            metrics = list(evaluators[name].iter_calc(run))
            seconds[name] += time.perf_counter() - start
            values[name].update(((number, m.query_id, str(m.measure)), m.value) for m in metrics)
        del run
    differ = sum(values["divaleval"].get(key) != value for key, value in values["pyndeval"].items())
    print(f"  {len(run_paths)} runs, {len(measures)} measures, DataFrames in, in one process:")
    for name, taken in seconds.items():
        print(f"  ir_measures.{name:<10} provider {taken:8.2f} s")
    print(f"  values: {len(values['pyndeval'])} compared, {differ} differ")
    print(f"speedup: {seconds['pyndeval'] / seconds['divaleval']:.2f}" if differ == 0 else "speedup: 0")


def compare_providers(qrels: Path, runs: list[Path]) -> float | None:
    """Run this benchmark in a child process (printing its report); the speedup, or None without ir_measures."""
    result = subprocess.run([sys.executable, __file__, str(qrels), *map(str, runs)], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"  ir_measures provider: failed\n{result.stderr}")
        return None
    *lines, last = result.stdout.rstrip("\n").split("\n")
    print("\n".join(lines), flush=True)
    return float(last.split()[-1])


if __name__ == "__main__":
    main(sys.argv[1:])
