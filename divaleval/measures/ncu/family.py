"""The NCU family in one table: each member, its kernel, and the forms it has.

Forms: ad hoc (on topicwise gains, :mod:`.adhoc`), D- (on global gains) and D#-
(gamma I-rec + (1-gamma) D-; :mod:`.diversity`), IA- (per intent, :mod:`.intent_aware`).
``binary`` members see only whether a document has a gain (TOMA binarises for them).
A new member is one line here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core import (
    OPTIONAL,
    REQUIRED,
    Param,
    in_open_unit_interval,
    memoised,
    non_negative,
)
from .kernels import (
    USUAL_BETA,
    USUAL_IRBU_P,
    USUAL_RBP_P,
    average_precision,
    dcg,
    ebr,
    err,
    irbu,
    normalised,
    p_plus,
    precision,
    q_measure,
    rbp,
    reciprocal_rank,
)
from .lists import GainList

ADHOC, D, D_SHARP, IA = "ad hoc", "D", "D#", "IA"

BETA = Param("beta", float, USUAL_BETA, "weight of the cumulative gain in the blended ratio BR (Q, EBR)", non_negative)
P_RBP = Param("p", float, USUAL_RBP_P, "persistence of the rank-biased user (NTCIREVAL's default)",
              in_open_unit_interval)
P_IRBU = Param("p", float, USUAL_IRBU_P, "persistence of the rank-biased user (NTCIREVAL's default)",
               in_open_unit_interval)


@dataclass(frozen=True, eq=False)
class Member:
    """One measure of the family: its name, kernel, parameters, cutoff rule, summary and forms. Each is one
    object, equal only to itself: a key of the memo of its values hashes as cheaply as an object can."""

    name: str
    kernel: Callable[..., np.ndarray]
    params: tuple[Param, ...]
    cutoff: str
    summary: str
    forms: frozenset[str]
    binary: bool = False
    sharp_name: str | None = None   # the name of its D# form, where not its own (D#-RBU from iRBU)


def _member(name, kernel, params, cutoff, summary, *forms, binary=False, sharp_name=None) -> Member:
    return Member(name, kernel, tuple(params), cutoff, summary, frozenset(forms), binary, sharp_name)


FAMILY = (
    _member("nDCG", normalised(dcg), (), OPTIONAL, "DCG with discount 1/log2(r+1) over the ideal's (MSnDCG)",
            ADHOC, D, D_SHARP, IA),
    _member("Q", q_measure, (BETA,), OPTIONAL, "mean blended ratio BR at the relevant ranks", ADHOC, D, D_SHARP, IA),
    _member("AP", average_precision, (), OPTIONAL, "average precision over min(k, R)", ADHOC, IA, binary=True),
    _member("Prec", precision, (), REQUIRED, "relevant documents in the top k, over k", ADHOC, IA, binary=True),
    _member("RR", reciprocal_rank, (), OPTIONAL, "1 / the rank of the first relevant document", ADHOC, IA,
            binary=True),
    _member("ERR", err, (), OPTIONAL, "expected reciprocal rank, s(r) = g(r)/(hg+1)", ADHOC, D, D_SHARP, IA),
    _member("nERR", normalised(err), (), OPTIONAL, "ERR over the ideal list's ERR", ADHOC, D, D_SHARP, IA),
    _member("EBR", ebr, (BETA,), OPTIONAL, "expected blended ratio: sum of P_ERR(r) BR(r)", ADHOC, D, D_SHARP, IA),
    _member("nEBR", normalised(ebr), (BETA,), OPTIONAL, "EBR over the ideal list's EBR", ADHOC),
    _member("RBP", rbp, (P_RBP,), OPTIONAL, "rank-biased precision of g(r)/hg", ADHOC, D, D_SHARP, IA),
    _member("nRBP", normalised(rbp), (P_RBP,), OPTIONAL, "RBP over the ideal list's RBP", ADHOC),
    _member("iRBU", irbu, (P_IRBU,), OPTIONAL, "intentwise rank-biased utility: sum of P_ERR(r) p^r",
            ADHOC, D, D_SHARP, IA, sharp_name="RBU"),
    _member("niRBU", normalised(irbu), (P_IRBU,), OPTIONAL, "iRBU over the ideal list's iRBU", ADHOC),
    _member("P+", p_plus, (BETA,), OPTIONAL, "mean BR at the relevant ranks down to the first rank of the "
            "largest gain in the top k (P-plus, for navigational needs)", ADHOC, D, IA),
)
BY_NAME = {m.name: m for m in FAMILY}


@memoised
def _member_value(gains: GainList, member: Member, cutoff: int | None, params: tuple) -> np.ndarray:
    return member.kernel(gains, cutoff, **dict(params))


def member_value(gains: GainList, member: Member, cutoff: int | None, params: dict) -> np.ndarray:
    """The member's values on these gains, once per gain list, cutoff and parameters (D- and D#- share)."""
    return _member_value(gains, member, cutoff, tuple(sorted(params.items())))


def members(form: str) -> list[Member]:
    """The members that have ``form``."""
    return [m for m in FAMILY if form in m.forms]


def defaults(member: Member) -> dict:
    """The member's parameters at their defaults (how TOMA, CAM and MM call it)."""
    return {p.name: p.default for p in member.params}
