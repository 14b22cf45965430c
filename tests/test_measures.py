"""The measure registry, the -m syntax, canonical names and --list-measures."""
from __future__ import annotations

import pytest

from conftest import NDEVAL_EXAMPLES as EX, run_cli
from divaleval import UsageError, catalogue, parse_measure, parse_measures
from divaleval.measures import NONE, OPTIONAL, REQUIRED
from divaleval.measures.core import NDEVAL_SET


def test_ndeval_names_parse_to_themselves():
    assert [m.name for m in parse_measures(["ndeval"])] == NDEVAL_SET


@pytest.mark.parametrize("text,canonical", [
    ("alpha-nDCG@20", "alpha-nDCG@20"),
    ("alpha-nDCG(alpha=0.8)@30", "alpha-nDCG(alpha=0.8)@30"),
    ("alpha_ndcg(alpha=0.50)@30", "alpha-nDCG@30"),     # default value drops out; case and _ free
    ("ALPHA-NDCG( alpha = .8 ) @ 30", "alpha-nDCG(alpha=0.8)@30"),
    ("nNRBP(beta=0.9,alpha=0.8)", "nNRBP(alpha=0.8,beta=0.9)"),  # parameters in declared order
    ("NRBP@100", "NRBP@100"),
    ("map-ia", "MAP-IA"),
    ("strec@1000", "strec@1000"),
])
def test_canonical_names(text, canonical):
    measure = parse_measure(text)
    assert measure.name == canonical
    assert parse_measure(canonical) == measure


def test_every_family_round_trips():
    for definition in catalogue():
        cutoff = None if definition.cutoff == NONE else 7
        params = {p.name: (0.25 if p.kind is float else p.default) for p in definition.params}
        measure = definition.bind(params, cutoff)
        assert parse_measure(measure.name) == measure
        if definition.cutoff == OPTIONAL:
            assert parse_measure(definition.name).cutoff is None
        if definition.cutoff == REQUIRED:
            with pytest.raises(UsageError):
                parse_measure(definition.name)


def test_lists_sets_and_repeats():
    measures = parse_measures(["alpha-nDCG@5,ERR-IA(alpha=0.3)@10", "alpha-nDCG@5", "nNRBP(alpha=0.2,beta=0.3)"])
    assert [m.name for m in measures] == ["alpha-nDCG@5", "ERR-IA(alpha=0.3)@10", "nNRBP(alpha=0.2,beta=0.3)"]


def test_every_definition_is_documented():
    for definition in catalogue():
        assert definition.summary and definition.citation and definition.doc, definition.name
        assert "=" in definition.doc  # the formula


def test_list_measures_shows_everything():
    result = run_cli(["--list-measures"])
    assert result.returncode == 0
    text = result.stdout.decode()
    for definition in catalogue():
        assert definition.name in text and definition.summary in text
    assert "alpha=0.5" in text and "beta=0.5" in text


def test_header_names_select_the_same_measures():
    first = run_cli(["-m", "alpha-nDCG(alpha=0.8)@30,nNRBP(beta=0.9),strec@3", EX / "qrels.txt", EX / "runB.txt"])
    header = first.stdout.decode().splitlines()[0].split(",")[2:]
    assert header == ["alpha-nDCG(alpha=0.8)@30", "nNRBP(beta=0.9)", "strec@3"]
    again = run_cli([arg for name in header for arg in ("-m", name)] + [EX / "qrels.txt", EX / "runB.txt"])
    assert again.stdout == first.stdout


def test_all_set_is_the_whole_catalogue():
    names = [m.name for s in ("all", "aspects", "preferences") for m in parse_measures([s])]
    for definition in catalogue():
        assert any(name == definition.name or name.split("@")[0] == definition.name for name in names), definition.name
    assert "alpha-nDCG@20" in names and "NRBP" in names and "NRBP@5" in names


@pytest.mark.parametrize("other,ours", [
    ("alpha_nDCG(alpha=0.8)@20", "alpha-nDCG(alpha=0.8)@20"),       # ir_measures
    ("alpha_nDCG(alpha=0.8,rel=1,judged_only=False)@20", "alpha-nDCG(alpha=0.8)@20"),
    ("α_nDCG@5", "alpha-nDCG@5"),
    ("alpha_DCG@10", "alpha-DCG@10"),
    ("ERR_IA@20", "ERR-IA@20"),
    ("nERR_IA@20", "nERR-IA@20"),
    ("NRBP(rel=1)", "NRBP"),
    ("nNRBP(alpha=0.3)", "nNRBP(alpha=0.3)"),
    ("AP_IA", "MAP-IA"),
    ("MAP_IA", "MAP-IA"),
    ("P_IA@5", "P-IA@5"),
    ("StRecall@10", "strec@10"),
    ("map", "AP"),                                                   # trec_eval
    ("P.5", "Prec@5"),
    ("recip_rank", "RR"),
    ("ndcg", "nDCG"),
    ("ndcg_cut.20", "nDCG@20"),
    ("P@10", "Prec@10"),
])
def test_other_tools_names_select_the_same_measures(other, ours):
    assert parse_measure(other) == parse_measure(ours)


def test_trec_eval_lists_of_cutoffs():
    assert [m.name for m in parse_measures(["ndcg_cut.10,20", "P.5,10,alpha-nDCG@20"])] == [
        "nDCG@10", "nDCG@20", "Prec@5", "Prec@10", "alpha-nDCG@20"]
    assert [m.cutoff for m in parse_measures(["P"])] == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    with pytest.raises(UsageError, match="give one cutoff"):
        parse_measure("ndcg_cut")


def test_a_parameter_with_no_equivalent_is_refused():
    with pytest.raises(UsageError, match="rel=2 of ir_measures has no equivalent"):
        parse_measure("alpha_nDCG(rel=2)@20")


def test_unknown_names_suggest_the_closest():
    with pytest.raises(UsageError, match=r"did you mean alpha-nDCG"):
        parse_measure("alpha-ndgc@20")
    with pytest.raises(UsageError, match=r"did you mean .*StRecall"):
        parse_measure("strecal@5")


def test_other_tools_names_on_the_command_line():
    args = [EX / "qrels.txt", EX / "runA.txt"]
    theirs = run_cli(["-m", "ndcg_cut.10,20", "-m", "alpha_nDCG@20,StRecall@5", *args])
    ours = run_cli(["-m", "nDCG@10,nDCG@20,alpha-nDCG@20,strec@5", *args])
    assert theirs.returncode == 0 and theirs.stdout == ours.stdout
    listing = run_cli(["--list-measures"]).stdout.decode()
    assert "alpha_nDCG = alpha-nDCG" in listing and "ndcg_cut.k = nDCG" in listing


# -- the lazy catalogue: a name imports the module that registers it, and no other -------------------------

def test_the_index_is_what_the_modules_register():
    """measures/core/index.py names every family the measure modules register, with the module whose import
    registers it, in their order: a family added, renamed or moved without writing the index again fails here."""
    from divaleval.measures.core import index, indexer

    registered = indexer.registered_modules()
    assert list(index.MODULES.items()) == list(registered.items()), (
        "divaleval/measures/core/index.py is stale: run python -m divaleval.measures.core.indexer and commit it")
    assert indexer.INDEX.read_text(encoding="utf-8") == indexer.index_source(registered)
    assert len(catalogue()) == len(registered)


# In a fresh interpreter: a name (or a pickled measure, as a worker process receives one) resolved, then the
# measure modules imported (core's left out: every name needs them).
RESOLVE = """
import pickle, sys
from divaleval import UsageError, parse_measure
given = sys.argv[1]
try:
    measure = pickle.loads(bytes.fromhex(given[7:])) if given.startswith("pickle:") else parse_measure(given)
    print(measure.name)
except UsageError as exc:
    print(exc)
print(sorted(m.removeprefix("divaleval.measures.") for m in sys.modules
             if m.startswith("divaleval.measures.") and not m.startswith("divaleval.measures.core")))
"""


def resolved_in_a_fresh_process(given: str) -> tuple[str, list[str]]:
    import ast
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", RESOLVE, given], capture_output=True, text=True, timeout=120,
                          check=True)
    printed, modules = done.stdout.splitlines()
    return printed, ast.literal_eval(modules)


ALPHA_NDCG = ["novelty", "novelty.alpha_ndcg", "novelty.gains"]


@pytest.mark.parametrize("given,name,modules", [
    ("alpha-nDCG@10", "alpha-nDCG@10", ALPHA_NDCG),
    ("alpha_nDCG@10", "alpha-nDCG@10", ALPHA_NDCG),     # an alias
    ("ALPHA-NDCG@10", "alpha-nDCG@10", ALPHA_NDCG),     # case-insensitive
    ("MAP-IA", "MAP-IA", ["map_ia"]),
    ("S-RR@100%", "S-RR@100%", ["srr", "strec"]),                             # srr.py takes strec's constant
    ("map_cut.10", "AP_cut@10", ["counts", "ncu", "ncu.kernels", "ncu.lists"]),
    ("nrbp", "measure 'nrbp': ambiguous name: NRBP or nRBP (case matters)", []),
    ("alpha-ndgc@20", "measure 'alpha-ndgc@20': unknown measure (did you mean alpha-nDCG, alpha-DCG, "
                      "wg-alpha-nDCG? see --list-measures)", []),
])
def test_a_name_imports_only_the_module_that_registers_it(given, name, modules):
    assert resolved_in_a_fresh_process(given) == (name, modules)


def test_forms_made_in_loops_and_measures_sent_to_workers_import_their_module():
    """DIN-nDCG is registered by intent_types.py calling diversity.py's loop over the family (which registers the
    D- forms when imported); a measure unpickled in a process that has not imported its module imports it."""
    import pickle

    printed, modules = resolved_in_a_fresh_process("DIN#-nDCG@10")
    assert printed == "DIN#-nDCG@10"
    assert "ncu.intent_types" in modules and "ncu.adhoc" not in modules and "ncu.intent_aware" not in modules
    sent = pickle.dumps(parse_measure("IA-RBP(p=0.9)@10"))
    printed, modules = resolved_in_a_fresh_process("pickle:" + sent.hex())
    assert printed == "IA-RBP(p=0.9)@10" and "ncu.intent_aware" in modules and "ncu.diversity" not in modules


def test_a_family_registered_outside_the_index_is_found():
    """A family registered by a module of one's own (not in the index) resolves like the catalogue's own."""
    import subprocess
    import sys

    code = ("import numpy as np\nfrom divaleval.measures import REGISTRY, catalogue, measure, parse_measure\n"
            "@measure(name='Ones', summary='1 per topic', citation='none', formula='Ones = 1')\n"
            "def ones(ctx, *, cutoff):\n    return np.ones(1)\n"
            "print(parse_measure('ones').name, 'Ones' in REGISTRY, len(REGISTRY) == len(catalogue()))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == "Ones True True\n"
