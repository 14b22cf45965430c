"""The names other tools give divaleval's measures: one table, read by the registry and the catalogue.

* ir_measures (its diversity measures, computed by pyndeval, are ndeval's): its
  ``rel`` and ``judged_only`` parameters are accepted at their defaults, which
  are what divaleval computes;
* trec_eval: ``name.k1,k2`` (``-m ndcg_cut.10,20``), and a name alone for its
  default cutoffs. trec_eval's ndcg takes the level itself as the gain: add
  ``--gain linear`` to follow it (divaleval's default gain is 2^L - 1).

A name enters this table only where the other tool's definition is divaleval's, up to
settings the user chooses (trec_eval's ndcg is divaleval's nDCG with ``--gain linear``);
a name whose definition differs has its own family (trec_eval's map_cut divides by R,
divaleval's AP@k by min(k, R): map_cut is AP_cut).
"""
from __future__ import annotations

from dataclasses import dataclass

IR_MEASURES, TREC_EVAL = "ir_measures", "trec_eval"
# Parameters of ir_measures that divaleval has no use for, at the values that mean what divaleval computes.
IR_MEASURES_DEFAULTS = (("rel", "1"), ("judged_only", "False"))
TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)


@dataclass(frozen=True)
class Alias:
    """Another tool's name for a measure family.

    accepted: that tool's parameters with the value each must have (anything
        else has no equivalent here); cutoffs: what the name alone means (trec_eval).
    """

    name: str
    target: str
    tool: str
    accepted: tuple[tuple[str, str], ...] = ()
    cutoffs: tuple[int, ...] = ()


def _ir_measures(name: str, target: str) -> Alias:
    return Alias(name, target, IR_MEASURES, IR_MEASURES_DEFAULTS)


ALIASES: tuple[Alias, ...] = (
    _ir_measures("alpha_nDCG", "alpha-nDCG"),
    _ir_measures("α_nDCG", "alpha-nDCG"),
    _ir_measures("alpha_DCG", "alpha-DCG"),
    _ir_measures("α_DCG", "alpha-DCG"),
    _ir_measures("ERR_IA", "ERR-IA"),
    _ir_measures("nERR_IA", "nERR-IA"),
    _ir_measures("NRBP", "NRBP"),
    _ir_measures("nNRBP", "nNRBP"),
    _ir_measures("AP_IA", "MAP-IA"),
    _ir_measures("MAP_IA", "MAP-IA"),
    _ir_measures("P_IA", "P-IA"),
    _ir_measures("StRecall", "strec"),
    _ir_measures("R", "Recall"),
    _ir_measures("Rprec", "R-Prec"),
    _ir_measures("SetR", "Recall"),
    _ir_measures("MRR", "RR"),
    Alias("map", "AP", TREC_EVAL),
    Alias("map_cut", "AP_cut", TREC_EVAL, cutoffs=TREC_EVAL_CUTOFFS),
    Alias("Rprec", "R-Prec", TREC_EVAL),
    Alias("num_ret", "NumRet", TREC_EVAL),
    Alias("num_rel", "NumRel", TREC_EVAL),
    Alias("num_rel_ret", "NumRelRet", TREC_EVAL),
    Alias("recall", "Recall", TREC_EVAL, cutoffs=TREC_EVAL_CUTOFFS),
    Alias("set_recall", "Recall", TREC_EVAL),
    Alias("success", "Success", TREC_EVAL, cutoffs=SUCCESS_CUTOFFS),
    Alias("set_P", "SetP", TREC_EVAL),
    Alias("set_F", "SetF", TREC_EVAL),
    Alias("P", "Prec", TREC_EVAL, cutoffs=TREC_EVAL_CUTOFFS),
    Alias("recip_rank", "RR", TREC_EVAL),
    Alias("ndcg", "nDCG", TREC_EVAL),
    Alias("ndcg_cut", "nDCG", TREC_EVAL, cutoffs=TREC_EVAL_CUTOFFS),
)


def trec_eval_name(family: str, changed_params: bool, cutoff: int | None) -> str | None:
    """What trec_eval prints for this measure (``P_5``, ``ndcg_cut_10``, ``map``), or None where it has no name.

    Only a measure at its default parameters has one: the name of the trec_eval alias of its family, with
    ``_k`` where the alias takes cutoffs and the measure has cutoff k, alone where neither has one (the
    output of ``-f trec`` uses it, so that scripts written for trec_eval read divaleval's).
    """
    if changed_params:
        return None
    for alias in ALIASES:
        if alias.tool == TREC_EVAL and alias.target == family and bool(alias.cutoffs) == (cutoff is not None):
            return f"{alias.name}_{cutoff}" if alias.cutoffs else alias.name
    return None
