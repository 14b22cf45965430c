"""Properties: the order of input lines never changes a byte; ideal runs score 1."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest

import divaleval
from conftest import NDEVAL_EXAMPLES as EX, SAMPLE, run_cli, shared_path


def shuffled(path, tmp_path, seed, name):
    lines = path.read_text().splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    target = tmp_path / name
    target.write_text("".join(lines))
    return target


@pytest.mark.parametrize("order", ["score", "rank"])
@pytest.mark.parametrize("seed", range(3))
def test_line_order_does_not_change_a_byte(tmp_path, order, seed):
    args = ["-c", "--order", order, "--dedupe"]
    base = run_cli([*args, EX / "qrels.txt", EX / "runA.txt", EX / "runB.txt", SAMPLE / "runs"], cwd=tmp_path)
    qrels = shuffled(EX / "qrels.txt", tmp_path, seed, "q.txt")
    runs = [shuffled(EX / f"{r}.txt", tmp_path, seed, f"{r}.txt") for r in ("runA", "runB")]
    sample = tmp_path / "sample"
    sample.mkdir()
    for path in sorted((SAMPLE / "runs").iterdir()):
        shuffled(path, sample, seed, path.name)
    again = run_cli([*args, qrels, *runs, sample], cwd=tmp_path)
    assert base.returncode == again.returncode == 0
    assert again.stdout == base.stdout
    # Warnings too, once the folders are taken out of the file names.
    assert re.sub(r"\S*/", "", again.stderr.decode()) == re.sub(r"\S*/", "", base.stderr.decode())


def test_file_order_depends_only_on_each_topics_own_lines(tmp_path):
    lines = (EX / "runA.txt").read_text().splitlines(keepends=True)
    by_topic = sorted(lines, key=lambda line: line.split()[0])  # stable: keeps each topic's order
    reordered = tmp_path / "runA.txt"
    reordered.write_text("".join(by_topic))
    first = run_cli(["--order", "file", EX / "qrels.txt", EX / "runA.txt"])
    second = run_cli(["--order", "file", EX / "qrels.txt", reordered])
    assert first.stdout == second.stdout


def test_trec2012_line_order(tmp_path):
    data = shared_path("data", "trec-web", "2012")
    run = data / "baseline-runs" / "ql" / "results-catb.txt"
    base = run_cli(["-c", data / "qrels-for-ndeval.txt", run])
    again = run_cli(["-c", shuffled(data / "qrels-for-ndeval.txt", tmp_path, 7, "q.txt"),
                     shuffled(run, tmp_path, 7, "results-catb.txt")])
    assert base.returncode == 0 and again.stdout == base.stdout


def write_case(tmp_path, judgments, ranking):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} {i} {d} {lvl}\n" for t, i, d, lvl in judgments))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{t} Q0 {d} {r} {100 - r} ideal\n"
                           for t, docs in ranking.items() for r, d in enumerate(docs, 1)))
    return qrels, run


@pytest.mark.parametrize("seed", range(10))
def test_round_robin_run_scores_one_where_the_greedy_ideal_is_optimal(tmp_path, seed):
    # Every relevant document covers exactly one intent: then taking each
    # intent in turn is optimal (the greedy ideal does the same), so the run
    # that does it scores alpha-nDCG@k = nERR-IA@k = nNRBP = 1 at every k.
    rng = np.random.default_rng(seed)
    judgments, ranking = [], {}
    for topic in range(1, 5):
        per_intent = {i: [f"d{topic}-{i}-{j}" for j in range(int(rng.integers(1, 6)))]
                      for i in range(1, int(rng.integers(2, 6)))}
        for intent, docs in per_intent.items():
            judgments += [(topic, intent, d, int(rng.integers(1, 4))) for d in docs]
        judgments += [(topic, 1, f"n{topic}-{j}", 0) for j in range(3)]
        queues = [list(docs) for docs in per_intent.values()]
        order = []
        while any(queues):
            for queue in queues:
                if queue:
                    order.append(queue.pop(0))
        ranking[topic] = order
    qrels, run = write_case(tmp_path, judgments, ranking)
    names = [f"alpha-nDCG@{k}" for k in (1, 3, 7, 25)] + ["nERR-IA@4", "nNRBP"]
    frame = divaleval.evaluate(str(qrels), str(run), measures=names)
    assert np.allclose(frame[names].to_numpy(), 1.0, rtol=0, atol=1e-12)


def test_greedy_ideal_ranking_scores_exactly_one(tmp_path):
    # Whatever the qrels, a run in the greedy ideal's own order scores 1.
    judgments = [(1, 1, "a", 1), (1, 2, "a", 1), (1, 2, "b", 1), (1, 3, "b", 1), (1, 3, "c", 1),
                 (1, 1, "c", 1), (1, 4, "d", 1), (1, 1, "e", 0)]
    # alpha = 0.5 greedy: all of a, b, c score 2, d scores 1 -> c (greatest docno);
    # then a = 0.5 + 1, b = 1 + 0.5, d = 1: tie a/b -> b; then a = 0.5 + 0.5 = 1 = d -> d; then a.
    qrels, run = write_case(tmp_path, judgments, {1: ["c", "b", "d", "a", "e"]})
    frame = divaleval.evaluate(str(qrels), str(run), measures=["alpha-nDCG@2", "alpha-nDCG@5", "nNRBP"])
    assert frame.iloc[0, 2:].tolist() == [1.0, 1.0, 1.0]
