"""Scoring a run a block of topics at a time (divaleval/engine.py) gives every separable measure's value to the
bit, and the engine blocks only where every measure is separable."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from conftest import run_ndeval, shared_path
from divaleval import RunTable, engine
from divaleval.api import make_evaluator, resolve_measures
from divaleval.measures.core.definition import NONE, OPTIONAL, REQUIRED
from divaleval.measures.core.registry import REGISTRY
from divaleval.model.qrels import Qrels


def separable_families() -> list[str]:
    return sorted(name for name, definition in REGISTRY.items() if definition.separable)


def bound_forms(name: str) -> list[str]:
    """The family at its defaults, at cutoffs from 1 to past the deepest ranking, and with a parameter moved."""
    definition = REGISTRY[name]
    cutoffs = {REQUIRED: [1, 5, 20, 700], OPTIONAL: [None, 3, 50], NONE: [None]}[definition.cutoff]
    forms = [name + ("" if k is None else f"@{k}") for k in cutoffs]
    if any(p.name == "alpha" for p in definition.params):
        forms.append(f"{name}(alpha=0.9)" + ("" if cutoffs[0] is None else "@10"))
    return forms


def wide_collection(seed: int = 20261128) -> tuple[Qrels, RunTable]:
    """Topics whose rankings hold from 2 to some 400 hits, so that grids padded to the widest topic are far wider
    than most topics' rows; a qrels topic the run lacks, a run topic the qrels lack, and graded levels."""
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    judged_counts = [4, 60, 500, 150, 9, 300, 35, 450, 20]
    for t, judged in enumerate(judged_counts):
        intents = 1 + t % 6
        for d in range(judged):
            for i in range(1, intents + 1):
                level = int(rng.choice([0, 1, 2, 3], p=[0.55, 0.25, 0.12, 0.08]))
                qrels_rows.append((f"t{t}", str(i), f"d{t}-{d}", level))
        if t == 4:
            continue  # judged, never ranked
        depth = int(rng.integers(judged // 2 + 1, 700))
        docnos = [f"d{t}-{d}" for d in rng.permutation(max(judged, depth))[:depth]]
        run_rows += [(f"t{t}", docno) for docno in docnos]
    run_rows += [("unjudged-topic", f"x{k}") for k in range(5)]
    qrels = Qrels.from_arrays(*zip(*qrels_rows))
    topics, docnos = zip(*run_rows)
    return qrels, RunTable.from_arrays(list(topics), list(docnos), runid="wide")


def ranked_run(qrels, run, measures, **options):
    evaluator = make_evaluator(qrels, measures, warn=False, **options)
    evaluator.warm_up()
    return evaluator, evaluator.prepare(("wide", run)).ranked


def bits(matrix: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(matrix).view(np.int64)


PARTITIONS = {
    "one topic a block": lambda n: np.arange(n + 1),
    "uneven blocks": lambda n: np.unique(np.r_[0, 1, 4, 5, n]).clip(0, n),
}


def test_the_ndeval_set_is_separable():
    assert {m.definition.name for m in resolve_measures("ndeval")} <= set(separable_families())


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("rel_min", [1, 2])
@pytest.mark.parametrize("partition", list(PARTITIONS))
def test_every_separable_family_gives_the_same_bits_in_blocks(partition, rel_min, complete):
    qrels, run = wide_collection()
    measures = [form for name in separable_families() for form in bound_forms(name)]
    evaluator, ranked = ranked_run(qrels, run, measures, rel_min=rel_min, complete=complete)
    topics = np.arange(qrels.n_topics) if complete else ranked.topics
    whole = engine._score(qrels, ranked, evaluator.measures, topics, evaluator.settings)
    blocked = engine.score_blocks(qrels, ranked, evaluator.measures, topics,
                                  PARTITIONS[partition](len(topics)), evaluator.settings)
    assert whole.shape == (len(topics), len(measures)) and np.isfinite(whole).all()
    assert (whole > 0).any(axis=0).all()  # every measure scores something here: no column compared as zeros only
    differ = [evaluator.measures[j].name for j in range(len(measures)) if (bits(whole[:, j]) != bits(blocked[:, j])).any()]
    assert differ == []


def test_the_collection_tells_a_measure_that_is_not_separable():
    """nDCG over the whole ranking sums a topic's discounted gains as numpy sums a row, pairwise in groups that
    follow the row's length, and its rows are padded to the widest topic's: scored one topic at a time, some
    topic's value moves by an ulp here. Were the test's data too narrow to show that, the test above would prove
    nothing."""
    qrels, run = wide_collection()
    evaluator, ranked = ranked_run(qrels, run, ["nDCG"])
    assert not evaluator.measures[0].definition.separable
    whole = engine._score(qrels, ranked, evaluator.measures, ranked.topics, evaluator.settings)
    blocked = engine.score_blocks(qrels, ranked, evaluator.measures, ranked.topics,
                                  np.arange(len(ranked.topics) + 1), evaluator.settings)
    assert np.allclose(whole, blocked, rtol=1e-13, atol=0)
    assert (bits(whole) != bits(blocked)).any()


class ContextsMade:
    """Counts the contexts the engine makes, and the topics of each."""

    def __init__(self, monkeypatch) -> None:
        self.topics: list[int] = []
        made = engine.RunContext

        def counting(qrels, run, topics, *args):
            self.topics.append(len(topics))
            return made(qrels, run, topics, *args)

        monkeypatch.setattr(engine, "RunContext", counting)


def test_the_engine_blocks_a_long_run_of_separable_measures_only(monkeypatch):
    qrels, run = wide_collection()
    evaluator, ranked = ranked_run(qrels, run, "ndeval")
    whole = engine._score(qrels, ranked, evaluator.measures, ranked.topics, evaluator.settings)
    monkeypatch.setattr(engine, "BLOCK_LINES", 600)
    contexts = ContextsMade(monkeypatch)
    blocked = engine.score_matrix(qrels, ranked, evaluator.measures, ranked.topics, evaluator.settings)
    assert len(contexts.topics) > 2 and max(contexts.topics) < len(ranked.topics)
    assert sum(contexts.topics) == len(ranked.topics)
    assert (bits(blocked) == bits(whole)).all()

    mixed = evaluator.measures + resolve_measures(["AP"])
    contexts.topics.clear()
    engine.score_matrix(qrels, ranked, mixed, ranked.topics, evaluator.settings)
    assert contexts.topics == [len(ranked.topics)]  # AP's values could depend on the blocks: one context


def test_blocks_start_within_the_lines_given():
    # topic 0: 3 lines, topic 1: none, topic 2: 2 lines, topic 5: 4 lines (topic 3's lines are not scored)
    line_topic = np.array([0, 0, 0, 2, 2, 3, 5, 5, 5, 5])
    topics = np.array([0, 1, 2, 5])
    assert engine.topic_blocks(line_topic, topics, 3).tolist() == [0, 1, 4]  # lines before: 0 | 3, 3, 5
    assert engine.topic_blocks(line_topic, topics, 100).tolist() == [0, 4]
    assert engine.topic_blocks(line_topic, topics, 1).tolist() == [0, 1, 3, 4]  # topic 1 has no line of its own
    assert engine.topic_blocks(line_topic, topics[:0], 3).tolist() == [0, 0]


@hypothesis_settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=40), st.integers(1, 50))
def test_blocks_cover_every_topic_once_in_order(lengths, lines):
    line_topic = np.repeat(np.arange(len(lengths)), lengths)
    topics = np.arange(len(lengths))
    bounds = engine.topic_blocks(line_topic, topics, lines)
    assert bounds[0] == 0 and bounds[-1] == len(topics) and (np.diff(bounds) > 0).all()
    before = np.cumsum(lengths) - lengths
    for start, end in zip(bounds[:-1], bounds[1:]):
        # every topic of a block starts within `lines` lines of the block's first line
        assert before[end - 1] - before[start] < lines or end - start == 1
        # and a block is as long as that allows: the next topic would start `lines` or more past it
        if end < len(topics):
            assert before[end] // lines > before[start] // lines


@pytest.mark.golden
@pytest.mark.parametrize("flags", [[], ["-c", "-traditional"]])
def test_ndeval_byte_for_byte_with_runs_scored_in_small_blocks(monkeypatch, flags):
    """The TREC 2012 baselines in blocks of about 2,000 lines (a few topics each): ndeval's bytes."""
    monkeypatch.setattr(engine, "BLOCK_LINES", 2000)
    contexts = ContextsMade(monkeypatch)
    suffix = {(): "default", ("-c", "-traditional"): "c.traditional"}[tuple(flags)]
    data = shared_path("data", "trec-web", "2012")
    for system, results in (("ql", "results-cata"), ("rm", "results-catb")):
        expected = shared_path("oracle", "ndeval", "trec2012", f"{system}-{results}.{suffix}.csv")
        status, out, err = run_ndeval([*flags, data / "qrels-for-ndeval.txt",
                                       data / "baseline-runs" / system / f"{results}.txt"])
        assert status == 0, err
        assert out == expected.read_text()
    assert len(contexts.topics) > 20  # 50 topics, a few to a block
