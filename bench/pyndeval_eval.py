"""The benchmark's pyndeval side: parse qrels and runs in Python, build the ideal once, score each run.

Prints ndeval-format CSV rows (runid,topic,values...) for the number check.
"""
from __future__ import annotations

import sys

import pyndeval


def read_qrels(path):
    with open(path) as handle:
        for line in handle:
            topic, intent, docno, level = line.split()
            yield topic, intent, docno, int(level)


def read_run(path):
    runid = None
    rows = []
    with open(path) as handle:
        for line in handle:
            topic, _q0, docno, _rank, score, tag = line.split()
            runid = runid or tag
            rows.append((topic, docno, float(score)))
    return runid, rows


def main() -> None:
    qrels_path, *run_paths = sys.argv[1:]
    evaluator = pyndeval.RelevanceEvaluator(read_qrels(qrels_path))  # the ideal, once
    out = sys.stdout
    for path in run_paths:
        runid, rows = read_run(path)
        for result in evaluator.evaluate_iter(rows):
            topic = result.pop("query_id")
            out.write(",".join([runid, topic, *("%.6f" % result[m] for m in pyndeval.DEFAULT_MEASURES)]) + "\n")


if __name__ == "__main__":
    main()
