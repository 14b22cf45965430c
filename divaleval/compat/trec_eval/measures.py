"""trec_eval's measures as a table: name -> how it is computed, its default parameters, how it prints
and how topics are summarised. Table order is output order (trec_eval prints in its table's order,
whatever the order of -m).

Each compute function takes a :class:`Batch` of topics, the measure's parameters
and the :class:`Version`, and returns a (topics, parameters) array: one column a
parameter (one for a measure without parameters), every topic at once. Sums run
in rank order (running sums along a row), as trec_eval's loops add, so the last
bit matches before rounding to four decimals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .topic import Batch, at, row_sums
from .versions import Version, tenth_ceilings

MIN_GEO_MEAN = 0.00001  # trec_eval's floor before a log in the geometric means
INFAP_EPSILON = 0.00001
RBP_PERSISTENCE = 0.9


@dataclass(frozen=True)
class Measure:
    name: str
    compute: Callable[[Batch, tuple, Version], np.ndarray]
    params: tuple = ()          # default cutoffs; () for a measure without parameters
    float_params: bool = False  # parameters printed as %3.2f (else as whole numbers)
    kind: str = "float"         # float, int (summed over topics) or str
    summary: str = "mean"       # mean, sum, gm (geometric mean), none (per topic only)
    per_topic: bool = True


def _div(a, b) -> np.ndarray:
    """a / b, 0 where b is 0 (trec_eval's guard), topic by topic."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b))
    return np.divide(a, b, out=np.zeros(a.shape), where=b != 0)


def _columns(*values) -> np.ndarray:
    """One column a parameter (T, P)."""
    return np.stack([np.asarray(v, dtype=np.float64) for v in values], axis=1)


def _ap(t: Batch, _p, _v):
    return _columns(_div(row_sums(t.precision_at_relevant), t.num_rel))


def _ap_cut(t: Batch, cuts, _v):
    prec = np.cumsum(t.precision_at_relevant, axis=1)
    return _columns(*(_div(at(prec, k), t.num_rel) for k in cuts))


def _rprec(t: Batch, _p, _v):
    return _columns(_div(t.rel_in_top(t.num_rel), t.num_rel))


def _bpref(t: Batch, _p, _v):
    bound = np.minimum(t.num_rel, t.num_nonrel)[:, None]
    nonrel_above = t.cum_judged - t.cum_rel
    terms = 1.0 - np.divide(np.minimum(nonrel_above, t.num_rel[:, None]), bound, where=bound != 0,
                            out=np.zeros(nonrel_above.shape))
    return _columns(_div(row_sums(np.where(t.relevant, terms, 0.0)), t.num_rel))


def _recip_rank(t: Batch, _p, _v):
    first = np.argmax(t.relevant, axis=1) if t.width else np.zeros(len(t.num_ret), dtype=np.intp)
    return _columns(np.where(t.relevant.any(axis=1), 1.0 / (first + 1), 0.0))


def _iprec(t: Batch, levels, version):
    return t.once(("iprec", levels), lambda: _interpolated(t, levels, version))


def _interpolated(t: Batch, levels, version):
    prec = t.precision_at_relevant  # (0 at the other ranks: no maximum changes)
    best_from = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]  # max at or after each rank
    rel_ret = t.num_rel_ret[:, None]
    needed = np.stack([version.recall_cutoffs(level, t.num_rel) for level in levels], axis=1)
    if t.width:
        value = np.take_along_axis(best_from, np.minimum(t.rank_of_relevant(np.maximum(needed, 1)), t.width) - 1,
                                   axis=1)
        best = best_from[:, :1]
    else:
        value = best = np.zeros((len(t.num_ret), 1))
    value = np.where(needed <= rel_ret, value, 0.0)
    # needed 0: the best precision at any rank; 0/0 where nothing is ranked, as in trec_eval
    empty = np.where(t.num_ret > 0, 0.0, np.nan)[:, None]
    return np.where(needed == 0, np.where(rel_ret > 0, best, empty), value)


def _precision(t: Batch, cuts, _v):
    return _columns(*(t.rel_in_top(k) / k for k in cuts))


def _relstring(t: Batch, _p, _v):
    def text(row):
        return "'" + "".join("-" if grade != grade else "." if grade < 0 else str(int(grade))
                             for grade in row) + "'"
    return [[text(row[:n])] for row, n in zip(t.grades[:, :10].tolist(), t.num_ret.tolist())]


def _recall(t: Batch, cuts, _v):
    return _columns(*(_div(t.rel_in_top(k), t.num_rel) for k in cuts))


def _infap(t: Batch, _p, _v):
    # Yilmaz and Aslam's inferred AP: documents graded -1 are pooled but not judged.
    pooled = ~np.isnan(t.grades)
    sampled = t.judged
    rel_above = t.cum_rel - t.relevant
    sampled_above = t.cum_judged - sampled
    pooled_above = np.cumsum(pooled, axis=1, dtype=np.int32) - pooled
    ranks = t.ranks
    nonrel_above = sampled_above - rel_above
    expected = np.where(
        ranks == 1, 1.0,
        1.0 / ranks + (ranks - 1) / ranks * (pooled_above / np.maximum(ranks - 1, 1))
        * ((rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)))
    return _columns(_div(row_sums(np.where(t.relevant, expected, 0.0)), t.num_rel))


def _rprec_mult(t: Batch, mults, version):
    values = []
    for mult in mults:
        cut = tenth_ceilings(mult * t.num_rel)  # the same in 9.0 and 10.0
        values.append(_div(t.rel_in_top(cut), cut))
    return _columns(*values)


def _utility(t: Batch, _p, _v):
    return _columns(t.num_rel_ret - (t.num_ret - t.num_rel_ret))


def _11pt(t: Batch, _p, version):
    return _columns(row_sums(_iprec(t, ELEVEN_POINTS, version)) / 11)


def _gains(t: Batch) -> np.ndarray:
    return t.once("gains", lambda: np.where(t.judged, t.grades, 0.0))  # (a judged grade is 0 or more: its gain)


def _ranking_dcg(t: Batch) -> np.ndarray:
    return t.once("dcg", lambda: _dcg(_gains(t)))


def _ideal_dcg(t: Batch) -> np.ndarray:
    return t.once("ideal_dcg", lambda: _dcg(t.ideal))


def _discounts(width: int) -> np.ndarray:
    return np.log2(np.arange(2, width + 2))


def _dcg(gains: np.ndarray) -> np.ndarray:
    """Cumulated discounted gain at each rank (gain / log2(rank + 1)), row by row."""
    return np.cumsum(gains / _discounts(gains.shape[1]), axis=1)


def _ndcg(t: Batch, _p, _v):
    return _columns(_div(at(_ranking_dcg(t), t.num_ret), at(_ideal_dcg(t), t.ideal.shape[1])))


def _ndcg_cut(t: Batch, cuts, _v):
    dcg, ideal = _ranking_dcg(t), _ideal_dcg(t)
    return _columns(*(_div(at(dcg, k), at(ideal, k)) for k in cuts))


def _rndcg(t: Batch, _p, _v):
    # nDCG averaged at the R levels: each rank where the ideal gain steps down (to the next grade, or
    # to 0 after the last positive one), the ranking's DCG there (frozen at its end when shorter) over
    # the ideal's; plus, when the ranking runs more than one past the last positive ideal document, its
    # whole DCG over the whole ideal DCG (trec_eval adds that only then).
    dcg, ideal_dcg = _ranking_dcg(t), _ideal_dcg(t)
    positive = np.count_nonzero(t.ideal > 0, axis=1)
    steps = (t.ideal > 0) & (t.ideal != np.pad(t.ideal[:, 1:], ((0, 0), (0, 1))))  # after rank j + 1
    frozen = at_each(dcg, np.minimum(np.arange(1, t.ideal.shape[1] + 1), t.num_ret[:, None]))
    terms = np.divide(frozen, ideal_dcg, out=np.zeros(frozen.shape), where=steps)
    whole = at(dcg, t.num_ret) / np.where(positive > 0, at(ideal_dcg, positive), 1.0)
    extra = t.num_ret > positive + 1
    total = row_sums(terms) + np.where(extra, whole, 0.0)  # (the last term added last)
    count = steps.sum(axis=1) + extra
    return _columns(np.where(t.num_rel > 0, _div(total, count), 0.0))


def at_each(matrix: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """matrix[row, k - 1] for each k of each row of ``ks`` (0 where k <= 0)."""
    if not matrix.shape[1]:
        return np.zeros(ks.shape)
    values = np.take_along_axis(matrix, np.clip(ks, 1, matrix.shape[1]) - 1, axis=1)
    return np.where(ks > 0, values, 0.0)


def _ndcg_rel(t: Batch, _p, _v):
    # nDCG averaged over the documents of positive gain: at the rank of each one retrieved (the ideal
    # DCG taken no further than its positive documents), and, for each one not retrieved, the
    # ranking's whole DCG over the whole ideal DCG.
    positive = np.count_nonzero(t.ideal > 0, axis=1)
    gains = _gains(t)
    dcg, ideal_dcg = _ranking_dcg(t), _ideal_dcg(t)
    scored = gains > 0
    ideal_at = at_each(ideal_dcg, np.minimum(t.ranks, positive[:, None]))
    terms = np.divide(dcg, ideal_at, out=np.zeros(dcg.shape), where=scored)
    last = np.where(positive > 0, at(ideal_dcg, positive), 1.0)
    total = row_sums(terms) + (positive - scored.sum(axis=1)) * at(dcg, t.num_ret) / last
    return _columns(np.where((positive > 0) & (total > 0), total / np.maximum(positive, 1), 0.0))


def _g(t: Batch, binary: bool):
    if binary:
        nonrel_above = t.ranks - t.cum_rel - ~t.relevant  # (non-relevant ranks above)
        discounts = np.log2(2 + nonrel_above, where=t.relevant, out=np.ones(nonrel_above.shape))
        return _columns(_div(row_sums(np.divide(1.0, discounts, where=t.relevant, out=np.zeros(discounts.shape))),
                             t.num_rel))
    # G: a document's gain over log2(2 + the ideal's cost so far - the gain so far), the ideal's cost a
    # rank being its gain, at least 1; normalised by the ideal's total gain.
    gains = _gains(t)
    padded = np.zeros(gains.shape)
    width = min(t.ideal.shape[1], t.width)
    padded[:, :width] = t.ideal[:, :width]
    cost = np.cumsum(np.maximum(padded, 1.0), axis=1)
    found = np.cumsum(gains, axis=1)
    scored = gains != 0
    terms = np.divide(gains, np.log2(2 + cost - found, where=scored, out=np.ones(gains.shape)),
                      where=scored, out=np.zeros(gains.shape))
    return _columns(_div(row_sums(terms), row_sums(t.ideal)))


def _relative_p(t: Batch, cuts, _v):
    return _columns(*(_div(t.rel_in_top(k), np.minimum(k, t.num_rel)) for k in cuts))


def _success(t: Batch, cuts, _v):
    return _columns(*(np.where(t.rel_in_top(k) > 0, 1.0, 0.0) for k in cuts))


def _set_p(t, _p, _v):
    return _columns(_div(t.num_rel_ret, t.num_ret))


def _set_relative_p(t, _p, _v):
    return _columns(_div(t.num_rel_ret, np.minimum(t.num_ret, t.num_rel)))


def _set_recall(t, _p, _v):
    return _columns(_div(t.num_rel_ret, t.num_rel))


def _set_map(t, _p, _v):
    return _columns(_div(t.num_rel_ret * t.num_rel_ret, t.num_ret * t.num_rel))


def _set_f(t, _p, _v):
    precision, recall = _set_p(t, _p, _v)[:, 0], _set_recall(t, _p, _v)[:, 0]
    return _columns(_div(2 * precision * recall, precision + recall))


def _persistence_powers(n: int) -> np.ndarray:
    """p^0 .. p^n by repeated multiplication, as trec_eval steps them (not p ** k)."""
    return np.cumprod(np.append(1.0, np.full(n, RBP_PERSISTENCE)))


def _rbp(t, _p, _v):
    # Gains are grades scaled by the topic's highest grade when that is above 1 (trec_eval normalises
    # gains to [0, 1] from the levels of its judgments).
    gains = _gains(t)
    gains = np.where(t.top_grade[:, None] > 1, gains / np.maximum(t.top_grade, 1)[:, None], gains)
    weighted = np.where(gains != 0, gains * _persistence_powers(t.width)[:-1], 0.0)
    return _columns((1.0 - RBP_PERSISTENCE) * row_sums(weighted))


def _rbp_resid(t, _p, _v):
    # The residual alone: the weight of the unjudged ranks plus of the ranks past the end; 0 when every
    # retrieved document is judged (trec_eval sets it only when it met an unjudged one).
    powers = _persistence_powers(t.width)
    unjudged = ~t.judged & t.valid
    value = powers[t.num_ret] + (1 - RBP_PERSISTENCE) * row_sums(np.where(unjudged, powers[:-1], 0.0))
    return _columns(np.where(unjudged.any(axis=1), value, 0.0))


def _unjudged(t, cuts, _v):
    unjudged = np.minimum(t.ranks, t.num_ret[:, None]) - t.cum_judged  # (none judged past the end)
    return _columns(*(at(unjudged, k) / k for k in cuts))


def _count(attribute: str):
    return lambda t, _p, _v: getattr(t, attribute)[:, None]


def _nonrel_judged_ret(t, _p, _v):
    return np.count_nonzero(t.judged & ~t.relevant, axis=1)[:, None]


def _nothing(t, _p, _v):  # runid and num_q are the writer's
    return np.zeros((len(t.num_ret), 0))


ELEVEN_POINTS = tuple(round(0.1 * i, 1) for i in range(11))
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULTS = tuple(round(0.2 * i, 1) for i in range(1, 11))

TABLE = [
    Measure("runid", _nothing, kind="str"),
    Measure("num_q", _nothing, kind="int"),
    Measure("num_ret", _count("num_ret"), kind="int", summary="sum"),
    Measure("num_rel", _count("num_rel"), kind="int", summary="sum"),
    Measure("num_rel_ret", _count("num_rel_ret"), kind="int", summary="sum"),
    Measure("map", _ap),
    Measure("gm_map", _ap, summary="gm", per_topic=False),
    Measure("Rprec", _rprec),
    Measure("bpref", _bpref),
    Measure("recip_rank", _recip_rank),
    Measure("iprec_at_recall", _iprec, ELEVEN_POINTS, float_params=True),
    Measure("P", _precision, CUTOFFS),
    Measure("relstring", _relstring, kind="str", summary="none"),
    Measure("recall", _recall, CUTOFFS),
    Measure("infAP", _infap),
    Measure("gm_bpref", _bpref, summary="gm", per_topic=False),
    Measure("Rprec_mult", _rprec_mult, RPREC_MULTS, float_params=True),
    Measure("utility", _utility),
    Measure("11pt_avg", _11pt),
    Measure("binG", lambda t, _p, _v: _g(t, True)),
    Measure("G", lambda t, _p, _v: _g(t, False)),
    Measure("ndcg", _ndcg),
    Measure("ndcg_rel", _ndcg_rel),
    Measure("Rndcg", _rndcg),
    Measure("ndcg_cut", _ndcg_cut, CUTOFFS),
    Measure("map_cut", _ap_cut, CUTOFFS),
    Measure("relative_P", _relative_p, CUTOFFS),
    Measure("success", _success, (1, 5, 10)),
    Measure("set_P", _set_p),
    Measure("set_relative_P", _set_relative_p),
    Measure("set_recall", _set_recall),
    Measure("set_map", _set_map),
    Measure("set_F", _set_f),
    Measure("num_nonrel_judged_ret", _nonrel_judged_ret, kind="int", summary="sum"),
    Measure("rbp", _rbp),
    Measure("rbp_resid", _rbp_resid),
    Measure("unj", _unjudged, (5, 10, 20)),
]
BY_NAME = {m.name: m for m in TABLE}
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")
VERSION_ONLY = {"rbp", "rbp_resid", "unj"}  # in all_trec (and known at all) only where the version says


def known(version: Version) -> set[str]:
    return {m.name for m in TABLE if m.name not in VERSION_ONLY or m.name in version.extra_all_trec}


def select(requests: list[str], version: Version) -> list[tuple[Measure, tuple]]:
    """The measures -m asks for, in table order, each with its parameters."""
    names = known(version)
    chosen: dict[str, tuple] = {}
    for request in requests:
        name, _, params = request.partition(".")
        if name == "official":
            for member in OFFICIAL:
                chosen.setdefault(member, BY_NAME[member].params)
            continue
        if name == "all_trec":
            for member in TABLE:
                if member.name in names:
                    chosen.setdefault(member.name, member.params)
            continue
        if name not in names:
            raise ValueError(f"unknown measure {name!r}")
        measure = BY_NAME[name]
        chosen[name] = _parameters(measure, params) if params else measure.params
    return [(m, chosen[m.name]) for m in TABLE if m.name in chosen]


def _parameters(measure: Measure, text: str) -> tuple:
    if not measure.params:
        raise ValueError(f"measure {measure.name!r} takes no parameters")
    try:
        values = [float(v) if measure.float_params else int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"bad parameters {text!r} for measure {measure.name!r}") from None
    return tuple(sorted(set(values)))


def geometric_mean_term(value: float) -> float:
    return math.log(max(value, MIN_GEO_MEAN))
