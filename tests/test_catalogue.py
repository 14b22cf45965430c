"""The catalogue's contract: every registered measure family has a value from an independent reference.

REFERENCES (divaleval/measures/core/verification.py, which the generated docs/reference/measures.md
prints) maps each family (generated forms included: D-, D#-, DIN-, DIN#-, IA-) to the reference tool it
reproduces and the tests that check one of its values against something divaleval did not compute: a
reference tool's output (a golden file), a value printed in a paper, or a computation by hand written out
in the test. A family registered without an entry fails :func:`test_every_family_has_an_independent_reference`;
an entry must name an existing test whose module (or the oracle table it imports) names the family.

The families no other test reached are computed by hand below, on one tiny topic, with exact
fractions; docs/worked-examples.md writes out the same arithmetic.
"""
from __future__ import annotations

import ast
import re
from fractions import Fraction as F
from pathlib import Path

import pytest

import divaleval
from divaleval.measures.core.verification import GOLDEN, HAND, PAPER, REFERENCES

pytestmark = pytest.mark.golden

TESTS = Path(__file__).resolve().parent


# -- the contract ------------------------------------------------------------------------------------------

def test_every_family_has_an_independent_reference():
    registered = {definition.name for definition in divaleval.catalogue()}
    missing = sorted(registered - set(REFERENCES))
    assert not missing, f"registered without a reference value (add one and an entry in REFERENCES): {missing}"
    assert not sorted(set(REFERENCES) - registered), "REFERENCES names a family that is not registered"


def _module_text(path: Path) -> str:
    """A test module's text with that of the test modules it imports (the oracle tables that name measures)."""
    text = path.read_text()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and (TESTS / f"{node.module}.py").exists():
            text += (TESTS / f"{node.module}.py").read_text()
    return text


def _names(text: str, family: str) -> bool:
    return re.search(r"(?<![\w#+-])" + re.escape(family) + r"(?![\w#+-])", text) is not None


@pytest.mark.parametrize("family", sorted(REFERENCES))
def test_each_reference_is_a_test_that_names_the_family(family):
    reference = REFERENCES[family]
    checks = reference.checks
    assert checks and all(check.kind in (GOLDEN, PAPER, HAND) for check in checks)
    # A tool is named exactly where its output is checked.
    assert (reference.tool is not None) == any(check.kind == GOLDEN for check in checks), family
    named = False
    for check in checks:
        file_name, _, test_name = check.test.partition("::")
        path = TESTS / file_name
        tree = ast.parse(path.read_text())
        assert any(isinstance(node, ast.FunctionDef) and node.name == test_name for node in tree.body), check.test
        named = named or _names(_module_text(path), family)
    assert named, f"no test REFERENCES gives for {family} names it"


# -- by hand: the families no other test reaches -------------------------------------------------------------
#
# One topic, two intents of probability 1/2: intent 1 navigational, intent 2 informational. Levels with the
# default gains 2^L - 1: a is L1 for both intents, b and d L1 for intent 1, c L2 (gain 3) for intent 2.
# Global gains GG = sum_i P(i) gain_i: a 1, b 1/2, c 3/2, d 1/2. The run ranks b, a, x (unjudged), c, d.
QRELS = ["1 1 a 1", "1 2 a 1", "1 1 b 1", "1 2 c 2", "1 1 d 1"]
IPROB = ["1 1 0.5 nav", "1 2 0.5 inf"]
RUN = ["1 Q0 b 1 5 r", "1 Q0 a 2 4 r", "1 Q0 x 3 3 r", "1 Q0 c 4 2 r", "1 Q0 d 5 1 r"]
HALF = F(1, 2)


def evaluate(tmp_path, measures):
    paths = []
    for name, lines in (("qrels", QRELS), ("iprob", IPROB), ("run", RUN)):
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(line + "\n" for line in lines))
    qrels, iprob, run = paths
    frame = divaleval.evaluate(str(qrels), str(run), measures=measures, iprob=str(iprob), warn=lambda message: None)
    return frame.iloc[0, 2:].to_dict()


# The D-measures' ideal list is every document by GG: c 3/2, a 1, b 1/2, d 1/2; its largest gain hg = 3/2.
IDEAL = [F(3, 2), F(1), F(1, 2), F(1, 2)]
IDEAL_CG = [F(3, 2), F(5, 2), F(3), F(7, 2)]      # cg*(r), r = 1..4 (and 7/2 below)
STOP = 1 / (F(3, 2) + 1)                         # s(r) = g(r)/(hg + 1) = g(r) * 2/5
# The ideal list's ERR: s = 3/5, 2/5, 1/5, 1/5; P_ERR = 3/5, (2/5)(2/5), (2/5)(3/5)(1/5), (2/5)(3/5)(4/5)(1/5).
IDEAL_ERR = F(3, 5) / 1 + F(4, 25) / 2 + F(6, 125) / 3 + F(24, 625) / 4   # = 441/625

# DIN gains GG': b 1/2 (intent 1, navigational, served first); a 1/2 (intent 1 served above: only intent 2's
# 1/2); x 0; c 3/2; d 0 (intent 1 served above). Relevant ranks 1, 2, 4; I-rec@10 = 2/2 = 1.
# BR(r) = (C(r) + cg(r)) / (r + cg*(r)): BR(1) = (1 + 1/2)/(1 + 3/2) = 3/5, BR(2) = (2 + 1)/(2 + 5/2) = 2/3,
# BR(4) = (3 + 5/2)/(4 + 7/2) = 11/15.
DIN_BR = {1: F(3, 5), 2: F(2, 3), 4: F(11, 15)}
# P_ERR: rank 1 s = 1/5; rank 2 s = 1/5 after 4/5; rank 4 s = 3/5 after (4/5)(4/5).
DIN_P_ERR = {1: F(1, 5), 2: F(4, 5) * F(1, 5), 4: F(16, 25) * F(3, 5)}
DIN_ERR = DIN_P_ERR[1] / 1 + DIN_P_ERR[2] / 2 + DIN_P_ERR[4] / 4                      # = 47/125
DIN_EBR = sum(DIN_P_ERR[r] * DIN_BR[r] for r in DIN_P_ERR)                            # = 953/1875
P = F(19, 20)                                                                         # RBP's p = 0.95
DIN_RBP = (1 - P) * (HALF / F(3, 2) + P * HALF / F(3, 2) + P ** 3 * F(3, 2) / F(3, 2))
P_IRBU = F(99, 100)                                                                   # iRBU's p = 0.99
DIN_IRBU = DIN_P_ERR[1] * P_IRBU + DIN_P_ERR[2] * P_IRBU ** 2 + DIN_P_ERR[4] * P_IRBU ** 4
DIN_HAND = {
    # rp = 4 (the largest gain of the top 10, 3/2, is c's); the mean BR over the relevant ranks 1, 2, 4.
    "DIN-P+@10": (DIN_BR[1] + DIN_BR[2] + DIN_BR[4]) / 3,                             # = 2/3
    "DIN#-ERR@10": HALF * 1 + HALF * DIN_ERR,                                         # = 86/125
    "DIN#-nERR@10": HALF * 1 + HALF * DIN_ERR / IDEAL_ERR,                            # = 338/441
    "DIN#-EBR@10": HALF * 1 + HALF * DIN_EBR,                                         # = 1414/1875
    "DIN#-RBP@10": HALF * 1 + HALF * DIN_RBP,
    "DIN-iRBU@10": DIN_IRBU,
    "DIN#-RBU@10": HALF * 1 + HALF * DIN_IRBU,
}


def test_the_worked_fractions():
    # The fractions docs/worked-examples.md prints, from the sums above.
    assert (IDEAL_ERR, DIN_ERR, DIN_EBR) == (F(441, 625), F(47, 125), F(953, 1875))
    assert [DIN_HAND[name] for name in ("DIN-P+@10", "DIN#-ERR@10", "DIN#-nERR@10", "DIN#-EBR@10")] == [
        F(2, 3), F(86, 125), F(338, 441), F(1414, 1875)]
    assert D_SHARP_NERR == F(1, 2) + F(229, 735) and IA_P_PLUS == F(37, 48)


def test_din_forms_by_hand(tmp_path):
    got = evaluate(tmp_path, list(DIN_HAND))
    for name, value in DIN_HAND.items():
        assert got[name] == pytest.approx(float(value), abs=1e-12), name


# D-nERR on GG (no type): b 1/2, a 1, x 0, c 3/2, d 1/2; s = 1/5, 2/5, 0, 3/5, 1/5.
# P_ERR: 1/5; (4/5)(2/5); 0; (4/5)(3/5)(3/5); (4/5)(3/5)(2/5)(1/5).
D_ERR = F(1, 5) / 1 + F(8, 25) / 2 + F(36, 125) / 4 + F(24, 625) / 5                 # = 1374/3125
D_SHARP_NERR = HALF * 1 + HALF * D_ERR / IDEAL_ERR                                    # = 1/2 + 229/735
# IA-P+: intent 1 (gains 1 for a, b, d): run gains 1, 1, 0, 0, 1, ideal 1, 1, 1; rp = 1, BR(1) = (1 + 1)/(1 + 1).
# Intent 2 (a gain 1, c gain 3): run gains 0, 1, 0, 3, 0, ideal 3, 1 (cg* 3, 4, 4, 4); rp = 4;
# BR(2) = (1 + 1)/(2 + 4) = 1/3, BR(4) = (2 + 4)/(4 + 4) = 3/4; P+_2 = (1/3 + 3/4)/2 = 13/24.
IA_P_PLUS = HALF * F(2, 2) + HALF * (F(1, 3) + F(3, 4)) / 2                            # = 37/48


def test_d_sharp_nerr_and_ia_p_plus_by_hand(tmp_path):
    got = evaluate(tmp_path, ["D#-nERR@10", "IA-P+@10"])
    assert got["D#-nERR@10"] == pytest.approx(float(D_SHARP_NERR), abs=1e-12)
    assert got["IA-P+@10"] == pytest.approx(float(IA_P_PLUS), abs=1e-12)
