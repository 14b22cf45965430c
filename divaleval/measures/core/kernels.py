"""Helpers that several kernels share: discounts, powers, sums over intents, safe ratios.

Floating-point operations happen in the order the reference tools use (C loops),
so that results agree with them to the last bit: powers by repeated
multiplication, sums in intent order, the log from the C library.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ...arrays import masked_row_sums  # noqa: F401 (the kernels' masked sums: numpy's bits, one pass)
from ...context import PAST_END, RunContext
from .cache import memoised

_log_discount = np.ones(1)
LOG_TABLE_RANKS = 1 << 20  # discounts of deeper ranks (read by no reference tool) come from numpy's log


def log_discount(length: int) -> np.ndarray:
    """d[i] = log(2)/log(i + 2) for rank i + 1, with d[0] = 1 (libm's log, like C); a growing table."""
    global _log_discount
    if length > LOG_TABLE_RANKS:
        return rank_discount(np.arange(1, length + 1))
    if len(_log_discount) < length:
        start = len(_log_discount)
        extra = [math.log(2.0) / math.log(i + 2.0) for i in range(start, min(max(length, 2 * start), LOG_TABLE_RANKS))]
        _log_discount = np.concatenate([_log_discount, np.array(extra)])
    return _log_discount[:length]


def clipped_ranks(position: np.ndarray) -> tuple[np.ndarray, int]:
    """(``position`` with padding clipped to the last rank, the last rank): what a table of per-rank
    values (a discount, powers) is indexed by."""
    last = int(position[position < PAST_END].max(initial=1))
    return np.minimum(position, last), last


def rank_discount(position: np.ndarray, clipped: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """1/log2(r + 1) at every rank position r (DCG's discount); any value at padding. ``clipped``: the
    :func:`clipped_ranks` of ``position``, where the caller keeps them."""
    clipped, last = clipped_ranks(position) if clipped is None else clipped
    if last <= LOG_TABLE_RANKS:
        return log_discount(last)[clipped - 1]
    discount = math.log(2.0) / np.log(clipped + 1.0)
    table = clipped <= LOG_TABLE_RANKS
    discount[table] = log_discount(LOG_TABLE_RANKS)[clipped[table] - 1]
    return discount


# numpy sums a row of floats pairwise: leaves of eight interleaved partial sums (columns j, j+8, j+16, ...
# in partial sum j), the leftmost leaf at least 64 columns long. Zeros after a row's last non-zero column
# then change no bit of its sum as long as the columns kept are whole strides of eight within that leaf.
PAIRWISE_STRIDE, PAIRWISE_FIRST_LEAF = 8, 64


def _kept_columns(width: int, count: int) -> int:
    kept = -(-count // PAIRWISE_STRIDE) * PAIRWISE_STRIDE
    return kept if kept < width and kept <= PAIRWISE_FIRST_LEAF else width


@functools.cache
def trailing_zeros_change_no_bit() -> bool:
    """Whether this numpy's row sums behave as described above (checked once, on random rows; if not,
    every sum covers every column)."""
    for width in (9, 20, 75, 144, 465):
        for count in (1, 5, 9, 20, 57):
            # Rows of irregular values of mixed signs and magnitudes, whose sums depend on their order.
            values = np.sin(np.arange(4 * width).reshape(4, width) * 0.7 + count) * 10.0 ** np.arange(-6, 6, 3)[:, None]
            values[:, count:] = 0.0
            if not np.array_equal(values[:, :_kept_columns(width, count)].sum(axis=1), values.sum(axis=1)):
                return False
    return True


def summed_columns(width: int, count: int | None) -> int:
    """How many leading columns of a (rows, ``width``) float array whose rows are 0 past column ``count``
    (None: no such bound) a row sum must cover to give the bits of the sum over every column.

    A kernel at cutoff k sums terms of entries ranked <= k: the first k columns at most, of hundreds.
    """
    if count is None or not trailing_zeros_change_no_bit():
        return width
    return _kept_columns(width, max(count, 0))


def repeated_powers(base: float, length: int, first: float | np.ndarray = 1.0) -> np.ndarray:
    """first, first*base, (first*base)*base, ...: powers by repeated multiplication.

    ``first`` may be a column of per-topic starting values; the result then has
    one row per topic.
    """
    first = np.asarray(first, dtype=np.float64)
    table = np.empty(first.shape + (length,))
    table[..., 0] = first
    table[..., 1:] = base
    return np.cumprod(table, axis=-1)


# Arrays of at most this many elements are summed over their intents at once (a few arrays of their size);
# larger ones (every row of large qrels) an intent at a time.
WHOLE_INTENT_SUM_ELEMENTS = 1 << 20


def weighted_intent_sum(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """sum_i w_i v_i over the last axis, added in intent order (as a C loop over intents does).

    ``weights`` broadcasts against ``values``; None sums the values unweighted.
    """
    if values.size <= WHOLE_INTENT_SUM_ELEMENTS and (weights is None or np.shape(weights) == values.shape):
        # 0.0, then each intent's term in order: a running sum (np.cumsum adds one element at a time) gives
        # the loop's additions in the loop's order, in three numpy calls instead of one per intent.
        running = np.zeros(values.shape[:-1] + (values.shape[-1] + 1,))
        running[..., 1:] = values if weights is None else weights * values
        return np.cumsum(running, axis=-1)[..., -1]
    total = np.zeros(values.shape[:-1])
    for i in range(values.shape[-1]):
        total = total + (values[..., i] if weights is None else weights[..., i] * values[..., i])
    return total


def divide_or_zero(numerator: np.ndarray, denominator: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """numerator / denominator where ``where`` holds (default: a non-zero denominator), 0 elsewhere."""
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=(np.asarray(denominator) != 0) if where is None else where)
    return out


def first_reciprocal_rank(position: np.ndarray, where: np.ndarray) -> np.ndarray:
    """1 / the first rank position of each row at which ``where`` holds; 0 if it never does."""
    first = np.where(where, position, PAST_END).min(axis=1, initial=PAST_END)
    return divide_or_zero(1.0, first, where=first < PAST_END)


def covered_intent_share(ctx: RunContext, cutoff: int) -> np.ndarray:
    """|{i: some document ranked <= cutoff is relevant to i}| / N, N the intents with a relevant document."""
    covered = (ctx.hits.coverage_at(cutoff) > 0).sum(axis=1)
    return divide_or_zero(covered, ctx.n_intents)
