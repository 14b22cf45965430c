"""The axiom checker's report: a measures x constraints table (text, markdown, CSV) or JSON lines.

* ``table`` and ``markdown``: the table, the cells that differ from the paper's
  Table 1, then every counterexample as files a user can paste and re-score
  (``==> qrels.txt <==`` blocks, as ``head`` prints several files) and the
  command that re-scores them;
* ``csv``: one row per (measure, constraint): verdict, counts, threshold, the
  paper's cell, the counterexample's two scores;
* ``json``: one object per (measure, constraint), the counterexample's files included.
"""
from __future__ import annotations

import csv
import json
import shlex
from typing import TextIO

from tabulate import tabulate

from ..axioms import NO, UNDEFINED, YES, AxiomReport, Verdict
from ..axioms.case import BETTER, WORSE, Case
from ..axioms.constraint import FROM_SOME, Constraint
from ..axioms.paper import paper_row
from ..measures import Measure

AXIOM_FORMATS = ("table", "markdown", "csv", "json")
QRELS_FILE, IPROB_FILE = "qrels.txt", "iprob.txt"
RUN_FILES = {WORSE: "worse.txt", BETTER: "better.txt"}


def threshold_text(constraint: Constraint, verdict: Verdict) -> str:
    if verdict.threshold is None:
        return ""
    relation = ">=" if constraint.quantifier == FROM_SOME else "="
    return f"{constraint.param_name}{relation}{verdict.threshold}"


def cell_text(constraint: Constraint, verdict: Verdict) -> str:
    """``yes``, ``yes n>=60``, ``no 37/400`` or ``undef 12/400``."""
    if verdict.status == YES:
        return " ".join(filter(None, ["yes", threshold_text(constraint, verdict)]))
    return f"{verdict.status} {verdict.violations}/{verdict.cases}"


def paper_cell(measure: Measure, constraint: Constraint) -> str:
    """What the paper's Table 1 says of the measure's row (yes, no, undef, ?), or '' if it has no row."""
    row = paper_row(measure)
    return row.says(constraint.key) if row else ""


def differs(report: AxiomReport, measure: Measure, constraint: Constraint) -> bool:
    said = paper_cell(measure, constraint)
    return said in (YES, NO, UNDEFINED) and said != report.verdict(measure.name, constraint.key).status


def rescore_command(report: AxiomReport, verdict: Verdict) -> str:
    options = report.options
    words = ["divaleval", "-m", verdict.measure]
    if options.gain != "exp":
        words += ["--gain", options.gain]
    if options.topicwise != "sumlog":
        words += ["--topicwise", options.topicwise]
    if verdict.example is not None and verdict.example.weights is not None:
        words += ["--iprob", IPROB_FILE]
    words += ["-f", "json", "-n", QRELS_FILE, RUN_FILES[WORSE], RUN_FILES[BETTER]]
    return " ".join(shlex.quote(w) for w in words)


def example_files(case: Case) -> dict[str, list[str]]:
    files = {QRELS_FILE: case.qrels_lines()}
    if case.weights is not None:
        files[IPROB_FILE] = case.iprob_lines()
    files[RUN_FILES[WORSE]] = case.run_lines(WORSE)
    files[RUN_FILES[BETTER]] = case.run_lines(BETTER)
    return files


def _where(constraint: Constraint, verdict: Verdict) -> str:
    """Which value of a quantified constraint the example is at, and why that one."""
    param = verdict.example.param if verdict.example is not None else None
    if param is None:
        return ""
    name = constraint.param_name
    if constraint.quantifier == FROM_SOME:
        return f" at {name} = {param} (it fails at every {name} of the grid from {param} on)"
    if name == "L" and verdict.binary:
        return f" at {name} = {param} (the measure reads relevance as binary: every {name} is alike)"
    return f" at {name} = {param}, the largest tried (no {name} of the grid works)"


def describe_example(report: AxiomReport, constraint: Constraint, verdict: Verdict) -> list[str]:
    """The counterexample of one cell: a heading, the files, the command and what it prints."""
    case = verdict.example
    intents = f"{case.n_intents} intent" + ("s" if case.n_intents != 1 else "")
    if verdict.status == UNDEFINED:
        heading = (f"{verdict.measure} is undefined for {constraint.key}: it held in every binary case, and "
                   f"reads relevance as binary; a graded case{_where(constraint, verdict)} it cannot tell apart "
                   f"({case.n_docs} documents, {intents}):")
    else:
        heading = (f"{verdict.measure} violates {constraint.key} ({verdict.violations} of {verdict.cases} cases); "
                   f"smallest counterexample{_where(constraint, verdict)} ({case.n_docs} documents, {intents}):")
    lines = [heading]
    if verdict.note:
        lines.append(f"({verdict.note})")
    for name, content in example_files(case).items():
        lines.append(f"==> {name} <==")
        lines.extend(content)
    relation = ">" if constraint.strict else ">="
    worse, better = verdict.scores
    lines.append(f"$ {rescore_command(report, verdict)}")
    lines.append(f"{verdict.measure}: worse {worse!r}, better {better!r}; "
                 f"{constraint.key} requires better {relation} worse")
    return lines


def _table_rows(report: AxiomReport) -> tuple[list[str], list[list[str]]]:
    """The measures x constraints table (cells differing from the paper's Table 1 marked *), and a row
    of the number of cases of each constraint."""
    headers = ["measure", *(c.key for c in report.constraints)]
    rows = []
    for measure in report.measures:
        row = [measure.name]
        for constraint in report.constraints:
            text = cell_text(constraint, report.verdict(measure.name, constraint.key))
            row.append(text + ("*" if differs(report, measure, constraint) else ""))
        rows.append(row)
    counts = ["cases"]
    for constraint in report.constraints:
        counts.append(str(max(report.verdict(m.name, constraint.key).cases for m in report.measures)))
    rows.append(counts)
    return headers, rows


def _settings_line(report: AxiomReport) -> str:
    options = report.options
    return (f"divaleval axioms: seed {report.seed}, {report.cases} cases per constraint and relevance kind "
            f"(binary, graded), rankings of up to {options.max_length} documents (never past a measure's "
            f"cutoff), gains {options.gain}, topicwise {options.topicwise}")


def _differences(report: AxiomReport) -> list[str]:
    lines = []
    for measure in report.measures:
        row = paper_row(measure)
        if row is None:
            continue
        for constraint in report.constraints:
            if differs(report, measure, constraint):
                said = row.says(constraint.key)
                how = "implies" if row.is_implied(constraint.key) else "says"
                verdict = report.verdict(measure.name, constraint.key)
                lines.append(f"{measure.name} {constraint.key}: divaleval {cell_text(constraint, verdict)}, "
                             f"the paper {how} {said} ({row.name})")
    return lines


def _legend(report: AxiomReport) -> list[str]:
    binary = ", ".join(report.binary) or "none"
    return [
        "yes: held in every case (n, m, L: where a quantified constraint holds); no v/c: violated in v of c "
        "cases; undef: the measure reads relevance as binary, held in every binary case but not in graded "
        "cases it cannot tell apart; *: differs from the paper's Table 1 as its section 4 states it.",
        f"Measures reading relevance as binary: {binary}.",
    ]


def write_text(report: AxiomReport, stream: TextIO, examples: bool = True, markdown: bool = False) -> None:
    headers, rows = _table_rows(report)
    out = [_settings_line(report), ""]
    out.append(tabulate(rows, headers=headers, tablefmt="github" if markdown else "simple",
                        disable_numparse=True))
    out.append("")
    out.extend(_legend(report))
    differences = _differences(report)
    if differences:
        out += ["", "Cells that differ from the paper's Table 1 (rebuilt from its section 4):"]
        out += [f"- {line}" if markdown else f"  {line}" for line in differences]
    if examples:
        for measure in report.measures:
            for constraint in report.constraints:
                verdict = report.verdict(measure.name, constraint.key)
                if verdict.example is None:
                    continue
                lines = describe_example(report, constraint, verdict)
                out.append("")
                if markdown:
                    out += [lines[0], "", "```", *lines[1:], "```"]
                else:
                    out += lines
    stream.write("\n".join(out) + "\n")


CSV_FIELDS = ["measure", "constraint", "verdict", "cases", "violations", "threshold", "paper", "binary", "worse",
              "better"]


def _record(report: AxiomReport, measure, constraint: Constraint) -> dict:
    verdict = report.verdict(measure.name, constraint.key)
    record = {
        "measure": measure.name, "constraint": constraint.key, "verdict": verdict.status,
        "cases": verdict.cases, "violations": verdict.violations,
        "threshold": threshold_text(constraint, verdict), "paper": paper_cell(measure, constraint),
        "binary": verdict.binary,
        "worse": verdict.scores[0] if verdict.scores else None,
        "better": verdict.scores[1] if verdict.scores else None,
    }
    return record


def write_csv(report: AxiomReport, stream: TextIO) -> None:
    writer = csv.DictWriter(stream, CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for measure in report.measures:
        for constraint in report.constraints:
            record = _record(report, measure, constraint)
            record["worse"] = "" if record["worse"] is None else repr(record["worse"])
            record["better"] = "" if record["better"] is None else repr(record["better"])
            writer.writerow(record)


def write_json(report: AxiomReport, stream: TextIO) -> None:
    for measure in report.measures:
        for constraint in report.constraints:
            record = _record(report, measure, constraint)
            verdict = report.verdict(measure.name, constraint.key)
            if verdict.note:
                record["note"] = verdict.note
            if verdict.example is not None:
                record["example"] = {
                    "param": verdict.example.param,
                    "files": example_files(verdict.example),
                    "command": rescore_command(report, verdict),
                }
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_report(report: AxiomReport, fmt: str, stream: TextIO, examples: bool = True) -> None:
    """Write the report in one of :data:`AXIOM_FORMATS`."""
    if fmt == "csv":
        write_csv(report, stream)
    elif fmt == "json":
        write_json(report, stream)
    else:
        write_text(report, stream, examples, markdown=fmt == "markdown")
