"""Cross-check against pyndeval (ndeval's C code behind a Python API) on random tie-free cases.

pyndeval orders by score (ties by docno ascending, unlike ndeval), so the runs
here have distinct scores; it caps cutoffs at 20.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pyndeval = pytest.importorskip("pyndeval")

from divaleval import Evaluator  # noqa: E402
from divaleval.compat.ndeval import ndeval_measures  # noqa: E402
from divaleval.io import QrelsTable, RunTable  # noqa: E402
from divaleval.io.table import Factor  # noqa: E402
from divaleval.model import build_qrels  # noqa: E402

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, rng.integers(2, 9)):
        n_intents = int(rng.integers(1, 7))
        n_docs = int(rng.integers(3, 40))
        docs = [f"doc{topic}-{j:02d}{rng.choice(list('abc'))}" for j in range(n_docs)]
        for doc in docs:
            for intent in range(1, n_intents + 1):
                if rng.random() < 0.6:
                    level = int(rng.choice([-2, 0, 0, 0, 1, 1, 2, 3]))
                    qrels.append((str(topic), str(intent), doc, level))
        if not any(q[0] == str(topic) and q[3] >= 1 for q in qrels):
            qrels.append((str(topic), "1", docs[0], 1))
        pool = docs + [f"unjudged{topic}-{j}" for j in range(int(rng.integers(0, 15)))]
        chosen = rng.permutation(len(pool))[: int(rng.integers(1, len(pool) + 1))]
        scores = rng.permutation(len(chosen)) + rng.random()  # distinct
        run += [(str(topic), pool[c], float(s)) for c, s in zip(chosen, scores)]
    return qrels, run


def divaleval_scores(qrels, run, alpha, beta):
    frame = pd.DataFrame(qrels, columns=["topic", "intent", "docno", "level"])
    table = QrelsTable("random", Factor.of(frame.topic.to_numpy(object)), Factor.of(frame.intent.to_numpy(object)),
                       Factor.of(frame.docno.to_numpy(object)), frame.level.to_numpy(np.int64),
                       np.arange(1, len(frame) + 1))
    runs = pd.DataFrame(run, columns=["topic", "docno", "score"])
    run_table = RunTable("random", "r", Factor.of(runs.topic.to_numpy(object)), runs.docno.to_numpy(object),
                         np.arange(len(runs)), runs.score.to_numpy(float), np.arange(1, len(runs) + 1))
    measures = ndeval_measures(alpha, beta)
    result = Evaluator(build_qrels(table), measures, warn=lambda message: None).score(run_table)
    return {topic: dict(zip([m.name for m in measures], row)) for topic, row in zip(result.topic_ids, result.matrix)}


def canonical(name: str) -> str:
    """pyndeval's column name for one of ours (drop the parameters)."""
    base, _, cutoff = name.partition("@")
    base = base.split("(")[0]
    return f"{base}@{cutoff}" if cutoff else base


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_agree_with_pyndeval(seed):
    alpha, beta = [(0.5, 0.5), (0.8, 0.9), (0.3, 0.6)][seed % 3]
    qrels, run = random_case(seed)
    ours = divaleval_scores(qrels, run, alpha, beta)
    theirs = pyndeval.ndeval(qrels, run, alpha=alpha, beta=beta)
    assert set(ours) == set(theirs)
    for topic, values in ours.items():
        for name, value in values.items():
            assert value == pytest.approx(theirs[topic][canonical(name)], abs=1e-9), (topic, name)


@pytest.mark.parametrize("beta", [0.5, 0.9, 0.99, 1.0])
def test_deep_ideal_rankings_agree_with_pyndeval(beta):
    # Topics with hundreds of relevant documents: the greedy ideal is computed only as deep as
    # the measures read it (NRBP's tail: until its terms cannot change a bit of the sum).
    rng = np.random.default_rng(int(beta * 100))
    qrels, run = [], []
    for topic in range(1, 4):
        docs = [f"t{topic}d{j:04d}" for j in range(int(rng.integers(150, 400)))]
        for doc in docs:
            for intent in range(1, 9):
                if rng.random() < 0.3:
                    qrels.append((str(topic), str(intent), doc, 1))
        chosen = rng.permutation(len(docs))[: int(rng.integers(100, len(docs)))]
        run += [(str(topic), docs[c], float(s)) for c, s in zip(chosen, rng.permutation(len(chosen)) + 0.5)]
    ours = divaleval_scores(qrels, run, 0.5, beta)
    theirs = pyndeval.ndeval(qrels, run, alpha=0.5, beta=beta)
    for topic, values in ours.items():
        for name, value in values.items():
            assert value == pytest.approx(theirs[topic][canonical(name)], rel=1e-12, abs=1e-15), (topic, name)
