"""The greedy ideal ranking of the novelty measures (divaleval/native/greedy.py): the compiled kernel gives its
numpy twin's gains to the bit (binary and weighted, exact ties, documents relevant to many intents, a depth cut),
both give the gains worked out by hand, and whole evaluations print the same bytes with the kernels on and off."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from divaleval import native
from divaleval.native import greedy

pytestmark = pytest.mark.skipif(native.kernels() is None, reason="compiled kernels not built or turned off")

NDEVAL = Path(__file__).parent / "data" / "ndeval"


def random_topics(rng: np.random.Generator, topics: int, intents: int, weighted: bool):
    """(doc_start, pair_start, pair_intent, pair_factor) of ``topics`` random topics (some empty), each document
    relevant to 1 .. ``intents`` intents, factors (where ``weighted``) from a few values that tie often."""
    counts = rng.integers(0, 30, topics) * (rng.random(topics) < 0.8)
    doc_start = np.r_[0, np.cumsum(counts)].astype(np.int64)
    relevant = rng.random((int(doc_start[-1]), intents)) < rng.uniform(0.1, 1.0)
    relevant[np.arange(len(relevant)), rng.integers(0, intents, len(relevant))] = True
    pair_start = np.r_[0, np.cumsum(relevant.sum(axis=1))].astype(np.int64)
    pair_intent = np.ascontiguousarray(np.nonzero(relevant)[1], dtype=np.int64)
    factor = rng.choice([0.0, 0.25, 1.0 / 3.0, 0.7, 1.0, 2.5], len(pair_intent)) if weighted else None
    return doc_start, pair_start, pair_intent, factor


def both(doc_start, pair_start, pair_intent, pair_factor, intents, q, width):
    """(kernel's, twin's) gains; the kernel must not decline."""
    factor = np.zeros(0) if pair_factor is None else pair_factor
    out = np.empty((len(doc_start) - 1, width))
    assert native.kernels().greedy_ranking_gains(doc_start, pair_start, pair_intent, factor, intents, q, width,
                                                 out) is True
    twin = greedy._numpy_greedy_ranking_gains(doc_start, pair_start, pair_intent, pair_factor, intents, q, width)
    return out, twin


@pytest.mark.parametrize("weighted", [False, True], ids=["binary", "weighted"])
@pytest.mark.parametrize("seed", range(12))
def test_kernel_gives_the_twin_s_bits(seed, weighted):
    rng = np.random.default_rng(seed)
    intents = int(rng.choice([1, 2, 5, 20, 60]))  # 60: documents relevant to dozens of intents
    doc_start, pair_start, pair_intent, pair_factor = random_topics(rng, int(rng.integers(1, 40)), intents, weighted)
    most = max(int(np.diff(doc_start).max()), 1)
    for q in (0.5, 0.0, 1.0, 0.3, 1.0 - 2.0 ** -40):
        for width in {most, 1, max(most // 3, 1)}:  # the whole ranking, and cut at a depth
            compiled, twin = both(doc_start, pair_start, pair_intent, pair_factor, intents, q, width)
            assert compiled.tobytes() == twin.tobytes()


def test_the_probe_finds_the_twin_s_bits():
    assert greedy._greedy_agrees(native.kernels().greedy_ranking_gains)


def test_the_wrapper_takes_the_kernel():
    doc_start, pair_start, pair_intent, _ = random_topics(np.random.default_rng(1), 6, 4, False)
    expected = greedy._numpy_greedy_ranking_gains(doc_start, pair_start, pair_intent, None, 4, 0.5, 10)
    assert native.kernel("greedy_ranking_gains") is not None  # built, and its probe found the twin's bits
    calls = []
    original = greedy._numpy_greedy_ranking_gains
    greedy._numpy_greedy_ranking_gains = lambda *args: calls.append(args) or original(*args)
    try:
        assert greedy.greedy_ranking_gains(doc_start, pair_start, pair_intent, None, 4, 0.5, 10).tobytes() == \
            expected.tobytes()
    finally:
        greedy._numpy_greedy_ranking_gains = original
    assert not calls


# Four documents, in tie-breaking order, over intents 0, 1, 2: d0 {0}, d1 {0, 1}, d2 {1, 2}, d3 {2}; then a
# topic without documents.
HAND = (np.array([0, 4, 4], dtype=np.int64), np.array([0, 1, 3, 5, 6], dtype=np.int64),
        np.array([0, 0, 1, 1, 2, 2], dtype=np.int64))


@pytest.mark.parametrize("on", [True, False], ids=["compiled", "numpy"])
def test_binary_gains_by_hand(on):
    # q = 0.5. Rank 1: d0 1, d1 2, d2 2, d3 1: d1 (the first of the tie), 2; intents 0, 1 now 0.5.
    # Rank 2: d0 0.5, d2 0.5 + 1, d3 1: d2, 1.5; intents 1, 2 now 0.25, 0.5.
    # Rank 3: d0 0.5, d3 0.5: d0 (the first), 0.5. Rank 4: d3 0.5. Cut at 3 ranks: the first three.
    run = greedy.greedy_ranking_gains if on else greedy._numpy_greedy_ranking_gains
    assert run(*HAND, None, 3, 0.5, 4).tolist() == [[2.0, 1.5, 0.5, 0.5], [0.0] * 4]
    assert run(*HAND, None, 3, 0.5, 3).tolist() == [[2.0, 1.5, 0.5], [0.0] * 3]
    # q = 0 (alpha = 1): rank 1 d1, 2; then d0 0, d2 0 + 1, d3 1: d2, 1; then nothing > 0 is left.
    assert run(*HAND, None, 3, 0.0, 4).tolist() == [[2.0, 1.0, 0.0, 0.0], [0.0] * 4]


@pytest.mark.parametrize("on", [True, False], ids=["compiled", "numpy"])
def test_weighted_gains_by_hand(on):
    # Factors: d0 {0: 3}, d1 {0: 1, 1: 1}, d2 {1: 0, 2: 0}, d3 {2: 0.5}; q = 0.5.
    # Rank 1: d0 3, d1 2, d2 0, d3 0.5: d0, 3; intent 0 now 0.5.
    # Rank 2: d1 0.5 + 1, d2 0, d3 0.5: d1, 1.5; intents 0, 1 now 0.25, 0.5.
    # Rank 3: d2 0, d3 0.5: d3, 0.5. Rank 4: d2 0, not > 0: the ranking stops.
    factor = np.array([3.0, 1.0, 1.0, 0.0, 0.0, 0.5])
    run = greedy.greedy_ranking_gains if on else greedy._numpy_greedy_ranking_gains
    assert run(*HAND, factor, 3, 0.5, 4).tolist() == [[3.0, 1.5, 0.5, 0.0], [0.0] * 4]


def test_what_the_kernel_declines():
    compiled, out = native.kernels().greedy_ranking_gains, np.empty((2, 4))
    for factor in (-1.0, np.nan, np.inf):  # a factor it could not order as numpy's argmax does
        factors = np.array([3.0, 1.0, 1.0, factor, 0.0, 0.5])
        assert compiled(*HAND, factors, 3, 0.5, 4, out) is None
    assert compiled(*HAND, np.zeros(0), 2, 0.5, 4, out) is None  # intent 2 out of range
    assert compiled(*HAND, np.zeros(0), 3, 1.5, 4, out) is None  # q outside [0, 1]
    assert compiled(np.array([0, 5, 4], dtype=np.int64), *HAND[1:], np.zeros(0), 3, 0.5, 4, out) is None
    with pytest.raises(ValueError):
        compiled(*HAND, np.zeros(0), 3, 0.5, 5, out)  # out of the wrong size
    # Declined, the wrapper gives the twin's gains.
    factors = np.array([3.0, 1.0, 1.0, -1.0, 0.0, 0.5])
    assert greedy.greedy_ranking_gains(*HAND, factors, 3, 0.5, 4).tobytes() == \
        greedy._numpy_greedy_ranking_gains(*HAND, factors, 3, 0.5, 4).tobytes()


def printed(native_on: bool, *args: str) -> bytes:
    env = dict(os.environ, DIVALEVAL_NATIVE="1" if native_on else "0", DIVALEVAL_CACHE="0")
    return subprocess.run([sys.executable, "-m", "divaleval", *args], env=env, capture_output=True,
                          check=True).stdout


@pytest.mark.parametrize("args", [
    ("-m", "all", str(NDEVAL / "examples" / "qrels.txt"), str(NDEVAL / "examples" / "runA.txt"),
     str(NDEVAL / "examples" / "runB.txt")),
    (str(NDEVAL / "edge" / "q_greedy.txt"), str(NDEVAL / "edge" / "r_greedy.txt")),
], ids=["all-measures", "greedy-edge"])
def test_evaluations_print_the_same_bytes_with_the_kernels_on_and_off(args):
    assert printed(True, *args) == printed(False, *args)
