"""Where divaleval's time goes: each stage of one call, timed in-process.

Usage: python bench/stages.py QRELS RUN [RUN ...]  [-m MEASURE ...]
"""
from __future__ import annotations

import io
import sys
import time

START = time.perf_counter()
import divaleval  # noqa: E402
from divaleval.api import Evaluator, resolve_measures  # noqa: E402
from divaleval.context import RunContext  # noqa: E402
from divaleval.io import read_qrels, read_run  # noqa: E402
from divaleval.output import make_writer  # noqa: E402
from divaleval.ranking import rank_run  # noqa: E402
from divaleval.topics import build_qrels  # noqa: E402

IMPORTED = time.perf_counter()


def main(argv: list[str]) -> None:
    measures_args = [argv[i + 1] for i, a in enumerate(argv) if a == "-m"]
    paths = [a for i, a in enumerate(argv) if a != "-m" and (i == 0 or argv[i - 1] != "-m")]
    qrels_path, run_paths = paths[0], paths[1:]
    stages: dict[str, float] = {"import": IMPORTED - START}

    def timed(name, fn, *args, **kwargs):
        t = time.perf_counter()
        result = fn(*args, **kwargs)
        stages[name] = stages.get(name, 0.0) + time.perf_counter() - t
        return result

    table = timed("qrels: parse", read_qrels, qrels_path)
    qrels = timed("qrels: arrays", build_qrels, table)
    del table
    measures = resolve_measures(measures_args or None)
    ctx = RunContext(qrels, None, qrels.topic_ids and __import__("numpy").arange(qrels.n_topics))
    for alpha in sorted({dict(m.params).get("alpha") for m in measures} - {None}):
        from divaleval.measures.novelty import greedy_ideal_gains
        timed("qrels: greedy ideal", greedy_ideal_gains, qrels, alpha)
    del ctx
    evaluator = Evaluator(qrels, measures, warn=lambda message: None)
    writer = make_writer("ndeval", io.StringIO(), [m.name for m in measures])
    writer.start()
    for path in run_paths:
        run = timed("runs: parse", read_run, path)
        ranked = timed("runs: order, match", rank_run, run, qrels)
        ctx = RunContext(qrels, ranked, ranked.topics)
        import numpy as np
        matrix = np.zeros((len(ranked.topics), len(measures)))
        for j, m in enumerate(measures):
            matrix[:, j] = timed("runs: kernels", m.compute, ctx)
        scores = timed("runs: scores object", evaluator.score, run)  # includes a second rank+kernel pass
        stages["runs: scores object"] -= 0  # kept separate below
        timed("runs: output", writer.add_run, scores)
    total = time.perf_counter() - START
    # evaluator.score repeats ordering and kernels; report it apart from the stages above.
    repeat = stages.pop("runs: scores object")
    print(f"{'stage':<24}{'seconds':>10}{'share':>8}")
    accounted = 0.0
    for name, seconds in stages.items():
        accounted += seconds
        print(f"{name:<24}{seconds:>10.3f}{seconds / (total - repeat):>8.1%}")
    print(f"{'other':<24}{total - repeat - accounted:>10.3f}")
    print(f"{'total':<24}{total - repeat:>10.3f}   ({len(run_paths)} runs, {len(measures)} measures; "
          f"divaleval {divaleval.__version__})")


if __name__ == "__main__":
    main(sys.argv[1:])
