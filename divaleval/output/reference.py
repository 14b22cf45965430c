"""The measures reference of the documentation, generated from the catalogue: ``python -m divaleval.output.reference``.

Every registered family (generated forms included) gets a section: how to write it, the other
tools' names for it, its parameters with defaults and bounds, the judgments it reads, its
definition (the kernel's docstring), its citation, the reference tool it reproduces and the tests
that verified it (:mod:`divaleval.measures.core.verification`). The page is committed as
docs/reference/measures.md; ``make docs`` writes it again and tests/test_docs.py fails when the
committed page is not what this module generates now, so the page cannot fall behind the catalogue.
"""
from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from ..measures import ALIASES, catalogue
from ..measures.core import ASPECTS, INTENTS, OPTIONAL, PREFERENCES, REQUIRED, MeasureDef, Param
from ..measures.core.sets import ALL_CUTOFFS, CATALOGUE_SETS, DEFAULT_SET, MEASURE_SETS
from ..measures.core.verification import KINDS, REFERENCES, Reference

PAGE = Path("docs") / "reference" / "measures.md"

JUDGMENTS = {
    INTENTS: "intentwise qrels (`QRELS`; intent weights from `--iprob`, else uniform)",
    ASPECTS: "multi-aspect qrels (`--aspect NAME=FILE`, one per aspect)",
    PREFERENCES: "preference judgments (`--prefs FILE`)",
}
CUTOFFS = {REQUIRED: "a cutoff is required", OPTIONAL: "the cutoff is optional (default: the whole ranking)"}
# Values a real parameter's check is asked about, to find the bound it enforces (its message says which).
PROBES = (-1.0, 0.0, 1.0, 2.0)


def anchors(names: list[str]) -> dict[str, str]:
    """Each family's section id, in lower case: # and + spelt out (D-nDCG, D#-nDCG; P+, P+Q), and a number
    after a name that differs from one before it only in case (NRBP, nRBP)."""
    found: dict[str, str] = {}
    for name in names:
        text = name.lower().replace("#", "-sharp-").replace("+", "-plus-").replace("%", "pct")
        slug = base = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
        count = 1
        while slug in found.values():
            count += 1
            slug = f"{base}-{count}"
        found[name] = slug
    return found


ANCHORS = anchors([definition.name for definition in catalogue()])


def cell(text: str) -> str:
    """Text inside a Markdown table cell."""
    return text.replace("|", "\\|")


def bounds(param: Param) -> str:
    """The values ``param`` accepts beyond its type: its choices, or the bound its check enforces."""
    if param.choices:
        return "one of " + ", ".join(f"`{choice}`" for choice in param.choices)
    if param.kind is float:
        for value in PROBES:
            problem = param.check(value)
            if problem:
                return problem.removeprefix("must be ")
        return "any finite number"
    return "see its description"


def written(definition: MeasureDef) -> str:
    """How the family is written on the command line, with its cutoff."""
    return definition.name + {REQUIRED: "@k", OPTIONAL: "[@k]"}.get(definition.cutoff, "")


def plain_docstring(text: str) -> str:
    """A docstring without its reStructuredText roles, for a code block."""
    text = re.sub(r":(?:mod|func|class|meth|data):`~?([^`]+)`", r"\1", inspect.cleandoc(text))
    return text.replace("``", "")


def aliases_of(name: str) -> str:
    names = [f"`{a.written}` ({a.tool})" for a in ALIASES if name in (a.target, a.with_cutoff)]
    return ", ".join(names) or "none"


def relevance(definition: MeasureDef) -> list[str]:
    """How the levels of intentwise qrels count (the other kinds of judgments have their own)."""
    if definition.judgments != INTENTS:
        return []
    return ["- **Relevance:** " + ("binary: a level counts as relevant from `--rel-min` (default 1) up"
                                   if definition.binary else "graded: each level's gain (`--gain`)")]


def verification(reference: Reference) -> list[str]:
    return [f"    - {check.kind} ({KINDS[check.kind]}): {check.against}; `tests/{check.test}`"
            for check in reference.checks]


def family_section(definition: MeasureDef) -> list[str]:
    reference = REFERENCES[definition.name]
    lines = [f"## {definition.name} {{#{ANCHORS[definition.name]}}}", "", definition.summary[:1].upper()
             + definition.summary[1:] + ".", "",
             f"- **Written:** `{written(definition)}`; " + CUTOFFS.get(definition.cutoff, "it takes no cutoff"),
             f"- **Other tools' names:** {aliases_of(definition.name)}",
             f"- **Judgments:** {JUDGMENTS[definition.judgments]}",
             *relevance(definition),
             f"- **Citation:** {definition.citation}",
             f"- **Reproduces:** {reference.tool or 'no tool (no reference tool computes it; see how it was verified)'}",
             "- **Verified by:**", *verification(reference), ""]
    if definition.params:
        lines += ["| Parameter | Default | Accepts | Meaning |", "| --- | --- | --- | --- |"]
        lines += [f"| `{p.name}` | `{p.text(p.default)}` | {cell(bounds(p))} | {cell(p.doc)} |"
                  if p.text(p.default) else f"| `{p.name}` | (none) | {cell(bounds(p))} | {cell(p.doc)} |"
                  for p in definition.params]
    else:
        lines.append("No parameters.")
    lines += ["", "Definition:", "", "```text", plain_docstring(definition.doc), "```", ""]
    return lines


def sets_section() -> list[str]:
    lines = ["## Sets of measures", "", f"`-m NAME` with a set's name computes every measure of the set "
             f"(without `-m`: the `{DEFAULT_SET}` set).", ""]
    lines += [f"- `{name}`: " + ", ".join(f"`{item}`" for item in items) for name, items in MEASURE_SETS.items()]
    cutoffs = ", ".join(map(str, ALL_CUTOFFS))
    lines += [f"- `{name}`: every family of {JUDGMENTS[judgments].split(' (')[0]}, with its defaults: "
              f"without a cutoff where it may go without one, and at cutoffs {cutoffs} where it takes one"
              for name, judgments in CATALOGUE_SETS.items()]
    return lines + [""]


def aliases_section() -> list[str]:
    lines = ["## Other tools' names", "",
             "Another tool's name is accepted where that tool's definition is divaleval's, up to settings "
             "the user chooses (trec_eval's `ndcg` takes the level itself as the gain: add `--gain linear`).",
             "", "Where another tool gives one of divaleval's own names another meaning, divaleval's keeps its own: "
             "ir_measures' `AP@k` is trec_eval's map_cut, here `AP_cut@k` (or ir_measures' `MAP@k`), while `AP@k` "
             "divides by min(k, R) as NTCIREVAL does; ir_measures' `nDCG` takes the level as the gain "
             "(`--gain linear`); its `Judged@k` counts a document judged only negatively as judged and divides by "
             "min(k, documents ranked), where `Judged@k` here does neither (as trec_eval's `unj`); its `IPrec@x` "
             "is trec_eval 9.0's, whose recall levels round x R almost up where 10.0's, and `IPrec` here, round "
             "it to the nearest.",
             "", "| Name | Tool | divaleval's family | Its parameters accepted | Without `.k` |",
             "| --- | --- | --- | --- | --- |"]
    for alias in ALIASES:
        accepted = ", ".join(f"`{key}={value}`" for key, value in alias.accepted) or "-"
        cutoffs = ", ".join(map(str, alias.cutoffs)) if alias.cutoffs else "-"
        name = alias.written
        family = f"[{cell(alias.target)}](#{ANCHORS[alias.target]})"
        if alias.with_cutoff is not None:
            family += f"; with `@k`: [{cell(alias.with_cutoff)}](#{ANCHORS[alias.with_cutoff]})"
        lines.append(f"| `{cell(name)}` | {alias.tool} | {family} | {accepted} | {cutoffs} |")
    return lines + [""]


def measures_page() -> str:
    """The text of docs/reference/measures.md."""
    families = catalogue()
    lines = [
        "# Measures reference", "",
        "<!-- Generated from the measure catalogue by `python -m divaleval.output.reference`: do not edit. "
        "`make docs` writes it again; tests/test_docs.py fails when it is stale. -->", "",
        f"Every measure family divaleval registers ({len(families)}), generated forms included (D-, D#-, DIN-, "
        "DIN#-, IA-), as `divaleval --list-measures` lists them. A measure is written `NAME`, `NAME@k` or "
        "`NAME(key=value,...)@k`, e.g. `alpha-nDCG(alpha=0.8)@30`; `-m` repeats or takes a comma-separated "
        "list. For the families' reasoning, see the [measures overview](../measures.md).", "",
        "Each family names the reference tool whose output it reproduces and the tests that verified its "
        "values, each of one kind: " + "; ".join(f"*{kind}*, {text}" for kind, text in KINDS.items()) + ". "
        "Every test named is in the repository's `tests/` folder, and `make test` runs it.", "",
        "| Measure | Summary | Reproduces | Verified by |", "| --- | --- | --- | --- |",
    ]
    for definition in families:
        reference = REFERENCES[definition.name]
        kinds = ", ".join(dict.fromkeys(check.kind for check in reference.checks))
        lines.append(f"| [{cell(definition.name)}](#{ANCHORS[definition.name]}) | {cell(definition.summary)} | "
                     f"{reference.tool or '-'} | {kinds} |")
    lines += ["", *sets_section(), *aliases_section()]
    for definition in families:
        lines += family_section(definition)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> None:
    """Write the page to the path given (default: standard output)."""
    args = sys.argv[1:] if argv is None else argv
    text = measures_page()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
