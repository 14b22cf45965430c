"""nPrf@K, the preference-based measure of novelty and diversity (Chandar & Carterette 2013)."""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import PREFERENCES, REQUIRED, Param, measure
from .utility import F_CHOICES, MISSING_CHOICES, greedy_ideal, largest_utilities, ranked_rows, ranking_utilities

STOPPING = ("rbp", "dcg", "rr", "none")
TAILS = ("drop", "stop")
THETA_DEFAULT = 0.5


def _stopping_probability(value: float) -> str | None:
    return None if 0.0 < value <= 1.0 else "must be in (0, 1]"


def stopping(p: str, theta: float, depth: int) -> tuple[np.ndarray, float]:
    """(P(k) for k = 1..depth, the probability mass of P beyond depth).

    rbp: (1-theta)^(k-1) theta; dcg: 1/log2(k+1) - 1/log2(k+2); rr: 1/(k(k+1));
    none: 1 at every rank (no stopping model; nothing beyond).
    """
    k = np.arange(1, depth + 1, dtype=np.float64)
    if p == "rbp":
        return np.power(1.0 - theta, k - 1.0) * theta, float((1.0 - theta) ** depth)
    if p == "dcg":
        return 1.0 / np.log2(k + 1.0) - 1.0 / np.log2(k + 2.0), float(1.0 / np.log2(depth + 2.0))
    if p == "rr":
        return 1.0 / (k * (k + 1.0)), 1.0 / (depth + 1.0)
    return np.ones(depth), 0.0


def prf(utilities: np.ndarray, probability: np.ndarray, beyond: float, tail: str, weighted_sums: bool) -> np.ndarray:
    """(T,) Prf@K of (T, K) utilities: sum_{k<=K} P(k) sum_{i<=k} U_i (+ beyond x sum_{i<=K} U_i with tail=stop).

    weighted_sums: sum_{k<=K} sum_{i<=k} P(i) U_i instead (a tool's rule).
    """
    if weighted_sums:
        return np.cumsum(utilities * probability, axis=1).sum(axis=1)
    seen = np.cumsum(utilities, axis=1)
    value = (seen * probability).sum(axis=1)
    return value + beyond * seen[:, -1] if tail == "stop" else value


def _check_binding(params: dict, cutoff: int | None) -> str | None:
    if params["p"] != "rbp" and params["theta"] != THETA_DEFAULT:
        return "theta is the stopping probability of p=rbp; it means nothing for p=" + params["p"]
    if params["p"] == "none" and params["tail"] == "stop":
        return "tail=stop needs a stopping distribution (p=rbp, dcg or rr): with p=none there is no mass beyond K"
    return None


@measure(
    name="nPrf",
    summary="preference-based (--prefs): U(d) = preferred/compared in pairwise judgments (in triplets where a "
            "topic has none), U(d|g) the same in triplets given g; rank 1 U(d_1), rank i F = avg|min of U(d_i|d_j), "
            "j < i, a pair never judged U(d_i) (missing=unconditional) or 0; Prf@K = sum_{k<=K} P(k) "
            "sum_{i<=k} U_i, P(k) rbp|dcg|rr|none, mass beyond K left out (tail=drop) or added at K; over the "
            "greedy ideal (ties: greatest docno)",
    params=[
        Param("p", str, "rbp", "the user's stopping distribution P(k)", choices=STOPPING),
        Param("theta", float, THETA_DEFAULT, "P_RBP(k) = (1-theta)^(k-1) theta", _stopping_probability),
        Param("f", str, "avg", "F: how U(d_i | d_j), j < i, make the utility at rank i", choices=F_CHOICES),
        Param("missing", str, "unconditional", "U(d_i | d_j) never judged: U(d_i), or 0", choices=MISSING_CHOICES),
        Param("tail", str, "drop", "P(k) beyond K: left out (the paper), or added to P(K)", choices=TAILS),
    ],
    cutoff=REQUIRED,
    judgments=PREFERENCES,
    check_binding=_check_binding,
    citation="Chandar, Carterette. Preference based evaluation measures for novelty and diversity. SIGIR 2013",
)
def nprf(ctx: RunContext, *, p: str, theta: float, f: str, missing: str, tail: str, cutoff: int) -> np.ndarray:
    """nPrf@K = Prf@K(run) / Prf@K(greedy ideal);  Prf@K = sum_{k<=K} P(k) sum_{i<=k} U(d_i | d_1..d_{i-1})

    U(d) = times d was preferred / times d was compared, over the pairwise
    judgments of its topic (a topic without any: over its triplets, the given
    document ignored); U(d | g) the same over the triplets with g given.
    Assessors add up; -2 / -3 ("neither") count as an appearance of both.
    Plain ratios: an estimate of nothing shown is undefined.
    Utility at rank 1: U(d_1); at rank i >= 2: F({U(d_i | d_j)}, j < i),
    F = avg or min; an undefined U(d_i | d_j) is U(d_i) (missing=unconditional,
    the default: a triplet with that given document would have been a pairwise
    judgment) or 0 (missing=zero); a document nobody judged has utility 0.
    P(k): rbp (1-theta)^(k-1) theta (theta = 0.5 by default, the value of the
    authors' package: the paper gives none), dcg 1/log2(k+1) - 1/log2(k+2),
    rr 1/(k(k+1)), none 1. Mass beyond K: left out (tail=drop, the paper's
    sum cut at K) or given to rank K (tail=stop). Greedy ideal: rank 1 the
    compared document of largest U(d), then the largest utility given those
    placed; exact ties to the greatest docno. Not always optimal: values
    above 1 are possible and not clamped. Undefined (0/0, printed as 0) for a
    topic where nothing was ever preferred.
    """
    qrels = ctx.qrels
    rules = ctx.settings.conventions.preference_rules
    probability, beyond = stopping(p, theta, cutoff)
    weighted = rules.cumulate_weighted_utility
    run = ranking_utilities(qrels.judgments, ranked_rows(ctx, cutoff), f, missing, rules)
    if rules.ideal == "largest":
        ideal = largest_utilities(qrels, rules, cutoff)
    else:
        ideal = greedy_ideal(qrels, f, missing, rules, cutoff)
    ideal_value = prf(ideal[ctx.topics], probability, beyond, tail, weighted)
    run_value = prf(run, probability, beyond, tail, weighted)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal_value > 0, run_value / ideal_value, np.nan)
