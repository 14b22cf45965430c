"""Randomised trials in blocks: the unit a back end (this process, or later a cluster) runs.

B trials are cut into blocks of :data:`BLOCK_TRIALS` (the last one shorter).
Block i draws from its own stream, ``SeedSequence(seed).spawn(...)[i]``, so a
block's result depends on its seed and its size only: blocks can run in any
order, anywhere, and their counts, summed by :func:`combine_counts`, give the
same p-values to the last bit. A procedure is a pair:

* a block function ``fn(block) -> counts`` (``functools.partial`` of a
  module-level function over the data, so that it pickles), which counts, per
  comparison, the trials whose statistic is at least as extreme as the observed;
* :func:`run_blocks`, which maps it over the blocks (``map_blocks`` is the back
  end: the built-in ``map`` here) and combines the counts.

Inside a block, trials are drawn in chunks small enough for memory; every random
draw is a stream of doubles, so the chunking never changes what is drawn.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Union

import numpy as np

from ..errors import UsageError

BLOCK_TRIALS = 500              # trials per block: part of what a seed means, never changed by the data
CHUNK_ELEMENTS = 1 << 22        # floats a chunk of trials may hold at once (32 MiB)

SeedLike = Union[int, np.random.SeedSequence, np.random.Generator, None]
Progress = Callable[[int], None]  # told how many more trials are done
# More trials than anyone could wait for (hours even on tiny data): refused before the first block, where a
# list of 10^17 blocks would otherwise be built for `-B 99999999999999999999`.
MAX_TRIALS = 10**9


@dataclass(frozen=True)
class TrialBlock:
    """Trials ``start`` .. ``start + trials - 1`` of a randomised procedure, and the stream they draw from."""

    index: int
    start: int
    trials: int
    seed: np.random.SeedSequence

    def generator(self) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(self.seed))


def root_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """The SeedSequence every block stream derives from (an int seed is reproducible; None draws fresh entropy)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63, size=4).tolist())
    if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"a seed is a non-negative integer, not {seed!r}")
    return np.random.SeedSequence(None if seed is None else int(seed))


def trial_blocks(trials: int, seed: SeedLike) -> list[TrialBlock]:
    """The blocks of ``trials`` trials; block i's stream is child i of the seed's SeedSequence."""
    if trials < 1:
        raise ValueError("the number of trials must be at least 1")
    if trials > MAX_TRIALS:
        raise UsageError(f"{trials} trials: at most {MAX_TRIALS} (about a second per 10^6 on small data)")
    root = root_sequence(seed)
    count = -(-trials // BLOCK_TRIALS)
    # What root.spawn(count) gives a fresh SeedSequence, built without changing ``root``'s spawn counter.
    children = [np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i), pool_size=root.pool_size)
                for i in range(count)]
    return [TrialBlock(i, i * BLOCK_TRIALS, min(BLOCK_TRIALS, trials - i * BLOCK_TRIALS), child)
            for i, child in enumerate(children)]


def chunk_sizes(trials: int, elements_per_trial: int) -> Iterable[int]:
    """Trials per chunk, so that a chunk holds at most :data:`CHUNK_ELEMENTS` floats."""
    step = max(1, CHUNK_ELEMENTS // max(1, elements_per_trial))
    for start in range(0, trials, step):
        yield min(step, trials - start)


def combine_counts(counts: Iterable[np.ndarray]) -> np.ndarray:
    """The sum of the blocks' counts (integers: the order of the blocks does not matter)."""
    total = None
    for part in counts:
        total = np.array(part, dtype=np.int64) if total is None else total + part
    return total


def run_blocks(block_fn: Callable[[TrialBlock], np.ndarray], trials: int, seed: SeedLike,
               progress: Progress | None = None, map_blocks: Callable = map, combine: Callable = combine_counts):
    """Counts over all trials: ``block_fn`` mapped over the blocks by ``map_blocks``, summed.

    The p-values follow from the counts (:func:`monte_carlo_p`). ``combine`` merges
    the blocks' results in block order (default: the sum of counts; a block
    function that returns more, e.g. the tail of its statistics, brings its own).
    """
    blocks = trial_blocks(trials, seed)

    def reported(results):
        for block, counts in zip(blocks, results):
            if progress is not None:
                progress(block.trials)
            yield counts

    return combine(reported(map_blocks(block_fn, blocks)))


def tolerance(values: np.ndarray) -> float:
    """How close two sums of these values must be to count as equal (their rounding, not a real difference)."""
    finite = np.abs(values[np.isfinite(values)])
    scale = float(finite.max()) if finite.size else 0.0
    return 1e-10 * (scale if scale > 0 else 1.0)


def monte_carlo_p(counts: np.ndarray, trials: int) -> np.ndarray:
    """The p-value of a Monte-Carlo test, (b + 1) / (B + 1) for b of B trials at least as extreme.

    The observed data are one of the equally likely arrangements under the null
    hypothesis, so counting them among the trials gives a p-value that is never 0
    and whose test is exact at every level (Phipson & Smyth 2010, "Permutation
    p-values should never be zero"; Davison & Hinkley 1997, eq. 4.11).
    """
    return (np.asarray(counts, dtype=np.float64) + 1.0) / (trials + 1.0)


def monte_carlo_se(p: np.ndarray, trials: int) -> np.ndarray:
    """The Monte-Carlo standard error of a randomised p-value, sqrt(p (1 - p) / B)."""
    p = np.asarray(p, dtype=np.float64)
    return np.sqrt(p * (1.0 - p) / trials)
