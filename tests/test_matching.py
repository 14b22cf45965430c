"""Matching a run's lines to the judgments, checked line by line against a plain dictionary lookup.

Runs long enough per topic are matched topic by topic, runs of many short topics in one pass
(ranking.TOPIC_BY_TOPIC_LINES): both must give every line its judged row and find every topic
that lists a docno twice, whatever the order of the lines.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from divaleval.io import RunTable
from divaleval.model import Qrels
from divaleval.ranking import TOPIC_BY_TOPIC_LINES, match_run


def random_case(seed: int, lines_per_topic: int):
    rng = random.Random(seed)
    topics = [f"t{j}" for j in range(6)]
    pool = [f"d{j}" for j in range(3 * lines_per_topic)]  # docnos shared across topics
    judged = {(t, d): rng.randint(0, 2) for t in topics[:4] for d in rng.sample(pool, lines_per_topic)}
    q_topic, q_docno = zip(*judged)
    qrels = Qrels.from_arrays(list(q_topic), None, list(q_docno), list(judged.values()))
    run_topic, run_docno = [], []
    for t in topics[2:]:  # two topics the qrels lack, two they share
        docnos = rng.sample(pool, lines_per_topic)
        if rng.random() < 0.5:
            docnos[-1] = docnos[0]  # a repeat
        run_topic += [t] * len(docnos)
        run_docno += docnos
    order = list(range(len(run_topic)))
    rng.shuffle(order)  # topics interleaved
    run = RunTable.from_arrays([run_topic[i] for i in order], [run_docno[i] for i in order],
                               score=[float(len(order) - i) for i in range(len(order))])
    return qrels, run, [run_topic[i] for i in order], [run_docno[i] for i in order]


@pytest.mark.parametrize("lines_per_topic", [3, TOPIC_BY_TOPIC_LINES * 2])
@pytest.mark.parametrize("seed", range(12))
def test_each_line_gets_its_judged_row_and_repeats_are_found(seed, lines_per_topic):
    qrels, run, topics, docnos = random_case(seed, lines_per_topic)
    matched = match_run(run, qrels)
    row_of = {}
    for row in range(len(qrels.row_topic)):
        topic = qrels.topic_ids[qrels.row_topic[row]]
        docno = qrels.docnos[int(qrels.row_key[row] % len(qrels.docnos))].as_py().decode()
        row_of[topic, docno] = row
    assert matched.row.tolist() == [row_of.get((t, d), -1) for t, d in zip(topics, docnos)]
    repeating = {t for t in set(topics) if len([d for u, d in zip(topics, docnos) if u == t]) !=
                 len({d for u, d in zip(topics, docnos) if u == t})}
    known = list(qrels.topic_ids)
    index_of = {t: (known.index(t) if t in known else qrels.n_topics + sorted(set(topics) - set(known)).index(t))
                for t in set(topics)}
    assert sorted(matched.repeat_topics.tolist()) == sorted(index_of[t] for t in repeating)
