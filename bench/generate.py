"""A synthetic, TREC-like diversity collection for the benchmark (fixed seed).

Every judged document is judged for every intent (level 0 or, with
probability p, a level 1-3); each run ranks every judged document of a topic
plus as many unjudged ones, with distinct scores.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def generate(out: Path, topics: int, intents: int, docs: int, runs: int, depth: int,
             p_relevant: float, seed: int) -> dict:
    settings = dict(topics=topics, intents=intents, docs=docs, runs=runs, depth=depth,
                    p_relevant=p_relevant, seed=seed)
    stamp = out / "settings.json"
    if stamp.exists() and json.loads(stamp.read_text()) == settings:
        return settings
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    topic_ids = np.arange(1, topics + 1)
    judged = np.array([f"clueweb12-{t:04d}wb-{d:02d}-{rng.integers(100000):05d}"
                       for t in range(topics) for d in range(docs)]).reshape(topics, docs)
    # Qrels: topic intent docno level, every (document, intent) pair.
    levels = np.where(rng.random((topics, docs, intents)) < p_relevant,
                      rng.integers(1, 4, (topics, docs, intents)), 0)
    t_col = np.repeat(topic_ids, docs * intents).astype(str)
    i_col = np.tile(np.arange(1, intents + 1), topics * docs).astype(str)
    d_col = np.repeat(judged.ravel(), intents)
    lines = np.char.add(np.char.add(np.char.add(np.char.add(np.char.add(np.char.add(
        t_col, " "), i_col), " "), d_col), " "), levels.ravel().astype(str))
    (out / "qrels.txt").write_text("\n".join(lines.tolist()) + "\n")
    run_dir = out / "runs"
    run_dir.mkdir(exist_ok=True)
    unjudged_count = max(depth - docs, 0)
    for r in range(1, runs + 1):
        rows = []
        for t in range(topics):
            unjudged = [f"clueweb12-{t:04d}xx-{r:02d}-{j:05d}" for j in range(unjudged_count)]
            pool = np.concatenate([judged[t], np.array(unjudged)])[:depth] \
                if unjudged else judged[t][:depth]
            order = rng.permutation(len(pool))
            scores = np.sort(rng.random(len(pool)))[::-1] * 100  # distinct with probability 1
            rows += [f"{t + 1} Q0 {pool[o]} {k + 1} {scores[k]:.10f} run{r:02d}" for k, o in enumerate(order)]
        (run_dir / f"run{r:02d}.txt").write_text("\n".join(rows) + "\n")
    stamp.write_text(json.dumps(settings))
    return settings


SIZES = [("topics", int, 200), ("intents", int, 20), ("docs", int, 500), ("runs", int, 50),
         ("depth", int, 1000), ("p-relevant", float, 0.1), ("seed", int, 20261121)]


def add_size_options(parser: argparse.ArgumentParser) -> None:
    """The collection's sizes as options (shared with bench.py)."""
    for name, kind, default in SIZES:
        parser.add_argument(f"--{name}", type=kind, default=default)


def size_arguments(args: argparse.Namespace) -> list[str]:
    """The options that rebuild ``args``' collection, for a command line."""
    return [item for name, _, _ in SIZES for item in (f"--{name}", str(getattr(args, name.replace("-", "_"))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    add_size_options(parser)
    args = parser.parse_args()
    generate(args.out, args.topics, args.intents, args.docs, args.runs, args.depth, args.p_relevant, args.seed)


if __name__ == "__main__":
    main()
