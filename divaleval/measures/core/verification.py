"""How each measure family's values were verified: the reference tool it reproduces, and the tests that say so.

Every registered family (generated forms included: D-, D#-, DIN-, DIN#-, IA-) has a :class:`Reference`:
the tests that check one of its values against something divaleval did not compute, each of one kind —
a reference tool's output (:data:`GOLDEN`, a golden file), a value printed in a paper (:data:`PAPER`), or
a computation by hand written out in the test (:data:`HAND`). ``tool`` names the tool whose output a
golden check compares with, and is None where no tool's output is checked.

This table is data, read twice: tests/test_catalogue.py holds every family to it (an entry for each,
naming tests that exist and name the family) and the generated measures reference
(docs/reference/measures.md, :mod:`divaleval.output.reference`) prints it.
"""
from __future__ import annotations

from dataclasses import dataclass

# How a check verifies a value.
GOLDEN, PAPER, HAND = "golden", "paper", "hand"
KINDS = {GOLDEN: "a reference tool's output", PAPER: "a value printed in the paper", HAND: "a computation by hand"}

# The reference tools whose output a golden check compares with.
NDEVAL = "ndeval"
NTCIR = "NTCIREVAL"
RBU_PROGRAM = "RBU"       # the RBU authors' program
GAP_SCRIPT = "GAP"        # the TREC Session track's GAP script
EVAL_IR = "evalIR"
TREC_EVAL_TOOL = "trec_eval"
TOOLS = (NDEVAL, NTCIR, RBU_PROGRAM, GAP_SCRIPT, EVAL_IR, TREC_EVAL_TOOL)


@dataclass(frozen=True)
class Check:
    """One test that checks a family's value: ``tests/FILE.py::TEST``, its kind, and what it compares with."""

    test: str
    kind: str
    against: str


@dataclass(frozen=True)
class Reference:
    """The tool a family reproduces (None: no tool's output is checked) and the checks of its values."""

    tool: str | None
    checks: tuple[Check, ...]


NDEVAL_CHECKS = (
    Check("test_ndeval_golden.py::test_examples_byte_for_byte", GOLDEN, "ndeval 4.5's output on its examples, "
                                                                        "byte for byte"),
    Check("test_hand.py::test_mini_example_by_hand", HAND, "a small example worked out by hand"))
NTCIR_DIVERSITY = (
    Check("test_ntcireval.py::test_tiny_diversity", GOLDEN, "NTCIREVAL's D-NTCIR-eval tables on its sample"),)
NTCIR_ADHOC = (
    Check("test_ntcireval.py::test_tiny_adhoc", GOLDEN, "NTCIREVAL's NTCIR-eval tables on its sample"),
    Check("test_graded.py::test_adhoc_measures_by_hand", HAND, "NTCIREVAL's sample worked out by hand"))
NTCIR_PER_INTENT = (
    Check("test_ntcireval.py::test_tiny_intent_aware_from_per_intent_values", GOLDEN,
          "NTCIREVAL's per-intent values on its sample, weighted by intent"),)
DIN_README = (
    Check("test_intent_types.py::test_ntcireval_readme_dinnev_lines", GOLDEN,
          "the DIN-NTCIR-eval output printed in NTCIREVAL's README.diversity"),)
DIN_UNTYPED = (
    Check("test_intent_types.py::test_without_types_every_measure_is_its_type_agnostic_form", GOLDEN,
          "NTCIREVAL's D-measure values, which the DIN-measures equal when no intent is navigational"),)
BY_HAND_IN_CATALOGUE = (
    Check("test_catalogue.py::test_din_forms_by_hand", HAND, "one topic worked out in exact fractions "
                                                             "(docs/worked-examples.md)"),)
D_SHARP_NERR_IA_P_PLUS = (
    Check("test_catalogue.py::test_d_sharp_nerr_and_ia_p_plus_by_hand", HAND,
          "one topic worked out in exact fractions (docs/worked-examples.md)"),)
P_PLUS_GOLDEN = Check("test_intent_types.py::test_p_plus_of_the_d_and_ad_hoc_measures", GOLDEN,
                      "the P-plus values NTCIREVAL prints on its sample")
P_PLUS_Q = (
    Check("test_intent_types.py::test_tiny_p_plus_q", GOLDEN,
          "NTCIREVAL's DIN-NTCIR-PQeval values on its sample with intent types"),
    Check("test_intent_types.py::test_hand_computed_values_of_the_upstream_sample", HAND,
          "NTCIREVAL's DIN sample worked out by hand"))
RBU_PAPER_FORMS = (
    Check("test_rbu_gap.py::test_eu_ct_and_srr_by_hand", HAND, "the formulas as the RBU paper writes them, "
                                                               "worked out by hand"),)
TREC_EVAL_PER_TOPIC = (
    Check("test_trec_eval_names.py::test_trec_eval_names_per_topic", GOLDEN,
          "trec_eval 10.0's per-topic values (-q -m all_trec) on the TREC 2012 Web track baselines"),)
TREC_EVAL_SUMMARIES = Check("test_trec_eval_names.py::test_summary_lines_of_the_command", GOLDEN,
                            "trec_eval 10.0's summary lines (-m all_trec; with -l 2; with -J) on the TREC 2012 "
                            "Web track baselines, as printed")
TOMA_TABLE_3 = (
    Check("test_toma.py::test_table_3", PAPER, "Table 3 of Maistro et al. (CIKM 2021)"),)


def _each(names: tuple[str, ...], reference: Reference) -> dict[str, Reference]:
    return {name: reference for name in names}


REFERENCES: dict[str, Reference] = {
    **_each(("alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "MAP-IA", "P-IA", "strec"),
            Reference(NDEVAL, NDEVAL_CHECKS)),
    **_each(("AP", "Prec", "RR", "nDCG", "Q", "ERR", "nERR", "EBR", "nEBR", "RBP", "nRBP", "iRBU", "niRBU"),
            Reference(NTCIR, NTCIR_ADHOC)),
    "P+": Reference(NTCIR, (P_PLUS_GOLDEN, Check("test_intent_types.py::test_p_plus_by_hand", HAND,
                                                 "a small example worked out by hand"))),
    "bpref": Reference(None, (Check("test_condensed.py::test_bpref_by_hand", HAND,
                                    "trec_eval's documented definition, worked out by hand"),)),
    **_each(("I-rec", "D-nDCG", "D-Q", "D-ERR", "D-nERR", "D-EBR", "D-RBP", "D-iRBU",
             "D#-nDCG", "D#-Q", "D#-ERR", "D#-EBR", "D#-RBP", "D#-RBU"), Reference(NTCIR, NTCIR_DIVERSITY)),
    "D-P+": Reference(NTCIR, (P_PLUS_GOLDEN,)),
    "D#-nERR": Reference(None, D_SHARP_NERR_IA_P_PLUS),
    **_each(("DIN-nDCG", "DIN-Q", "DIN-ERR", "DIN-nERR", "DIN-RBP", "DIN-EBR", "DIN#-nDCG", "DIN#-Q"),
            Reference(NTCIR, DIN_README)),
    **_each(("DIN-iRBU", "DIN#-RBU"), Reference(NTCIR, DIN_UNTYPED + BY_HAND_IN_CATALOGUE)),
    **_each(("DIN-P+", "DIN#-ERR", "DIN#-nERR", "DIN#-EBR", "DIN#-RBP"), Reference(None, BY_HAND_IN_CATALOGUE)),
    **_each(("P+Q", "P+Q#"), Reference(NTCIR, P_PLUS_Q)),
    **_each(("IA-nDCG", "IA-Q", "IA-ERR", "IA-nERR", "IA-RBP", "IA-iRBU"), Reference(NTCIR, NTCIR_DIVERSITY)),
    **_each(("IA-AP", "IA-Prec", "IA-RR", "IA-EBR"), Reference(NTCIR, NTCIR_PER_INTENT)),
    "IA-P+": Reference(None, D_SHARP_NERR_IA_P_PLUS),
    "RBU": Reference(RBU_PROGRAM, (
        Check("test_rbu_gap.py::test_rbu_reproduces_the_authors_program", GOLDEN,
              "the RBU authors' program on the TREC 2012 Web track runs"),
        Check("test_rbu_gap.py::test_rbu_by_hand", HAND, "a small example worked out by hand"))),
    "GAP": Reference(GAP_SCRIPT, (
        Check("test_rbu_gap.py::test_gap_reproduces_the_trec_session_script", GOLDEN,
              "the TREC Session track's GAP script on the TREC 2012 Web track runs"),
        Check("test_rbu_gap.py::test_gap_by_hand", HAND, "a small example worked out by hand"))),
    **_each(("EU", "CT", "S-RR@100%"), Reference(None, RBU_PAPER_FORMS)),
    "wg-alpha-nDCG": Reference(None, (Check("test_rbu_gap.py::test_weighted_graded_alpha_ndcg_by_hand", HAND,
                                            "a small example worked out by hand"),)),
    **_each(("NumRet", "NumRel", "NumRelRet", "R-Prec", "Recall", "Success", "SetP", "SetF", "AP_cut", "Judged"),
            Reference(TREC_EVAL_TOOL, TREC_EVAL_PER_TOPIC)),
    **_each(("IPrec", "infAP", "Unjudged"), Reference(TREC_EVAL_TOOL, TREC_EVAL_PER_TOPIC + (TREC_EVAL_SUMMARIES,))),
    "GMAP": Reference(TREC_EVAL_TOOL, (
        TREC_EVAL_SUMMARIES,
        Check("test_trec_eval_names.py::test_gmap_summary_by_hand", HAND,
              "a two-topic geometric mean with a zero AP floored, worked out by hand"))),
    **_each(("TOMA", "CAM", "MM"), Reference(None, TOMA_TABLE_3)),
    "nPrf": Reference(EVAL_IR, (
        Check("test_preferences.py::test_evalir_expected_values", GOLDEN,
              "evalIR's output on its own toy judgments"),
        Check("test_preferences.py::test_hand_example_rbp", HAND, "a small example worked out by hand"))),
}
