"""The NCU kernels' two shortcuts keep every bit.

* Sums at a cutoff over the leading columns only (measures/core/kernels.summed_columns):
  a kernel at cutoff k adds the terms of the entries ranked <= k, which sit in
  the first k columns of rows hundreds of columns wide; the columns after them
  hold zeros. Summing only the columns ``summed_columns`` keeps must give the
  very bits of numpy's sum over every column: checked against that full sum, on
  random rows and through every cutoff measure of the family.
* The ideal lists' values, computed once for every row of the qrels and shared by
  the runs (measures/ncu/lists.ideal_value): checked against each run's own
  ideal lists, for runs that cover some topics and runs that cover all.
* CT@k and EU@k (measures/novelty) sum the leading columns of the hits' grid by the
  same rule: checked against sums over every column.
* Sums over intents as one running sum (measures/core/kernels.weighted_intent_sum):
  checked against the loop over intents, bit for bit, -0.0 and NaN included.
"""
from __future__ import annotations

import numpy as np
import pytest

import divaleval
import divaleval.measures.ncu.kernels as ncu_kernels
from divaleval.measures.ncu import lists as ncu_lists
from divaleval.io import RunTable
from divaleval.measures.core import kernels
from divaleval.measures.core.kernels import summed_columns
from divaleval.model import Qrels


def test_this_numpy_sums_rows_as_the_rule_expects():
    # Otherwise every sum silently covers all columns again (right, but slower): worth knowing.
    assert kernels.trailing_zeros_change_no_bit()


@pytest.mark.parametrize("seed", range(6))
def test_leading_columns_sum_to_the_same_bits(seed):
    rng = np.random.default_rng(seed)
    for width in [1, 2, 7, 8, 9, 16, 17, 63, 64, 65, 127, 128, 129, 130, 143, 144, 255, 256, 257, 465, 1000, 4097]:
        for count in sorted({0, 1, 2, 5, 7, 8, 9, 10, 15, 16, 17, 20, 24, 25, 31, 33, 56, 57, 63, 64, 65, 100,
                             width - 1, width, width + 3}):
            if count < 0:
                continue
            rows = rng.integers(1, 12)
            scale = 10.0 ** rng.integers(-9, 9, (rows, 1))
            values = rng.standard_normal((rows, width)) * scale  # signs and magnitudes mixed
            values[:, count:] = 0.0
            kept = summed_columns(width, count)
            assert min(count, width) <= kept <= width
            expected = values.sum(axis=1)
            assert np.array_equal(values[:, :kept].sum(axis=1), expected), (width, count, kept)
            # As the kernels use it: a masked copy of the leading columns.
            mask = values != 0
            assert np.array_equal(np.where(mask[:, :kept], values[:, :kept], 0.0).sum(axis=1),
                                  np.where(mask, values, 0.0).sum(axis=1))


def test_no_bound_keeps_every_column():
    assert summed_columns(465, None) == 465


def _deep_case(seed: int) -> tuple[Qrels, RunTable]:
    """Topics whose runs hold hundreds of relevant documents, so that the gain lists are wide."""
    rng = np.random.default_rng(seed)
    topics, intents, judged, depth = 6, 4, 300, 700
    q_topic, q_intent, q_docno, q_level = [], [], [], []
    for t in range(topics):
        for d in range(judged):
            for i in range(intents):
                q_topic.append(f"{t + 1}")
                q_intent.append(f"{i + 1}")
                q_docno.append(f"doc-{t}-{d}")
                q_level.append(int(rng.integers(1, 4)) if rng.random() < 0.5 else 0)
    qrels = Qrels.from_arrays(q_topic, q_intent, q_docno, q_level)
    r_topic, r_docno = [], []
    for t in range(topics):
        docs = [f"doc-{t}-{d}" for d in rng.permutation(judged)] + [f"new-{t}-{d}" for d in range(depth - judged)]
        order = rng.permutation(depth)
        r_topic += [f"{t + 1}"] * depth
        r_docno += [docs[j] for j in order]
    return qrels, RunTable.from_arrays(r_topic, r_docno, runid="deep")


@pytest.mark.parametrize("seed", [1, 2])
def test_ncu_kernels_at_cutoffs_equal_full_width_sums(seed, monkeypatch):
    qrels, run = _deep_case(seed)
    names = [f"{family}@{k}" for family in ("IA-AP", "IA-EBR", "IA-ERR", "IA-iRBU", "IA-nDCG", "IA-nERR", "IA-P+",
                                            "IA-Prec", "IA-Q", "IA-RBP", "IA-RR", "D-EBR", "D-ERR", "D-iRBU",
                                            "D-nDCG", "D-nERR", "D-P+", "D-Q", "D-RBP", "AP", "EBR", "ERR", "iRBU",
                                            "nDCG", "nERR", "P+", "Prec", "Q", "RBP", "RR")
             for k in (1, 5, 10, 20, 30, 64, 65, 100, 1000)]
    measures = divaleval.resolve_measures(names)
    evaluator = divaleval.make_evaluator(qrels, measures)
    fast = evaluator.score(run).matrix
    monkeypatch.setattr(ncu_kernels, "summed_columns", lambda width, count: width)
    full = divaleval.make_evaluator(qrels, measures).score(run).matrix
    assert np.count_nonzero(fast) > fast.size // 2  # the case scores something
    assert np.array_equal(fast.view(np.int64), full.view(np.int64))


@pytest.mark.parametrize("seed", [1, 2])
def test_cube_test_and_eu_at_cutoffs_equal_full_width_sums(seed, monkeypatch):
    """CT@k and EU@k sum the leading columns of the hits' grid only, by the same rule."""
    from divaleval.measures.novelty import ct, eu

    qrels, run = _deep_case(seed)
    names = [f"{family}@{k}" for family in ("CT", "EU") for k in (1, 5, 10, 20, 30, 64, 65, 100, 1000)] + ["EU"]
    measures = divaleval.resolve_measures(names)
    fast = divaleval.make_evaluator(qrels, measures).score(run).matrix
    for module in (ct, eu):
        monkeypatch.setattr(module, "summed_columns", lambda width, count: width)
    full = divaleval.make_evaluator(qrels, measures).score(run).matrix
    assert np.count_nonzero(fast) > fast.size // 2  # the case scores something
    assert np.array_equal(fast.view(np.int64), full.view(np.int64))


def test_ideal_values_shared_by_runs_equal_each_runs_own(monkeypatch):
    qrels, run = _deep_case(3)
    topic = run.topic.values()
    some = np.flatnonzero(np.isin(topic, ["2", "5"]))
    runs = [run.take(some), run, run.take(np.flatnonzero(topic != "1"))]
    names = [f"{family}{cut}" for family in ("nDCG", "nERR", "nEBR", "nRBP", "niRBU", "IA-nDCG", "IA-nERR",
                                             "D-nDCG", "D-nERR")
             for cut in ("", "@5", "@20", "@100")] + ["D#-nDCG@10", "D#-nERR@20"]
    measures = divaleval.resolve_measures(names)
    evaluator = divaleval.make_evaluator(qrels, measures)  # one qrels: the runs share its ideal values
    shared = [evaluator.score(r).matrix for r in runs]

    def own_ideal_lists(gains, kernel, cutoff, params):
        return kernel(ncu_lists.ideal_list(gains), cutoff, **params)

    monkeypatch.setattr(ncu_kernels, "ideal_value", own_ideal_lists)
    own = [divaleval.make_evaluator(qrels, measures).score(r).matrix for r in runs]
    assert [m.shape[0] for m in own] == [2, 6, 5]
    for a, b in zip(shared, own):
        assert np.count_nonzero(a) > a.size // 2
        assert np.array_equal(a.view(np.int64), b.view(np.int64))


def _intent_loop(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """The sum over intents as a C loop makes it: 0.0, then each intent's term in order."""
    total = np.zeros(values.shape[:-1])
    for i in range(values.shape[-1]):
        total = total + (values[..., i] if weights is None else weights[..., i] * values[..., i])
    return total


@pytest.mark.parametrize("seed", range(8))
def test_intent_sums_at_once_give_the_loop_s_bits(seed):
    rng = np.random.default_rng(seed)
    rows, intents = int(rng.integers(0, 60)), int(rng.integers(0, 25))
    # Terms of mixed signs and magnitudes (sums that depend on their order), some -0.0 and NaN.
    values = rng.standard_normal((rows, intents)) * 10.0 ** rng.integers(-9, 9, (rows, intents))
    values[rng.random(values.shape) < 0.2] = -0.0
    values[rng.random(values.shape) < 0.02] = np.nan
    weights = rng.random((rows, intents))
    for w in (None, weights):
        assert kernels.weighted_intent_sum(values, w).tobytes() == _intent_loop(values, w).tobytes()
    # A row of -0.0 terms sums to 0.0, as the loop (0.0 + -0.0) does.
    assert kernels.weighted_intent_sum(np.full((1, 3), -0.0)).tobytes() == np.zeros(1).tobytes()
    counts = rng.integers(0, 5, (rows, intents))  # integer values, as MAP-IA's counts
    assert kernels.weighted_intent_sum(counts).tobytes() == _intent_loop(counts, None).tobytes()
