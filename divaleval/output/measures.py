"""``--list-measures``: every measure family with its parameters and definition, the sets, other tools' names."""
from __future__ import annotations

from ..measures import ALIASES, catalogue, describe_sets


def measure_list() -> str:
    """The text ``divaleval --list-measures`` prints."""
    from tabulate import tabulate  # (20 ms to import: not at every start of the command)

    lines = [tabulate([d.catalogue_row() for d in catalogue()],
                      headers=["measure", "parameters (defaults)", "definition"], maxcolwidths=[None, 36, None]),
             "\n" + describe_sets(),
             "Syntax: NAME@k or NAME(key=value,...)@k, e.g. alpha-nDCG(alpha=0.8)@30; "
             "-m may repeat or hold a comma-separated list."]
    tools: dict[str, list[str]] = {}
    for alias in ALIASES:
        with_cutoff = f" (@k: {alias.with_cutoff}@k)" if alias.with_cutoff else ""
        tools.setdefault(alias.tool, []).append(f"{alias.written} = {alias.target}{with_cutoff}")
    lines += [f"Names of {tool}: " + ", ".join(names) + "." for tool, names in tools.items()]
    lines += [
        "trec_eval's P, recall, map_cut and ndcg_cut without .k give its cutoffs 5 ... 1000, success "
        "1, 5, 10, unj 5, 10, 20, iprec_at_recall its recall levels 0.0 ... 1.0; its ndcg takes the level as "
        "the gain (add --gain linear). ir_measures' rel=1 and judged_only=False are accepted; its AP@k is "
        "AP_cut@k here (AP@k divides by min(k, R)).",
        "Graded measures (nDCG ... niRBU, I-rec, D-, D#-, IA-) follow NTCIREVAL's definitions; "
        "gains --gain (default 2^L-1), weights --iprob (default uniform). Natively they use score "
        "order, the whole run and full precision; --compat reproduces a tool's order, depth and "
        "rounding (see docs/conventions/).",
        "DIN-, DIN#- and P+Q measures read intent types, the 4th column of --iprob (inf or nav; "
        "without it every intent is informational and they equal D-, D#- and IA-Q). Binary measures "
        "count levels >= --rel-min as relevant; -J condenses every ranking to its judged documents.",
    ]
    return "".join(line + "\n" for line in lines)
