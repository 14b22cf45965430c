"""trec_eval's measures as a table: name -> how it is computed, its default parameters, how it prints
and how topics are summarised. Table order is output order (trec_eval prints in its table's order,
whatever the order of -m).

Each compute function takes a :class:`Topic`, the measure's parameters and the
:class:`Version`, and returns one value a parameter (one value for a measure
without parameters). Sums run in rank order (cumsum), as trec_eval's loops add,
so the last bit matches before rounding to four decimals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .topic import Topic
from .versions import Version, tenth_ceiling

MIN_GEO_MEAN = 0.00001  # trec_eval's floor before a log in the geometric means
INFAP_EPSILON = 0.00001
RBP_PERSISTENCE = 0.9


@dataclass(frozen=True)
class Measure:
    name: str
    compute: Callable[[Topic, tuple, Version], list]
    params: tuple = ()          # default cutoffs; () for a measure without parameters
    float_params: bool = False  # parameters printed as %3.2f (else as whole numbers)
    kind: str = "float"         # float, int (summed over topics) or str
    summary: str = "mean"       # mean, sum, gm (geometric mean), none (per topic only)
    per_topic: bool = True


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def _sequential_sum(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _ap(t: Topic, _p, _v):
    return [_div(_sequential_sum(t.precision_at_relevant), t.num_rel)]


def _ap_cut(t: Topic, cuts, _v):
    prec = t.precision_at_relevant
    ranks = np.flatnonzero(t.relevant) + 1
    return [_div(_sequential_sum(prec[ranks <= k]), t.num_rel) for k in cuts]


def _rprec(t: Topic, _p, _v):
    return [_div(t.rel_in_top(t.num_rel), t.num_rel)]


def _bpref(t: Topic, _p, _v):
    bound = min(t.num_rel, t.num_nonrel)
    nonrel_above = np.cumsum(t.judged & ~t.relevant)[t.relevant]
    if bound:
        terms = 1.0 - np.minimum(nonrel_above, t.num_rel) / bound
    else:
        terms = np.ones(len(nonrel_above))
    return [_div(_sequential_sum(terms), t.num_rel)]


def _recip_rank(t: Topic, _p, _v):
    ranks = np.flatnonzero(t.relevant)
    return [1.0 / (ranks[0] + 1) if len(ranks) else 0.0]


def _iprec(t: Topic, levels, version):
    prec = t.precision_at_relevant
    best_from = np.maximum.accumulate(prec[::-1])[::-1] if len(prec) else prec  # max at or after
    values = []
    for level in levels:
        needed = version.recall_cutoff(level, t.num_rel)
        if not needed:  # the best precision at any rank: 0/0 where nothing is ranked, as in trec_eval
            values.append(float(best_from[0]) if len(prec) else 0.0 if t.num_ret else math.nan)
        else:
            values.append(float(best_from[needed - 1]) if needed <= len(prec) else 0.0)
    return values


def _precision(t: Topic, cuts, _v):
    return [t.rel_in_top(k) / k for k in cuts]


def _relstring(t: Topic, _p, _v):
    chars = []
    for grade in t.grades[:10]:
        chars.append("-" if np.isnan(grade) else "." if grade < 0 else str(int(grade)))
    return ["'" + "".join(chars) + "'"]


def _recall(t: Topic, cuts, _v):
    return [_div(t.rel_in_top(k), t.num_rel) for k in cuts]


def _infap(t: Topic, _p, _v):
    # Yilmaz and Aslam's inferred AP: documents graded -1 are pooled but not judged.
    pooled = ~np.isnan(t.grades)
    sampled = t.judged
    rel_above = np.cumsum(t.relevant) - t.relevant
    sampled_above = np.cumsum(sampled) - sampled
    pooled_above = np.cumsum(pooled) - pooled
    ranks = np.arange(1, t.num_ret + 1)
    nonrel_above = sampled_above - rel_above
    expected = np.where(
        ranks == 1, 1.0,
        1.0 / ranks + (ranks - 1) / ranks * (pooled_above / np.maximum(ranks - 1, 1))
        * ((rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)))
    return [_div(_sequential_sum(expected[t.relevant]), t.num_rel)]


def _rprec_mult(t: Topic, mults, version):
    values = []
    for mult in mults:
        cut = tenth_ceiling(mult * t.num_rel)  # the same in 9.0 and 10.0
        values.append(_div(t.rel_in_top(cut), cut))
    return values


def _utility(t: Topic, _p, _v):
    return [float(t.num_rel_ret - (t.num_ret - t.num_rel_ret))]


def _11pt(t: Topic, _p, version):
    return [_sequential_sum(np.array(_iprec(t, ELEVEN_POINTS, version))) / 11]


def _gains(t: Topic) -> np.ndarray:
    return np.where(t.judged, np.maximum(np.nan_to_num(t.grades), 0.0), 0.0)


def _ideal_gains(t: Topic) -> np.ndarray:
    return np.sort(np.maximum(t.qrels_grades, 0.0))[::-1]


def _dcg(gains: np.ndarray) -> np.ndarray:
    """Cumulated discounted gain at each rank (gain / log2(rank + 1))."""
    return np.cumsum(gains / np.log2(np.arange(2, len(gains) + 2)))


def _at(values: np.ndarray, k: int) -> float:
    return float(values[min(k, len(values)) - 1]) if len(values) and k > 0 else 0.0


def _ndcg(t: Topic, _p, _v):
    ideal = _dcg(_ideal_gains(t))
    return [_div(_at(_dcg(_gains(t)), t.num_ret), _at(ideal, len(ideal)))]


def _ndcg_cut(t: Topic, cuts, _v):
    dcg, ideal = _dcg(_gains(t)), _dcg(_ideal_gains(t))
    return [_div(_at(dcg, k), _at(ideal, k)) for k in cuts]


def _positive_ideal(t: Topic) -> np.ndarray:
    """The ideal ranking's positive gains, best first (a grade is its gain)."""
    ideal = _ideal_gains(t)
    return ideal[ideal > 0]


def _rndcg(t: Topic, _p, _v):
    # nDCG averaged at the R levels: each rank where the ideal gain steps down (to the next grade, or
    # to 0 after the last positive one), the ranking's DCG there (frozen at its end when shorter) over
    # the ideal's; plus, when the ranking runs more than one past the last positive ideal document, its
    # whole DCG over the whole ideal DCG (trec_eval adds that only then).
    if not t.num_rel:
        return [0.0]
    ideal = _positive_ideal(t)
    dcg, ideal_dcg = _dcg(_gains(t)), _dcg(ideal)
    steps = np.flatnonzero(np.diff(np.append(ideal, 0.0))) + 1  # ranks after which the ideal gain changes
    terms = [_at(dcg, min(int(k), t.num_ret)) / ideal_dcg[k - 1] for k in steps]
    if t.num_ret > len(ideal) + 1:
        terms.append(_at(dcg, t.num_ret) / ideal_dcg[-1])
    return [_sequential_sum(np.array(terms)) / len(terms)]


def _ndcg_rel(t: Topic, _p, _v):
    # nDCG averaged over the documents of positive gain: at the rank of each one retrieved (the ideal
    # DCG taken no further than its positive documents), and, for each one not retrieved, the
    # ranking's whole DCG over the whole ideal DCG.
    ideal = _positive_ideal(t)
    if not len(ideal):
        return [0.0]
    gains = _gains(t)
    dcg, ideal_dcg = _dcg(gains), _dcg(ideal)
    ranks = np.flatnonzero(gains > 0)
    terms = dcg[ranks] / ideal_dcg[np.minimum(ranks, len(ideal) - 1)]
    total = _sequential_sum(terms) + (len(ideal) - len(ranks)) * _at(dcg, t.num_ret) / ideal_dcg[-1]
    return [total / len(ideal) if total > 0 else 0.0]


def _g(t: Topic, binary: bool):
    if binary:
        gains = t.relevant.astype(float)
        nonrel_above = np.cumsum(~t.relevant) - ~t.relevant
        return [_div(_sequential_sum(gains / np.log2(2 + nonrel_above)), t.num_rel)]
    # G: a document's gain over log2(2 + the ideal's cost so far - the gain so far), the ideal's cost a
    # rank being its gain, at least 1; normalised by the ideal's total gain.
    gains, ideal = _gains(t), _positive_ideal(t)
    padded = np.zeros(t.num_ret)
    padded[:min(len(ideal), t.num_ret)] = ideal[:t.num_ret]
    cost = np.cumsum(np.maximum(padded, 1.0))
    found = np.cumsum(gains)
    scored = gains != 0
    value = _sequential_sum(gains[scored] / np.log2(2 + cost[scored] - found[scored]))
    return [_div(value, _sequential_sum(ideal))]


def _relative_p(t: Topic, cuts, _v):
    return [_div(t.rel_in_top(k), min(k, t.num_rel)) for k in cuts]


def _success(t: Topic, cuts, _v):
    return [1.0 if t.rel_in_top(k) else 0.0 for k in cuts]


def _set_p(t, _p, _v):
    return [_div(t.num_rel_ret, t.num_ret)]


def _set_relative_p(t, _p, _v):
    return [_div(t.num_rel_ret, min(t.num_ret, t.num_rel))]


def _set_recall(t, _p, _v):
    return [_div(t.num_rel_ret, t.num_rel)]


def _set_map(t, _p, _v):
    return [_div(t.num_rel_ret * t.num_rel_ret, t.num_ret * t.num_rel)]


def _set_f(t, _p, _v):
    precision, recall = _set_p(t, _p, _v)[0], _set_recall(t, _p, _v)[0]
    return [_div(2 * precision * recall, precision + recall)]


def _persistence_powers(n: int) -> np.ndarray:
    """p^0 .. p^n by repeated multiplication, as trec_eval steps them (not p ** k)."""
    return np.cumprod(np.append(1.0, np.full(n, RBP_PERSISTENCE)))


def _rbp(t, _p, _v):
    # Gains are grades scaled by the topic's highest grade when that is above 1 (trec_eval normalises
    # gains to [0, 1] from the levels of its judgments).
    gains = _gains(t)
    top = float(t.qrels_grades.max(initial=0.0))
    if top > 1:
        gains = gains / top
    scored = gains != 0
    return [(1.0 - RBP_PERSISTENCE) * _sequential_sum(gains[scored] * _persistence_powers(t.num_ret)[:-1][scored])]


def _rbp_resid(t, _p, _v):
    # The residual alone: the weight of the unjudged ranks plus of the ranks past the end; 0 when every
    # retrieved document is judged (trec_eval sets it only when it met an unjudged one).
    powers = _persistence_powers(t.num_ret)
    unjudged = ~t.judged
    if not unjudged.any():
        return [0.0]
    return [powers[-1] + (1 - RBP_PERSISTENCE) * _sequential_sum(powers[:-1][unjudged])]


def _unjudged(t, cuts, _v):
    return [float((~t.judged[:k]).sum()) / k for k in cuts]


def _count(attribute: str):
    return lambda t, _p, _v: [getattr(t, attribute)]


def _nonrel_judged_ret(t, _p, _v):
    return [int((t.judged & ~t.relevant).sum())]


def _nothing(_t, _p, _v):  # runid and num_q are the writer's
    return []


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
