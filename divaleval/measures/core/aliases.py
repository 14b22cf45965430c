"""The names other tools give divaleval's measures: one table, read by the registry and the catalogue.

* ir_measures (its diversity measures, computed by pyndeval, are ndeval's): its
  ``rel`` and ``judged_only`` parameters are accepted at their defaults, which
  are what divaleval computes;
* trec_eval: ``name.k1,k2`` (``-m ndcg_cut.10,20``), and a name alone for its
  default cutoffs. trec_eval's ndcg takes the level itself as the gain: add
  ``--gain linear`` to follow it (divaleval's default gain is 2^L - 1).
* A name may set a parameter where the other tool writes a cutoff: trec_eval's
  ``iprec_at_recall.0.10,0.20`` and ir_measures' ``IPrec@0.1`` are divaleval's
  ``IPrec(recall=0.1)`` (``parameter`` says which).

Where another tool gives one of divaleval's own names another meaning, divaleval's
keeps its own: ir_measures' ``AP@k`` is trec_eval's map_cut, divaleval's ``AP_cut@k``
(and ir_measures' other name for it, ``MAP@k``, is an alias of it here), while
divaleval's ``AP@k`` is NTCIREVAL's, over min(k, R); ir_measures' ``nDCG`` takes the
level as the gain (``--gain linear``), as trec_eval's does; its ``Judged@k`` counts
documents judged only negatively as judged and divides by min(k, ranked), where
divaleval's (trec_eval's unj) does neither; its ``IPrec@x`` is trec_eval 9.0's, whose
recall levels stand for a nearly rounded-up number of documents where 10.0 (and
divaleval) round x R.

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
UNJUDGED_CUTOFFS = (5, 10, 20)
RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))  # iprec_at_recall alone: 0.0, 0.1, ... 1.0


@dataclass(frozen=True)
class Alias:
    """Another tool's name for a measure family.

    accepted: that tool's parameters with the value each must have (anything
        else has no equivalent here); cutoffs: what the name alone means (trec_eval);
        parameter: the family's parameter that the tool writes where a cutoff goes
        (``.x`` in trec_eval, ``@x`` in ir_measures), None where it writes a cutoff;
        with_cutoff: the family the name means when a cutoff is given, where not ``target``
        (ir_measures' MAP is AP, its MAP@k trec_eval's map_cut).
    """

    name: str
    target: str
    tool: str
    accepted: tuple[tuple[str, str], ...] = ()
    cutoffs: tuple[int | float, ...] = ()
    parameter: str | None = None
    with_cutoff: str | None = None

    @property
    def written(self) -> str:
        """How the name is written with its values: ``P.k``, ``iprec_at_recall.recall``, ``IPrec@recall``."""
        if self.parameter is not None:
            return f"{self.name}{'@' if self.tool == IR_MEASURES else '.'}{self.parameter}"
        if self.with_cutoff is not None:
            return f"{self.name}[@k]"
        return f"{self.name}.k" if self.cutoffs else self.name


def _ir_measures(name: str, target: str, parameter: str | None = None) -> Alias:
    return Alias(name, target, IR_MEASURES, IR_MEASURES_DEFAULTS, parameter=parameter)


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
    _ir_measures("RPrec", "R-Prec"),
    _ir_measures("SetR", "Recall"),
    _ir_measures("MRR", "RR"),
    Alias("MAP", "AP", IR_MEASURES, IR_MEASURES_DEFAULTS, with_cutoff="AP_cut"),
    _ir_measures("IPrec", "IPrec", parameter="recall"),
    _ir_measures("infAP", "infAP"),
    Alias("map", "AP", TREC_EVAL),
    Alias("map_cut", "AP_cut", TREC_EVAL, cutoffs=TREC_EVAL_CUTOFFS),
    Alias("gm_map", "GMAP", TREC_EVAL),
    Alias("iprec_at_recall", "IPrec", TREC_EVAL, cutoffs=RECALL_LEVELS, parameter="recall"),
    Alias("infAP", "infAP", TREC_EVAL),
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
    Alias("unj", "Unjudged", TREC_EVAL, cutoffs=UNJUDGED_CUTOFFS),
)


def trec_eval_name(family: str, params: dict, changed: set[str], cutoff: int | None) -> str | None:
    """What trec_eval prints for this measure (``P_5``, ``ndcg_cut_10``, ``map``, ``iprec_at_recall_0.10``),
    or None where it has none.

    params: the measure's parameters; changed: those not at their defaults. A measure has a name where its
    parameters are at their defaults, but for the one a trec_eval alias sets (the recall level of
    iprec_at_recall): the alias' name, with ``_k`` where it takes cutoffs and the measure has cutoff k
    (``_x``, two decimals, for the parameter it sets), alone where neither has one. The output of
    ``-f trec`` uses it, so that scripts written for trec_eval read divaleval's.
    """
    for alias in ALIASES:
        if alias.tool != TREC_EVAL or alias.target != family:
            continue
        if alias.parameter is not None:
            if cutoff is None and changed <= {alias.parameter}:
                return f"{alias.name}_{params[alias.parameter]:.2f}"
        elif not changed and bool(alias.cutoffs) == (cutoff is not None):
            return f"{alias.name}_{cutoff}" if alias.cutoffs else alias.name
    return None
