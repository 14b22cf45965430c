"""Helpers that several kernels share: discounts, powers, sums over intents, safe ratios.

Floating-point operations happen in the order the reference tools use (C loops),
so that results agree with them to the last bit: powers by repeated
multiplication, sums in intent order, the log from the C library.
"""
from __future__ import annotations

import math

import numpy as np

from ...context import PAST_END, RunContext

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


def rank_discount(position: np.ndarray) -> np.ndarray:
    """1/log2(r + 1) at every rank position r (DCG's discount); any value at padding."""
    last = int(position[position < PAST_END].max(initial=1))
    clipped = np.minimum(position, last)
    if last <= LOG_TABLE_RANKS:
        return log_discount(last)[clipped - 1]
    discount = math.log(2.0) / np.log(clipped + 1.0)
    table = clipped <= LOG_TABLE_RANKS
    discount[table] = log_discount(LOG_TABLE_RANKS)[clipped[table] - 1]
    return discount


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


def weighted_intent_sum(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """sum_i w_i v_i over the last axis, added in intent order (as a C loop over intents does).

    ``weights`` broadcasts against ``values``; None sums the values unweighted.
    """
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
