"""The benchmark's ranx side (only where ranx is installed): ad hoc nDCG@10 and MAP of every run.

ranx has no diversity measure; this times it reading the same TREC files and
scoring the closest measures it has, so that its speed can be put beside ours.
"""
from __future__ import annotations

import sys

from ranx import Qrels, Run, evaluate


def main() -> None:
    qrels_path, *run_paths = sys.argv[1:]
    qrels = Qrels.from_file(qrels_path, kind="trec")
    for path in run_paths:
        print(path, evaluate(qrels, Run.from_file(path, kind="trec"), ["ndcg@10", "map"]))


if __name__ == "__main__":
    main()
