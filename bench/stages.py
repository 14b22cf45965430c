"""Where divaleval's time goes: each stage of one call, timed in-process, one stage after the other
(the command itself reads and matches two runs in threads while it scores a third).

Usage: python bench/stages.py QRELS RUN [RUN ...]   (ndeval's measure set)
"""
from __future__ import annotations

import io
import sys
import time

START = time.perf_counter()
import divaleval  # noqa: E402
from divaleval.api import resolve_measures  # noqa: E402
from divaleval.engine import score_matrix  # noqa: E402
from divaleval.evaluator import Evaluator  # noqa: E402
from divaleval.io import read_qrels, read_run  # noqa: E402
from divaleval.memory import keep_large_blocks_in_heap  # noqa: E402
from divaleval.model import build_qrels  # noqa: E402
from divaleval.output import make_writer  # noqa: E402
from divaleval.ranking import match_run, rank_matched  # noqa: E402
from divaleval.results import RawScores  # noqa: E402

IMPORTED = time.perf_counter()


def main(qrels_path: str, run_paths: list[str]) -> None:
    stages: dict[str, float] = {"import": IMPORTED - START}
    keep_large_blocks_in_heap()  # as the command does

    def timed(name, fn, *args, **kwargs):
        t = time.perf_counter()
        result = fn(*args, **kwargs)
        stages[name] = stages.get(name, 0.0) + time.perf_counter() - t
        return result

    qrels = timed("qrels: arrays", build_qrels, timed("qrels: parse", read_qrels, qrels_path))
    evaluator = Evaluator(qrels, resolve_measures(None), warn=lambda message: None)
    timed("qrels: ideal rankings", evaluator.warm_up)
    writer = make_writer("ndeval", io.StringIO(), [m.name for m in evaluator.measures])
    writer.start()
    for path in run_paths:
        run = timed("runs: parse", read_run, path)
        matched = timed("runs: match", match_run, run, qrels)
        ranked = timed("runs: order", rank_matched, matched, qrels)
        matrix = timed("runs: kernels", score_matrix, qrels, ranked, evaluator.measures, ranked.topics)
        scores = timed("runs: means", evaluator.finish, RawScores(run.name, run.name, run.runid, ranked.topics, matrix, []))
        timed("runs: output", writer.add_run, scores)
    total = time.perf_counter() - START
    print(f"  {'stage':<24}{'seconds':>9}{'share':>8}")
    for name, seconds in stages.items():
        print(f"  {name:<24}{seconds:>9.3f}{seconds / total:>8.1%}")
    print(f"  {'total':<24}{total:>9.3f}   ({len(run_paths)} runs; divaleval {divaleval.__version__})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
