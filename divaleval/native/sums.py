"""Row reductions the scoring kernels share, numpy's to the bit: masked row sums and P+'s parts (at one cutoff or
several), the blended ratio, ERR's stopping probabilities, every NCU kernel's sums of a gain list at once, GAP's
terms, infAP's and bpref's sums.

Each function here is its numpy twin, written out, and takes the compiled kernel
of the same name (divaleval/native/sums.c) instead where that kernel is built
and the rows lie as it reads them (2-d, C order, of its types). A kernel's bits
depend on how it adds and rounds: each is probed once against its twin (rows of
irregular values, of every length numpy's pairwise sum treats apart), and is
never taken by a process whose numpy or compiler computes otherwise.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compiled import kernel, probed


def _plain_rows(array: np.ndarray, dtype: type) -> bool:
    """Whether ``array`` is 2-d, of ``dtype`` and in C order: rows a compiled kernel reads as they lie."""
    return array.ndim == 2 and array.dtype == dtype and array.flags.c_contiguous


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


class _ProbeNumbers:
    """The probes' irregular inputs, the same in every process: SplitMix64 over a counter. (numpy.random would do,
    but its import, about 25 ms, costs a call more than the probes themselves.)"""

    def __init__(self) -> None:
        self._drawn = 0

    def _words(self, count: int) -> np.ndarray:
        words = np.arange(self._drawn + 1, self._drawn + count + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        self._drawn += count
        words ^= words >> np.uint64(30)
        words *= np.uint64(0xBF58476D1CE4E5B9)
        words ^= words >> np.uint64(27)
        words *= np.uint64(0x94D049BB133111EB)
        words ^= words >> np.uint64(31)
        return words

    def random(self, shape: int | tuple) -> np.ndarray:
        """Uniform in [0, 1)."""
        count = int(np.prod(shape))
        return ((self._words(count) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53).reshape(shape)

    def integers(self, low: int, high: int, shape: int | tuple) -> np.ndarray:
        """Integers in [low, high)."""
        count = int(np.prod(shape))
        return (low + (self._words(count) % np.uint64(high - low)).astype(np.int64)).reshape(shape)

    def choice(self, values: list, shape: int | tuple) -> np.ndarray:
        return np.asarray(values)[self.integers(0, len(values), shape)]

    def permutation(self, values: np.ndarray) -> np.ndarray:
        return values[np.argsort(self._words(len(values)))]

    def spread(self, shape: tuple) -> np.ndarray:
        """Values of both signs and magnitudes from 1e-8 to 1e7, so that the order of a sum's additions shows in
        its bits."""
        return (2.0 * self.random(shape) - 1.0) * 10.0 ** self.integers(-8, 8, shape)


# -- masked row sums ----------------------------------------------------------------------------------

def masked_row_sums(values: np.ndarray, mask: np.ndarray, columns: int) -> np.ndarray:
    """``np.where(mask[:, :columns], values[:, :columns], 0.0).sum(axis=1)``, to the same bits.

    By the compiled kernel where it is taken: one pass, no array between. (A row
    holding NaNs of both signs may give a NaN of the other sign: every NaN prints
    as ``-nan``, and no kernel's terms are NaN where they are summed.)
    """
    compiled = kernel("masked_row_sums")
    if compiled is not None and _plain_rows(values, np.float64) and _plain_rows(mask, np.bool_) \
            and len(values) == len(mask):
        sums = np.empty(len(values))
        compiled(values, values.shape[1], mask, mask.shape[1], columns, sums)
        return sums
    return _numpy_masked_row_sums(values, mask, columns)


def _numpy_masked_row_sums(values: np.ndarray, mask: np.ndarray, columns: int) -> np.ndarray:
    return np.where(mask[:, :columns], values[:, :columns], 0.0).sum(axis=1)


# Widths of every class numpy's pairwise sum treats apart: below 8, up to a block of 128, longer.
PROBED_WIDTHS = (*range(0, 20), 63, 64, 65, 127, 128, 129, 200, 257, 1000)
PROBED_ROWS = 16


@probed("masked_row_sums")
def _sums_agree(compiled) -> bool:
    rng = _ProbeNumbers()
    for width in PROBED_WIDTHS:
        # Rows enough that a sum in another order differs in some row's bits at every length (three rows all came
        # out alike at some lengths: tests/test_native_probes.py adds left to right at each length, and the probe
        # must fail).
        values = rng.spread((PROBED_ROWS, width))
        mask = rng.random((PROBED_ROWS, width)) < 0.7
        for columns in {0, width // 2, width}:
            sums = np.empty(PROBED_ROWS)
            compiled(values, width, mask, width, columns, sums)
            if not _same_bits(sums, _numpy_masked_row_sums(values, mask, columns)):
                return False
    return True


# -- row sums at several cutoffs ------------------------------------------------------------------------

def cut_row_sums(values: np.ndarray, within: np.ndarray, position: np.ndarray, bounds: np.ndarray,
                 columns: np.ndarray) -> np.ndarray:
    """(K, rows): for each cutoff j, :func:`masked_row_sums` of ``values`` under the mask ``within & (position <=
    bounds[j])`` (``within`` alone where ``bounds[j]`` is -1) over its first ``columns[j]`` columns: a gain
    list's sums at K cutoffs, in one pass over the rows by the compiled kernel where it is taken."""
    bounds, columns = np.asarray(bounds, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    compiled = kernel("cut_row_sums")
    if compiled is not None and _plain_rows(values, np.float64) and _plain_rows(within, np.bool_) \
            and _plain_rows(position, np.int64) and values.shape == within.shape == position.shape:
        sums = np.empty((len(bounds), len(values)))
        compiled(values, within, position, *values.shape, bounds, columns, sums)
        return sums
    return _numpy_cut_row_sums(values, within, position, bounds, columns)


def _cut_mask(within: np.ndarray, position: np.ndarray, bound: int) -> np.ndarray:
    return within if bound < 0 else within & (position <= bound)


def _numpy_cut_row_sums(values: np.ndarray, within: np.ndarray, position: np.ndarray, bounds: np.ndarray,
                        columns: np.ndarray) -> np.ndarray:
    sums = np.empty((len(bounds), len(values)))
    for j, (bound, count) in enumerate(zip(bounds.tolist(), columns.tolist())):
        sums[j] = _numpy_masked_row_sums(values, _cut_mask(within, position, bound), count)
    return sums


def _cut_probe_rows(rng: _ProbeNumbers, width: int, rows: int = PROBED_ROWS
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(within, position, bounds, columns) of ``rows`` rows and three cutoffs: a bound inside the rows, one past
    them, none."""
    within = rng.random((rows, width)) < 0.7
    position = np.cumsum(rng.integers(1, 3, (rows, width)), axis=1)
    return (within, position, np.array([width // 3, 2 * width + 1, -1], dtype=np.int64),
            np.array([max(width // 2, 1) if width else 0, width, width], dtype=np.int64))


@probed("cut_row_sums")
def _cut_sums_agree(compiled) -> bool:
    rng = _ProbeNumbers()
    for width in PROBED_WIDTHS:
        values = rng.spread((PROBED_ROWS, width))
        within, position, bounds, columns = _cut_probe_rows(rng, width)
        sums = np.empty((3, PROBED_ROWS))
        compiled(values, within, position, PROBED_ROWS, width, bounds, columns, sums)
        if not _same_bits(sums, _numpy_cut_row_sums(values, within, position, bounds, columns)):
            return False
    return True


# -- the blended ratio --------------------------------------------------------------------------------

def blended_ratio(gains: np.ndarray, position: np.ndarray, ideal: np.ndarray, beta: float) -> np.ndarray:
    """BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(min(r, L))) at every entry of (rows, width) ``gains`` at
    ranks ``position``: C and cg the running count and sum of a row's gains (> 0), cg* the running sum of
    its (rows, L) ``ideal`` gains (0 where L is 0); 0/0 gives NaN, as numpy does, unwarned."""
    compiled = kernel("blended_ratio")
    if compiled is not None and _plain_rows(gains, np.float64) and _plain_rows(position, np.int64) \
            and _plain_rows(ideal, np.float64) and len(ideal) == len(gains):
        ratio = np.empty(gains.shape)  # the same operations, row by row in one pass
        if compiled(gains, position, ideal, *gains.shape, ideal.shape[1], float(beta), ratio):
            return ratio
    return _numpy_blended_ratio(gains, position, ideal, beta)


def _numpy_blended_ratio(gains: np.ndarray, position: np.ndarray, ideal: np.ndarray, beta: float) -> np.ndarray:
    count = np.cumsum(gains > 0, axis=1)
    cumulative = np.cumsum(gains, axis=1)
    ideal_cumulative = np.cumsum(ideal, axis=1)
    width = max(ideal_cumulative.shape[1], 1)
    if ideal_cumulative.shape[1] == 0:
        ideal_cumulative = np.zeros((len(gains), 1))
    rank = np.minimum(position, width)
    ideal_at = np.take_along_axis(ideal_cumulative, rank - 1, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (count + beta * cumulative) / (position + beta * ideal_at)


@probed("blended_ratio")
def _ratio_agrees(compiled) -> bool:
    # (A build that fused multiplies and adds would round once where numpy rounds twice.)
    rng = _ProbeNumbers()
    gains = np.where(rng.random((40, 30)) < 0.7, rng.choice([1.0, 3.0, 7.0, 0.3], (40, 30)), 0.0)
    position = np.cumsum(rng.integers(1, 4, (40, 30)), axis=1)
    ideal = -np.sort(-rng.choice([0.0, 1.0, 3.0, 7.0, 0.3], (40, 25)), axis=1)
    for beta in (0.7, 3.1):
        ratio = np.empty(gains.shape)
        if not compiled(gains, position, ideal, 40, 30, 25, beta, ratio) or \
                not _same_bits(ratio, _numpy_blended_ratio(gains, position, ideal, beta)):
            return False
    return True


# -- P+'s parts ---------------------------------------------------------------------------------------

def p_plus_parts(gains: np.ndarray, within: np.ndarray, ratio: np.ndarray, columns: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Over the first ``columns`` columns of (rows, width) arrays, each row's preferred entry (the first
    holding its largest gain among its entries ``within``), then (the sum of ``ratio`` over the entries
    ``within`` up to the preferred one, as :func:`masked_row_sums` sums; their count; whether the row has
    an entry ``within``)."""
    compiled = kernel("p_plus_parts")
    if compiled is not None and _plain_rows(gains, np.float64) and _plain_rows(within, np.bool_) \
            and _plain_rows(ratio, np.float64):
        rows = len(gains)  # the same parts in one pass
        total, count, found = np.empty(rows), np.empty(rows, dtype=np.int64), np.empty(rows, dtype=bool)
        compiled(gains, within, ratio, gains.shape[1], columns, total, count, found)
        return total, count, found
    return _numpy_p_plus_parts(gains, within, ratio, columns)


def _numpy_p_plus_parts(gains: np.ndarray, within: np.ndarray, ratio: np.ndarray, columns: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    within, gains = within[:, :columns], gains[:, :columns]
    top = np.where(within, gains, -np.inf).max(axis=1, initial=-np.inf)
    at_top = within & (gains == top[:, None])
    preferred = np.argmax(at_top, axis=1)  # the preferred entry (0 where no entry is within)
    upto = within & (np.arange(columns)[None, :] <= preferred[:, None])
    return masked_row_sums(ratio, upto, columns), upto.sum(axis=1), at_top.any(axis=1)


@probed("p_plus_parts")
def _parts_agree(compiled) -> bool:
    rng = _ProbeNumbers()
    for width in PROBED_WIDTHS[1:]:  # (no list is empty: numpy has no largest gain of none)
        # The largest gain anywhere, last (a sum over the whole row), or repeated among a few levels.
        rising = rng.random((3, width)) + np.arange(width) * np.array([[0.0], [1.0], [0.0]])
        levels = rng.choice([1.0, 3.0, 7.0, 0.3], (3, width))
        gains = np.where(rng.random((3, width)) < 0.7, np.where([[True], [True], [False]], rising, levels), 0.0)
        within = (gains > 0) & (rng.random((3, width)) < 0.9)
        ratio = rng.spread((3, width))
        for columns in {1, max(width // 2, 1), width}:
            parts = np.empty(3), np.empty(3, dtype=np.int64), np.empty(3, dtype=bool)
            compiled(gains, within, ratio, width, columns, *parts)
            expected = _numpy_p_plus_parts(gains, within, ratio, columns)
            if not (_same_bits(parts[0], expected[0]) and np.array_equal(parts[1], expected[1])
                    and np.array_equal(parts[2], expected[2])):
                return False
    return True


def cut_p_plus_parts(gains: np.ndarray, within: np.ndarray, position: np.ndarray, ratio: np.ndarray,
                     bounds: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`p_plus_parts` at K cutoffs, each part (K, rows): for cutoff j, over the first ``columns[j]``
    columns under ``within & (position <= bounds[j])`` (``within`` alone where ``bounds[j]`` is -1), in one
    pass over the rows by the compiled kernel where it is taken."""
    bounds, columns = np.asarray(bounds, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    compiled = kernel("cut_p_plus_parts")
    if compiled is not None and _plain_rows(gains, np.float64) and _plain_rows(within, np.bool_) \
            and _plain_rows(position, np.int64) and _plain_rows(ratio, np.float64) \
            and gains.shape == within.shape == position.shape == ratio.shape:
        shape = (len(bounds), len(gains))
        total, count, found = np.empty(shape), np.empty(shape, dtype=np.int64), np.empty(shape, dtype=bool)
        compiled(gains, within, position, ratio, *gains.shape, bounds, columns, total, count, found)
        return total, count, found
    return _numpy_cut_p_plus_parts(gains, within, position, ratio, bounds, columns)


def _numpy_cut_p_plus_parts(gains: np.ndarray, within: np.ndarray, position: np.ndarray, ratio: np.ndarray,
                            bounds: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    shape = (len(bounds), len(gains))
    total, count, found = np.empty(shape), np.empty(shape, dtype=np.int64), np.empty(shape, dtype=bool)
    for j, (bound, width) in enumerate(zip(bounds.tolist(), columns.tolist())):
        total[j], count[j], found[j] = _numpy_p_plus_parts(gains, _cut_mask(within, position, bound), ratio, width)
    return total, count, found


@probed("cut_p_plus_parts")
def _cut_parts_agree(compiled) -> bool:
    rng = _ProbeNumbers()
    for width in PROBED_WIDTHS[1:]:  # (no list is empty: numpy has no largest gain of none)
        rows = PROBED_ROWS
        gains = np.where(rng.random((rows, width)) < 0.7, rng.choice([1.0, 3.0, 7.0, 0.3], (rows, width)), 0.0)
        ratio = rng.spread((rows, width))
        within, position, bounds, columns = _cut_probe_rows(rng, width)
        parts = np.empty((3, rows)), np.empty((3, rows), dtype=np.int64), np.empty((3, rows), dtype=bool)
        compiled(gains, within, position, ratio, rows, width, bounds, columns, *parts)
        expected = _numpy_cut_p_plus_parts(gains, within, position, ratio, bounds, columns)
        if not (_same_bits(parts[0], expected[0]) and np.array_equal(parts[1], expected[1])
                and np.array_equal(parts[2], expected[2])):
            return False
    return True


# -- ERR's stopping probabilities -------------------------------------------------------------------------

def err_probability(gains: np.ndarray, top_gain: np.ndarray) -> np.ndarray:
    """P_ERR at every entry of (rows, width) ``gains``: s = g / (hg + 1) with hg the row's ``top_gain``, times
    the chance the user got that far, the product of (1 - s) over the entries before (np.cumprod's order)."""
    compiled = kernel("err_probability")
    if compiled is not None and _plain_rows(gains, np.float64) and top_gain.dtype == np.float64 \
            and top_gain.shape == gains.shape[:1]:
        probability = np.empty(gains.shape)  # the same operations, row by row in one pass
        compiled(gains, np.ascontiguousarray(top_gain), *gains.shape, probability)
        return probability
    return _numpy_err_probability(gains, top_gain)


def _numpy_err_probability(gains: np.ndarray, top_gain: np.ndarray) -> np.ndarray:
    stop = gains / (top_gain + 1.0)[:, None]
    survive = np.cumprod(1.0 - stop, axis=1)
    before = np.concatenate([np.ones((len(stop), 1)), survive[:, :-1]], axis=1)
    return stop * before


@probed("err_probability")
def _probability_agrees(compiled) -> bool:
    rng = _ProbeNumbers()
    for width in PROBED_WIDTHS:
        gains = np.where(rng.random((4, width)) < 0.7, rng.choice([1.0, 3.0, 7.0, 0.3, 1e-9], (4, width)), 0.0)
        top_gain = np.array([0.0, 1.0, 7.0, 2.0 ** 0.5])
        probability = np.empty(gains.shape)
        compiled(gains, top_gain, 4, width, probability)
        if not _same_bits(probability, _numpy_err_probability(gains, top_gain)):
            return False
    return True


# -- every NCU kernel's sums of a gain list at once -------------------------------------------------------

# The terms :func:`gain_list_sums` sums, in the order of its sums' first axis: C(r)/r (AP), g(r) discount(r) (DCG),
# BR(r) (Q), P_ERR(r)/r (ERR), P_ERR(r) BR(r) (EBR), g(r) p^(r-1) (RBP), P_ERR(r) p^r (iRBU), 1 (entries: Prec).
TERM_KINDS = ("precision", "discounted", "ratio", "err", "ebr", "rbp", "irbu", "one")


class GainListSums(NamedTuple):
    """What :func:`gain_list_sums` gives: each term kind's sums at every cutoff (kinds, cutoffs, rows); each row's
    first rank with a gain; P+'s parts at every cutoff (each (cutoffs, rows))."""

    sums: np.ndarray
    first: np.ndarray
    p_plus: tuple[np.ndarray, np.ndarray, np.ndarray]


def gain_list_sums(gains: np.ndarray, position: np.ndarray, ideal: np.ndarray, top_gain: np.ndarray,
                   deepest: int, discount: np.ndarray, rbp_powers: np.ndarray, irbu_powers: np.ndarray,
                   beta: float, bounds: np.ndarray, columns: np.ndarray) -> GainListSums:
    """A gain list's sums at K cutoffs of the terms of every NCU kernel (:data:`TERM_KINDS`), in one pass over
    its rows by the compiled kernel where it is taken.

    ``gains`` and ``position`` (rows, width), ``ideal`` (rows, L), ``top_gain`` (rows,); the entries summed
    are those ``within``, ``(position <= deepest) & (gains > 0)``, under each cutoff's bound and columns as
    :func:`cut_row_sums` takes them. C(r), cg(r), BR(r) and P_ERR(r) are :func:`blended_ratio`'s and
    :func:`err_probability`'s; ``discount``, ``rbp_powers`` and ``irbu_powers`` are tables indexed by rank
    (clipped to their length, as ``np.take`` clips). ``first``: each row's first rank with a gain (``deepest +
    1`` where none); ``p_plus``: :func:`cut_p_plus_parts` over BR.
    """
    bounds, columns = np.asarray(bounds, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    compiled = kernel("gain_list_sums")
    tables = [np.ascontiguousarray(table, dtype=np.float64) for table in (discount, rbp_powers, irbu_powers)]
    if compiled is not None and _plain_rows(gains, np.float64) and _plain_rows(position, np.int64) \
            and _plain_rows(ideal, np.float64) and gains.shape == position.shape and len(ideal) == len(gains) \
            and top_gain.dtype == np.float64 and top_gain.shape == gains.shape[:1] and all(map(len, tables)):
        rows, shape = len(gains), (len(bounds), len(gains))
        sums, first = np.empty((len(TERM_KINDS),) + shape), np.empty(rows, dtype=np.int64)
        parts = np.empty(shape), np.empty(shape, dtype=np.int64), np.empty(shape, dtype=bool)
        if compiled(gains, position, ideal, np.ascontiguousarray(top_gain), *gains.shape, ideal.shape[1], deepest,
                    *tables, float(beta), bounds, columns, sums, first, *parts):
            return GainListSums(sums, first, parts)
    return _numpy_gain_list_sums(gains, position, ideal, top_gain, deepest, *tables, beta, bounds, columns)


def _numpy_gain_list_sums(gains: np.ndarray, position: np.ndarray, ideal: np.ndarray, top_gain: np.ndarray,
                          deepest: int, discount: np.ndarray, rbp_powers: np.ndarray, irbu_powers: np.ndarray,
                          beta: float, bounds: np.ndarray, columns: np.ndarray) -> GainListSums:
    within = (position <= deepest) & (gains > 0)
    ratio = _numpy_blended_ratio(gains, position, ideal, beta)
    stopping = _numpy_err_probability(gains, top_gain)
    terms = (np.cumsum(gains > 0, axis=1) / position, gains * np.take(discount, position, mode="clip"), ratio,
             stopping / position, stopping * ratio, gains * np.take(rbp_powers, position, mode="clip"),
             stopping * np.take(irbu_powers, position, mode="clip"), np.ones(gains.shape))
    sums = np.stack([_numpy_cut_row_sums(term, within, position, bounds, columns) for term in terms])
    first = np.where(gains > 0, position, deepest + 1).min(axis=1, initial=deepest + 1)
    if gains.shape[1]:
        parts = _numpy_cut_p_plus_parts(gains, within, position, ratio, bounds, columns)
    else:  # (numpy has no largest gain of none: no entry, no part)
        shape = (len(bounds), len(gains))
        parts = np.zeros(shape), np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=bool)
    return GainListSums(sums, first, parts)


@probed("gain_list_sums")
def _list_sums_agree(compiled) -> bool:
    # One list of PROBED_WIDTHS' longest, cut at every length they give (each width, and half of it), the bound
    # inside the list, past it or none in turn: numpy sums each cutoff's terms as a row of that many columns
    # (masked_row_sums' np.where makes one), so every length its pairwise sum treats apart is summed, in one call
    # rather than one per width (30 ms of an -m all call: the twin is some forty numpy calls a cutoff). Which
    # entries a bound masks changes no order of additions; tests/test_native_kernels.py holds the kernel to its
    # twin on lists of every shape.
    rng = _ProbeNumbers()
    width = max(PROBED_WIDTHS)
    lengths = sorted({count for w in PROBED_WIDTHS[1:] for count in (max(w // 2, 1), w)})
    gains = np.where(rng.random((4, width)) < 0.7, rng.choice([1.0, 3.0, 7.0, 0.3, 1e-9], (4, width)), 0.0)
    position = np.cumsum(rng.integers(1, 3, (3, width)), axis=1)
    position = np.vstack([position, rng.permutation(position[0])])  # (ranks that do not ascend: in any order)
    columns = np.array(lengths, dtype=np.int64)
    bounds = np.array([(count // 3, 2 * count + 1, -1)[j % 3] for j, count in enumerate(lengths)], dtype=np.int64)
    ideal = -np.sort(-rng.choice([0.0, 1.0, 3.0, 7.0], (4, 25)), axis=1)
    top_gain = np.array([0.0, 1.0, 7.0, 2.0 ** 0.5])
    tables = [rng.random(n) + 0.1 for n in (width + 2, width // 2 + 1, 3)]
    shape = (len(columns), 4)
    sums, first = np.empty((len(TERM_KINDS),) + shape), np.empty(4, dtype=np.int64)
    parts = np.empty(shape), np.empty(shape, dtype=np.int64), np.empty(shape, dtype=bool)
    deepest = int(position.max()) - 1
    if not compiled(gains, position, ideal, top_gain, 4, width, 25, deepest, *tables, 0.7, bounds, columns, sums,
                    first, *parts):
        return False
    expected = _numpy_gain_list_sums(gains, position, ideal, top_gain, deepest, *tables, 0.7, bounds, columns)
    return (_same_bits(sums, expected.sums) and np.array_equal(first, expected.first)
            and _same_bits(parts[0], expected.p_plus[0]) and np.array_equal(parts[1], expected.p_plus[1])
            and np.array_equal(parts[2], expected.p_plus[2]))


# -- GAP's terms --------------------------------------------------------------------------------------------

def gap_terms(grade: np.ndarray, position: np.ndarray, probabilities: tuple[float, ...]) -> np.ndarray:
    """GAP's numerator term at every entry of (rows, width) ``grade`` (> 0 at a ranked document, 0 padding) at
    ranks ``position``: sum over j = 1, 2, ... of g_j [grade >= j] times the row's entries up to this one of
    grade >= j (added in j order), over the rank; 0 where the grade is 0."""
    compiled = kernel("gap_terms")
    if compiled is not None and _plain_rows(grade, np.int64) and _plain_rows(position, np.int64) \
            and grade.shape == position.shape:
        terms = np.empty(grade.shape)  # the same operations, row by row in one pass
        compiled(grade, position, *grade.shape, np.asarray(probabilities, dtype=np.float64), terms)
        return terms
    return _numpy_gap_terms(grade, position, probabilities)


def _numpy_gap_terms(grade: np.ndarray, position: np.ndarray, probabilities: tuple[float, ...]) -> np.ndarray:
    inner = np.zeros(grade.shape)
    for j, g_j in enumerate(probabilities, start=1):
        at_least = grade >= j
        inner += g_j * at_least * np.cumsum(at_least, axis=1)
    return np.where(grade > 0, inner / position, 0.0)


# -- infAP's and bpref's sums --------------------------------------------------------------------------

def _lines_above(topic: np.ndarray, *flags: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """For lines grouped by ``topic`` (runs of equal values): (each line's run's first line, and per array of
    ``flags`` the lines above each in its run that hold it)."""
    first = np.r_[True, topic[1:] != topic[:-1]] if len(topic) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(first)[np.cumsum(first) - 1]
    counts = []
    for held in flags:
        seen = np.cumsum(held.astype(np.int64)) - held
        counts.append(seen - seen[starts])
    return starts, counts


# -- infAP's sums ---------------------------------------------------------------------------------------

def inferred_precision_sums(topic: np.ndarray, rank: np.ndarray, relevant: np.ndarray, nonrelevant: np.ndarray,
                            n_topics: int, smoothing: float) -> np.ndarray:
    """(n_topics,) infAP's numerators (divaleval/measures/infap.py): over judged lines grouped by ``topic`` (runs
    of equal values, each in rank order), the sum, in line order, of each ``relevant`` line's expected precision
    at its ``rank`` from the lines above it in its run (all of them pooled; ``relevant`` and ``nonrelevant``
    ones judged)."""
    compiled = kernel("inferred_precision_sums")
    if compiled is not None and topic.dtype == np.int64 and relevant.dtype == nonrelevant.dtype == np.bool_ \
            and len(topic) == len(rank) == len(relevant) == len(nonrelevant):
        totals = np.zeros(n_topics)  # the same operations, line by line in one pass
        if compiled(np.ascontiguousarray(topic), np.ascontiguousarray(rank, dtype=np.int64),
                    np.ascontiguousarray(relevant), np.ascontiguousarray(nonrelevant), len(topic), float(smoothing),
                    totals) is not None:
            return totals
    return _numpy_inferred_precision_sums(topic, rank, relevant, nonrelevant, n_topics, smoothing)


def _numpy_inferred_precision_sums(topic: np.ndarray, rank: np.ndarray, relevant: np.ndarray,
                                   nonrelevant: np.ndarray, n_topics: int, smoothing: float) -> np.ndarray:
    starts, (r, n) = _lines_above(topic, relevant, nonrelevant)
    # Only the relevant lines add terms (the others' terms, 0, would change no bit of the sums).
    lines = np.flatnonzero(relevant)
    p = lines - starts[lines]
    topic, rank, r, n = topic[lines], rank[lines].astype(np.float64), r[lines], n[lines]
    above = np.maximum(rank - 1, 1)
    expected = 1 / rank + (rank - 1) / rank * (p / above) * ((r + smoothing) / (r + n + 2 * smoothing))
    terms = np.where(rank == 1, 1.0, expected)
    return np.bincount(topic, weights=terms, minlength=n_topics)  # added in line order


# -- bpref's sums ---------------------------------------------------------------------------------------

def bpref_sums(topic: np.ndarray, relevant: np.ndarray, nonrelevant: np.ndarray, relevant_total: np.ndarray,
               nonrelevant_total: np.ndarray) -> np.ndarray:
    """bpref's numerators (divaleval/measures/bpref.py), one per entry of ``relevant_total``: over judged lines
    grouped by ``topic`` (runs of equal values, each in rank order), the sum, in line order, of each
    ``relevant`` line's 1 - min(n, R) / max(min(N, R), 1) (1 where n is 0), n the ``nonrelevant`` lines above
    it in its run, R and N its topic's ``relevant_total`` and ``nonrelevant_total``."""
    compiled = kernel("bpref_sums")
    if compiled is not None and topic.dtype == relevant_total.dtype == nonrelevant_total.dtype == np.int64 \
            and relevant.dtype == nonrelevant.dtype == np.bool_ and len(topic) == len(relevant) == len(nonrelevant) \
            and len(relevant_total) == len(nonrelevant_total):
        totals = np.zeros(len(relevant_total))  # the same operations, line by line in one pass
        if compiled(*(np.ascontiguousarray(a) for a in (topic, relevant, nonrelevant)), len(topic),
                    np.ascontiguousarray(relevant_total), np.ascontiguousarray(nonrelevant_total), totals) is not None:
            return totals
    return _numpy_bpref_sums(topic, relevant, nonrelevant, relevant_total, nonrelevant_total)


def _numpy_bpref_sums(topic: np.ndarray, relevant: np.ndarray, nonrelevant: np.ndarray,
                      relevant_total: np.ndarray, nonrelevant_total: np.ndarray) -> np.ndarray:
    _, (above,) = _lines_above(topic, nonrelevant)
    # Only the relevant lines add terms (the others' terms, 0, would change no bit of the sums).
    lines = np.flatnonzero(relevant)
    topic, above = topic[lines], above[lines]
    r_total, n_total = relevant_total[topic], nonrelevant_total[topic]
    share = np.minimum(above, r_total) / np.maximum(np.minimum(n_total, r_total), 1)
    terms = np.where(above > 0, 1.0 - share, 1.0)
    return np.bincount(topic, weights=terms, minlength=len(relevant_total))  # added in line order
