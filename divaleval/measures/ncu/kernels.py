"""The kernels of the NCU family of ad hoc measures on graded gains (Sakai & Zeng 2019, sec. 3.1; NTCIREVAL).

For one ranked list with gain g(r) at rank r: I(r) = 1 iff g(r) > 0,
C(r) = sum_{s<=r} I(s), cg(r) and cg*(r) the cumulative gains of the run and of
the ideal list (every judged document by gain, descending), R the number of
documents with a gain, hg the largest gain of the ideal list. At cutoff k:

* Prec@k = C(k)/k;  AP@k = (1/min(k,R)) sum_{r<=k} I(r) C(r)/r;  RR = 1/(first relevant rank)
* nDCG@k = sum_{r<=k} g(r)/log2(r+1) over the same for the ideal list (NTCIREVAL's MSnDCG)
* Q@k = (1/min(k,R)) sum_{r<=k} I(r) BR(r),  BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(r))
* s(r) = g(r)/(hg+1), P_ERR(r) = s(r) prod_{t<r} (1 - s(t))
* ERR@k = sum P_ERR(r)/r;  EBR@k = sum P_ERR(r) BR(r);  iRBU@k = sum P_ERR(r) p^r
* RBP@k = (1-p) sum p^(r-1) g(r)/hg
* P+@k = (1/C(rp)) sum_{r<=rp} I(r) BR(r), rp the first rank <= k holding the largest gain
  of the top k (Sakai's P-plus; 0 without a relevant document in the top k)
* nERR, nEBR, nRBP, niRBU: over the same measure of the ideal list.

Without a cutoff a measure covers the whole list. Each kernel takes a
:class:`~.lists.GainList` (a topic per row, or a topic's intent per row) and
returns one value per row.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...arrays import (TERM_KINDS, GainListSums, blended_ratio, cut_p_plus_parts, cut_row_sums, err_probability,
                        gain_list_sums, p_plus_parts)
from ...context import PAST_END
from ..core import memoised
from ..core.kernels import (
    LOG_TABLE_RANKS,
    divide_or_zero,
    log_discount,
    masked_row_sums,
    rank_discount,
    summed_columns,
)
from .lists import GainList, ideal_value


@memoised
def _within(gl: GainList, cutoff: int | None) -> np.ndarray:
    return (gl.position <= (PAST_END - 1 if cutoff is None else cutoff)) & (gl.gains > 0)


def _rank_normaliser(gl: GainList, cutoff: int | None) -> np.ndarray:
    """min(k, R), or R without a cutoff."""
    return gl.n_relevant if cutoff is None else np.minimum(cutoff, gl.n_relevant)


@memoised
def _blended_ratio(gl: GainList, beta: float) -> np.ndarray:
    """BR(r) at every entry."""
    return blended_ratio(gl.gains, gl.position, gl.ideal, beta)


@memoised
def _err_probability(gl: GainList) -> np.ndarray:
    """P_ERR at each entry: s(r) times the chance the user got that far."""
    return err_probability(gl.gains, gl.top_gain)


def _columns(gl: GainList, cutoff: int | None) -> int:
    """The leading columns a sum over the entries ranked <= cutoff needs (entry j is ranked j + 1 or deeper)."""
    return summed_columns(gl.gains.shape[1], cutoff)


def _sum(gl: GainList, cutoff: int | None, terms_of: Callable[..., np.ndarray], *params) -> np.ndarray:
    """Each row's sum of the terms ``terms_of(gl, *params)`` over its entries with a gain ranked <= cutoff: at
    a cutoff of the list's, taken from its sums at all of them."""
    if cutoff in gl.cutoffs:
        return _sums_at_cutoffs(gl, terms_of, *params)[gl.cutoffs.index(cutoff)]
    return masked_row_sums(terms_of(gl, *params), _within(gl, cutoff), _columns(gl, cutoff))


@memoised
def _sums_at_cutoffs(gl: GainList, terms_of: Callable[..., np.ndarray], *params) -> np.ndarray:
    """(cutoffs, rows): :func:`_sum` at every cutoff of ``gl.cutoffs``, in one pass over the terms (over the
    list, with every other kernel's, where the terms are a family member's)."""
    if terms_of in _TERM_KIND:
        together = _sums_together(gl, *_usual_parameters(terms_of, params))
        if together is not None:
            return together.sums[_TERM_KIND[terms_of]]
    return cut_row_sums(terms_of(gl, *params), _within(gl, None), gl.position, *_cut_bounds(gl))


def _cut_bounds(gl: GainList) -> tuple[list[int], list[int]]:
    """(bounds, columns) of the list's cutoffs, as the sums at every cutoff take them: the entries within a
    cutoff are those within the whole list ranked <= it (-1: no bound), of its leading columns."""
    return ([-1 if cutoff is None else cutoff for cutoff in gl.cutoffs],
            [_columns(gl, cutoff) for cutoff in gl.cutoffs])


# Each kernel's terms depend on the list, not on the cutoff: computed once per list and shared by its cutoffs.

@memoised
def relevant_running_count(gl: GainList) -> np.ndarray:
    """C(r): the entries with a gain at or above each entry of its row."""
    # Counted in 32 bits where a row cannot hold more: numpy's running sum of booleans into 64 bits takes
    # three times as long, and the counts (and C(r)/r) are the same numbers.
    return np.cumsum(gl.gains > 0, axis=1, dtype=np.int32 if gl.gains.shape[1] < 2 ** 31 else np.int64)


@memoised
def precision_terms(gl: GainList) -> np.ndarray:
    """C(r)/r (AP's terms; IPrec's precisions)."""
    return relevant_running_count(gl) / gl.position


@memoised
def _err_terms(gl: GainList) -> np.ndarray:
    """P_ERR(r)/r."""
    return _err_probability(gl) / gl.position


@memoised
def _ebr_terms(gl: GainList, beta: float) -> np.ndarray:
    """P_ERR(r) BR(r)."""
    return _err_probability(gl) * _blended_ratio(gl, beta)


@memoised
def _rbp_terms(gl: GainList, p: float) -> np.ndarray:
    """g(r) p^(r-1)."""
    return gl.gains * _powers(gl, p, 1.0)


@memoised
def _irbu_terms(gl: GainList, p: float) -> np.ndarray:
    """P_ERR(r) p^r."""
    return _err_probability(gl) * _powers(gl, p, 0.0)


@memoised
def _entries_within(gl: GainList) -> dict:
    """Each row's entries with a gain ranked <= k, at every cutoff k of the list's (None aside), in one pass:
    sums of ones, exact."""
    cutoffs = [cutoff for cutoff in gl.cutoffs if cutoff is not None]
    if not cutoffs:
        return {}
    together = _sums_together(gl, USUAL_BETA, USUAL_RBP_P, USUAL_IRBU_P)
    if together is not None:
        ones = together.sums[TERM_KINDS.index("one")]
        return {cutoff: ones[gl.cutoffs.index(cutoff)] for cutoff in cutoffs}
    counts = cut_row_sums(np.ones(gl.gains.shape), _within(gl, None), gl.position, cutoffs,
                          [_columns(gl, cutoff) for cutoff in cutoffs])
    return dict(zip(cutoffs, counts))


def precision(gl: GainList, cutoff: int) -> np.ndarray:
    counts = _entries_within(gl)
    if cutoff in counts:
        return counts[cutoff] / cutoff
    return _within(gl, cutoff)[:, :_columns(gl, cutoff)].sum(axis=1) / cutoff


def average_precision(gl: GainList, cutoff: int | None) -> np.ndarray:
    return divide_or_zero(_sum(gl, cutoff, precision_terms), _rank_normaliser(gl, cutoff))


def average_precision_over_r(gl: GainList, cutoff: int | None) -> np.ndarray:
    """AP's sum over the top k divided by R whatever k (trec_eval's map_cut), not by min(k, R)."""
    return divide_or_zero(_sum(gl, cutoff, precision_terms), gl.n_relevant)


@memoised
def _first_rank(gl: GainList) -> np.ndarray:
    """Each row's first rank holding a gain (PAST_END where none does): once per list for every cutoff,
    as the first rank within a cutoff is this one or none."""
    together = _sums_together(gl, USUAL_BETA, USUAL_RBP_P, USUAL_IRBU_P)
    if together is not None:
        return together.first
    return np.where(gl.gains > 0, gl.position, PAST_END).min(axis=1, initial=PAST_END)


def reciprocal_rank(gl: GainList, cutoff: int | None) -> np.ndarray:
    first = _first_rank(gl)
    return divide_or_zero(1.0, first, where=first <= (PAST_END - 1 if cutoff is None else cutoff))


def q_measure(gl: GainList, cutoff: int | None, beta: float) -> np.ndarray:
    return divide_or_zero(_sum(gl, cutoff, _blended_ratio, beta), _rank_normaliser(gl, cutoff))


@memoised
def _last_rank(gl: GainList) -> int:
    """The list's deepest rank, padding aside: tables of per-rank values (DCG's discount, the powers of RBP
    and iRBU) run to it, once per list."""
    return int(gl.position[gl.position < PAST_END].max(initial=1))


def _at_ranks(table: np.ndarray, gl: GainList) -> np.ndarray:
    """``table[min(r, last)]`` at every entry's rank r (``table`` indexed by rank, 0 to the last): one pass
    (np.take clips the padding's ranks to the last), where clipping, shifting and indexing took three."""
    return np.take(table, gl.position, mode="clip")


def _discount_table(gl: GainList) -> np.ndarray:
    """DCG's discount by rank, 0 to the list's last (rank 0: never read)."""
    return np.concatenate([[1.0], log_discount(_last_rank(gl))])


@memoised
def _discounted_gains(gl: GainList) -> np.ndarray:
    if _last_rank(gl) > LOG_TABLE_RANKS:
        return gl.gains * rank_discount(gl.position)
    return gl.gains * _at_ranks(_discount_table(gl), gl)


def _power_table(gl: GainList, p: float, offset: float) -> np.ndarray:
    """p^(r - offset) by rank r, 0 to the list's last: the same np.power of the same numbers as at each entry,
    once per rank rather than once per entry."""
    return np.power(p, np.arange(_last_rank(gl) + 1) - offset)


@memoised
def _powers(gl: GainList, p: float, offset: float) -> np.ndarray:
    """p^(r - offset) at every entry's rank r (cut at the last rank, past which entries are padding)."""
    return _at_ranks(_power_table(gl, p, offset), gl)


def dcg(gl: GainList, cutoff: int | None) -> np.ndarray:
    return _sum(gl, cutoff, _discounted_gains)


def err(gl: GainList, cutoff: int | None) -> np.ndarray:
    return _sum(gl, cutoff, _err_terms)


def ebr(gl: GainList, cutoff: int | None, beta: float) -> np.ndarray:
    return _sum(gl, cutoff, _ebr_terms, beta)


def rbp(gl: GainList, cutoff: int | None, p: float) -> np.ndarray:
    return (1.0 - p) * divide_or_zero(_sum(gl, cutoff, _rbp_terms, p), gl.top_gain)


def irbu(gl: GainList, cutoff: int | None, p: float) -> np.ndarray:
    return _sum(gl, cutoff, _irbu_terms, p)


def p_plus(gl: GainList, cutoff: int | None, beta: float) -> np.ndarray:
    """P+ (Sakai 2006; NTCIREVAL's P-plus) on the list cut at ``cutoff``: the mean BR(r) over the
    relevant ranks r <= rp, the preferred rank rp being the first that holds the list's largest gain."""
    if cutoff in gl.cutoffs:
        total, count, any_within = (part[gl.cutoffs.index(cutoff)] for part in _p_plus_parts_at_cutoffs(gl, beta))
    else:
        total, count, any_within = p_plus_parts(gl.gains, _within(gl, cutoff), _blended_ratio(gl, beta),
                                                _columns(gl, cutoff))
    return divide_or_zero(total, count, where=any_within)


@memoised
def _p_plus_parts_at_cutoffs(gl: GainList, beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P+'s parts at every cutoff of ``gl.cutoffs`` (each (cutoffs, rows)), in one pass."""
    together = _sums_together(gl, beta, USUAL_RBP_P, USUAL_IRBU_P)
    if together is not None:
        return together.p_plus
    return cut_p_plus_parts(gl.gains, _within(gl, None), gl.position, _blended_ratio(gl, beta), *_cut_bounds(gl))


# -- every kernel's sums of a list at its cutoffs, in one pass ---------------------------------------------

# The family's usual parameters (its members' defaults: family.py takes them from here). A list's sums at its
# cutoffs are made for every kernel at once at these; a kernel asked for at another value of its parameter
# has a pass of its own, with the others at theirs.
USUAL_BETA, USUAL_RBP_P, USUAL_IRBU_P = 1.0, 0.95, 0.99

# Each kernel's terms, by their kind in the sums of the pass (native/sums.py's TERM_KINDS).
_TERM_KIND = {terms_of: TERM_KINDS.index(kind) for terms_of, kind in (
    (precision_terms, "precision"), (_discounted_gains, "discounted"), (_blended_ratio, "ratio"),
    (_err_terms, "err"), (_ebr_terms, "ebr"), (_rbp_terms, "rbp"), (_irbu_terms, "irbu"))}


def _usual_parameters(terms_of: Callable[..., np.ndarray], params: tuple) -> tuple[float, float, float]:
    """(beta, RBP's p, iRBU's p) of the pass that sums ``terms_of(gl, *params)``: its own, the others usual."""
    beta, rbp_p, irbu_p = USUAL_BETA, USUAL_RBP_P, USUAL_IRBU_P
    if terms_of in (_blended_ratio, _ebr_terms):
        (beta,) = params
    elif terms_of is _rbp_terms:
        (rbp_p,) = params
    elif terms_of is _irbu_terms:
        (irbu_p,) = params
    return float(beta), float(rbp_p), float(irbu_p)


@memoised
def _sums_together(gl: GainList, beta: float, rbp_p: float, irbu_p: float) -> GainListSums | None:
    """Every kernel's sums at the list's cutoffs (P+'s parts and each row's first rank with them), in one pass
    over the list; None where the list has no cutoffs, or ranks too deep for a table of discounts."""
    if not gl.cutoffs or _last_rank(gl) > LOG_TABLE_RANKS:
        return None
    return gain_list_sums(gl.gains, gl.position, gl.ideal, gl.top_gain, PAST_END - 1, _discount_table(gl),
                          _power_table(gl, rbp_p, 1.0), _power_table(gl, irbu_p, 0.0), beta, *_cut_bounds(gl))


def normalised(kernel: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """The kernel's value over the same value of the ideal list (0 where that is 0)."""
    def over_ideal(gl: GainList, cutoff: int | None, **params) -> np.ndarray:
        return divide_or_zero(kernel(gl, cutoff, **params), ideal_value(gl, kernel, cutoff, params))
    return over_ideal
