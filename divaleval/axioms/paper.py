"""The RBU paper's Table 1, rebuilt from the prose of its section 4, and the measures that stand for its rows.

The text extraction of the paper lost the table's symbols, so each cell below
comes from a sentence of sections 4-5 (quoted in ``SOURCES``). A cell is
``stated`` when a sentence says it of that metric, ``implied`` when it follows
from a general sentence ("intent-aware metrics inherit the relevance
properties of the original metric", "none of the previous metrics satisfy
Conf", "ERR-IA@k is the only metric that satisfies all five diversity
constraints") or is left to the reader; ``?`` marks a cell on which two
sentences disagree.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..measures import Measure

KEYS = ("Pri", "Deep", "DeepTh", "CloseTh", "Conf", "AspDiv", "Red", "MRed", "Sat", "AspRel")
WORDS = {"Y": "yes", "N": "no", "U": "undef", "?": "?"}


@dataclass(frozen=True)
class PaperRow:
    name: str                     # as the paper writes it
    families: tuple[str, ...]     # divaleval definitions standing for it (their names, any cutoff)
    defaults: tuple[str, ...]     # the measures of the default set for this row
    cells: str                    # Y, N, U or ? for each of KEYS, as the prose says
    implied: str = ""             # constraints whose cell is implied, not stated (space-separated keys)
    note: str = ""                # why, where the prose is ambiguous

    def says(self, key: str) -> str:
        return WORDS[self.cells.replace(" ", "")[KEYS.index(key)]]

    def is_implied(self, key: str) -> bool:
        return key in self.implied.split()


# Pri Deep DeepTh CloseTh Conf | AspDiv Red MRed Sat AspRel
PAPER_ROWS = [
    PaperRow("P@k", ("Prec",), ("Prec@10",), "UUYNN NNNNN", "",
             "Pri, Deep: sec. 4.1 says undefined (graded relevance); its footnote 2 says P@k fails them"),
    PaperRow("RR", ("RR",), ("RR",), "UUYNN NNNNN", ""),
    PaperRow("AP", ("AP",), ("AP",), "UUNYN NNNNN", ""),
    PaperRow("nDCG@k", ("nDCG",), ("nDCG@10",), "YYNYN NNNNN", ""),
    PaperRow("ERR@k", ("ERR",), ("ERR@10",), "YYYNN NNNNN", ""),
    PaperRow("RBP", ("RBP",), ("RBP",), "YYYYN NNNNN", ""),
    PaperRow("P-IA@k", ("IA-Prec", "P-IA"), ("IA-Prec@10", "P-IA@10"), "UUYNN UNNNY", "MRed"),
    PaperRow("RR-IA", ("IA-RR",), ("IA-RR",), "UUYNN UNNYY", "MRed"),
    PaperRow("AP-IA", ("IA-AP", "MAP-IA"), ("IA-AP", "MAP-IA"), "UUNYN UNNNY", "MRed"),
    PaperRow("nDCG-IA@k", ("IA-nDCG",), ("IA-nDCG@10",), "YYNYN YNNNY", "MRed"),
    PaperRow("ERR-IA@k", ("IA-ERR", "ERR-IA"), ("IA-ERR@10", "ERR-IA@10"), "YYYNN YYYYY", ""),
    PaperRow("RBP-IA", ("IA-RBP",), ("IA-RBP",), "YYYYN YNNNY", "MRed"),
    PaperRow("S-Recall@k", ("strec", "I-rec"), ("strec@10",), "NNYNN NNNYN", "DeepTh"),
    PaperRow("S-RR@100%", ("S-RR@100%",), ("S-RR@100%",), "NNYNN NNNYN", "DeepTh",
             "'satisfies the same properties as S-Recall@k'"),
    PaperRow("NRBP", ("NRBP",), ("NRBP",), "YYYYN YYNNN", ""),
    PaperRow("D#-Measure@k", ("D#-nDCG", "D#-ERR", "D#-RBP", "D#-Q", "D#-EBR", "D#-nERR", "D#-RBU"),
             ("D#-nDCG@10", "D#-ERR@10", "D#-RBP@10"), "YY?YN YNNNY", "",
             "'inherits the properties from nDCG-IA@k, which already satisfies DeepTh and AspRel' (sec. 4.3, "
             "printed as NRBP), while sec. 4.1-4.2 say nDCG and nDCG-IA fail DeepTh"),
    PaperRow("alpha-nDCG@k", ("alpha-nDCG", "wg-alpha-nDCG"), ("alpha-nDCG@10", "wg-alpha-nDCG@10"),
             "YYYYN YYNNN", ""),
    PaperRow("EU", ("EU",), ("EU",), "YYYYY YYNNY", "",
             "'EU inherits the alpha-nDCG@k properties, but capturing AspRel and Conf'"),
    PaperRow("CT@k", ("CT",), ("CT@10",), "YYYNN YYNYY", "Pri Deep DeepTh AspDiv Red MRed",
             "the prose states only Sat, CloseTh and Conf; the rest follows its alpha-nDCG-like form, and MRed "
             "from 'ERR-IA@k is the only metric that satisfies all the five diversity-oriented constraints'"),
    PaperRow("RBU@k", ("RBU",), ("RBU@10", "RBU"), "YYYYY YYYYY", "", "sec. 5 and the appendix's proofs"),
]

# Where each stated cell comes from (for docs/decisions/axioms.md and --explain's reader).
SOURCES = {
    "4.1": "nDCG@k, ERR@k and RBP satisfy Pri and Deep; metrics that reward relevance in deep positions (AP, "
           "nDCG@k) satisfy CloseTh but not DeepTh; metrics that focus on the top (P@k, RR, ERR@k) satisfy DeepTh "
           "but not CloseTh; RBP satisfies both; none satisfies Conf; none satisfies a diversity constraint; "
           "RR, AP and P@k are undefined for Pri and Deep (graded relevance).",
    "4.2": "intent-aware metrics inherit the relevance properties; nDCG-IA, ERR-IA and RBP-IA satisfy AspDiv "
           "(P-IA, RR-IA, AP-IA undefined); P-IA, RR-IA, AP-IA, nDCG-IA, RBP-IA fail Red; ERR-IA satisfies Red "
           "and MRed; P-IA, AP-IA, nDCG-IA, RBP-IA fail Sat, RR-IA and ERR-IA satisfy it; all satisfy AspRel.",
    "4.3": "S-Recall@k fails Pri, Deep, CloseTh, Conf and satisfies only Sat among the diversity constraints; "
           "S-RR@100% likewise; alpha-nDCG@k satisfies Pri, Deep, CloseTh, DeepTh, Red, AspDiv, fails MRed, Sat, "
           "AspRel; NRBP all relevance constraints but Conf, diversity as alpha-nDCG; EU as alpha-nDCG plus "
           "AspRel and Conf; CT@k satisfies Sat, fails CloseTh and Conf.",
    "5": "RBP is the only metric satisfying the four first relevance constraints, ERR-IA@k the only one "
         "satisfying the five diversity constraints, EU the only one satisfying Conf; RBU satisfies all ten.",
}

PAPER_MEASURES: list[str] = [name for row in PAPER_ROWS for name in row.defaults]
_BY_FAMILY = {family: row for row in PAPER_ROWS for family in row.families}


def paper_row(measure: Measure) -> PaperRow | None:
    """The paper's row for a measure (by its family, whatever its cutoff and parameters), or None."""
    return _BY_FAMILY.get(measure.definition.name)
