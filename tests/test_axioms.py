"""The axiom checker (divaleval axioms): the paper's unambiguous claims, counterexamples that really are
counterexamples, premises, generators, shrinking, hand-computed scores of printed cases, the command."""
from __future__ import annotations

import io
import json
import math
import re
import shlex

import numpy as np
import pytest
from click.testing import CliRunner

from divaleval import Qrels, RunTable, evaluate
from divaleval.api import check_axioms
from divaleval.axioms import CONSTRAINTS, NO, UNDEFINED, YES, Case, Options, constraint_named
from divaleval.axioms.case import TIE_TOLERANCE, score_cases, violations
from divaleval.axioms.paper import PAPER_MEASURES, PAPER_ROWS
from divaleval.axioms.shrink import candidates, size_key
from divaleval.cli import main_group
from divaleval.measures import parse_measures
from divaleval.output.axioms import write_report

CASES = 120   # per constraint and relevance kind: enough for the claims below, a few seconds


@pytest.fixture(scope="module")
def report():
    return check_axioms(cases=CASES)


@pytest.fixture(scope="module")
def printed(report):
    out = io.StringIO()
    write_report(report, "table", out)
    return out.getvalue()


def status(report, measure, constraint):
    return report.verdict(measure, constraint).status


# -- the paper's own claims ------------------------------------------------------------------

ALL_TEN = [c.key for c in CONSTRAINTS]


@pytest.mark.parametrize("measure", ["RBU", "RBU@10"])
def test_rbu_satisfies_all_ten(report, measure):
    """Sec. 5 and the appendix: RBU satisfies every constraint (with its effort e = 0.01 > 0)."""
    assert {key: status(report, measure, key) for key in ALL_TEN} == {key: YES for key in ALL_TEN}


def test_precision_fails_priority(report):
    """Footnote 2: P@k does not consider the order of documents before k."""
    assert status(report, "Prec@10", "Pri") == NO
    assert status(report, "Prec@10", "Deep") == NO


def test_alpha_ndcg_satisfies_redundancy(report):
    """Sec. 4.3: the redundancy factor (1 - alpha)^c makes alpha-nDCG satisfy Red."""
    assert status(report, "alpha-nDCG@10", "Red") == YES
    assert status(report, "wg-alpha-nDCG@10", "Red") == YES


def test_err_ia_diversity_constraints(report):
    """Sec. 4.2: ERR-IA satisfies the five diversity constraints. Four hold; Sat needs a document of
    relevance 1, which no level reaches in divaleval ((2^L-1)/2^L < 1)."""
    for key in ("AspDiv", "Red", "MRed", "AspRel"):
        assert status(report, "IA-ERR@10", key) == YES, key
    assert status(report, "IA-ERR@10", "Sat") == NO


def test_saturation_where_relevance_can_be_full():
    """With alpha = 1 a covered intent adds nothing more: ndeval's ERR-IA then saturates; so does the
    Cube Test once one document reaches its level, and RBU only through its effort."""
    got = check_axioms(["ERR-IA(alpha=1.0)@10", "CT(level=0.5)@10", "RBU(e=0.0)", "RBU"], ["Sat", "Conf"],
                       cases=60)
    assert got.verdict("ERR-IA(alpha=1.0)@10", "Sat").status == YES
    assert got.verdict("CT(level=0.5)@10", "Sat").status == YES
    assert got.verdict("RBU(e=0.0)", "Sat").status == NO
    assert got.verdict("RBU(e=0.0)", "Conf").status == NO
    assert got.verdict("RBU", "Conf").status == YES


def test_relevance_constraints_of_the_adhoc_measures(report):
    """Sec. 4.1: nDCG, ERR and RBP satisfy Pri and Deep; AP and nDCG satisfy CloseTh, ERR and RR do not;
    RBP satisfies DeepTh and CloseTh; AP (no cutoff) fails DeepTh."""
    for measure in ("nDCG@10", "ERR@10", "RBP"):
        assert status(report, measure, "Pri") == YES
        assert status(report, measure, "Deep") == YES
    for measure, closeth in (("AP", YES), ("nDCG@10", YES), ("RBP", YES), ("ERR@10", NO), ("RR", NO)):
        assert status(report, measure, "CloseTh") == closeth, measure
    assert status(report, "RBP", "DeepTh") == YES
    assert status(report, "AP", "DeepTh") == NO
    assert status(report, "ERR@10", "DeepTh") == YES
    assert status(report, "AP", "Pri") == UNDEFINED  # binary relevance only


def test_only_utility_measures_satisfy_confidence(report):
    """Sec. 4.3 and 5: none of the measures satisfies Conf but EU and RBU, which charge an effort."""
    satisfied = {m.name for m in report.measures if status(report, m.name, "Conf") == YES}
    assert satisfied == {"EU", "RBU", "RBU@10"}


def test_diversity_claims_that_hold(report):
    assert status(report, "IA-nDCG@10", "Red") == NO
    assert status(report, "IA-RBP", "Red") == NO
    assert status(report, "IA-RBP", "AspDiv") == YES
    assert status(report, "IA-RBP", "AspRel") == YES
    assert status(report, "IA-RR", "Sat") == YES
    assert status(report, "strec@10", "Sat") == YES
    assert status(report, "S-RR@100%", "Sat") == YES
    assert status(report, "alpha-nDCG@10", "AspRel") == NO   # no aspect weights
    assert status(report, "D#-nDCG@10", "AspRel") == YES
    assert status(report, "EU", "AspRel") == YES
    assert status(report, "CT@10", "AspRel") == YES
    assert status(report, "EU", "MRed") == NO
    assert status(report, "wg-alpha-nDCG@10", "MRed") == NO


def test_measures_of_binary_relevance_are_found(report):
    assert set(report.binary) == {"Prec@10", "RR", "AP", "IA-Prec@10", "P-IA@10", "IA-RR", "IA-AP", "MAP-IA",
                                  "ERR-IA@10", "strec@10", "S-RR@100%", "NRBP", "alpha-nDCG@10"}


def test_paper_rows_cover_the_default_set():
    assert [name for row in PAPER_ROWS for name in row.defaults] == PAPER_MEASURES
    assert len(PAPER_ROWS) == 20
    for row in PAPER_ROWS:
        assert len(row.cells.replace(" ", "")) == 10, row.name


# -- printed counterexamples really are counterexamples ----------------------------------------

HEADING = re.compile(r"^(\S+) (?:violates (\S+) \(|is undefined for (\S+):)")
AT = re.compile(r" at ([nmL]) = (\d+)")
RESULT = re.compile(r"^(\S+): worse (\S+), better (\S+); (\S+) requires better (>=?) worse$")


def parse_examples(text: str) -> list[dict]:
    """Every counterexample block of the text report: its heading fields, files, command and numbers."""
    examples, current, name = [], None, None
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            at = AT.search(line)
            current = {"measure": heading.group(1), "constraint": heading.group(2) or heading.group(3),
                       "undefined": heading.group(3) is not None, "files": {},
                       "param": int(at.group(2)) if at else None}
            examples.append(current)
            name = None
        elif current is None:
            continue
        elif line.startswith("==> ") and line.endswith(" <=="):
            name = line[4:-4]
            current["files"][name] = []
        elif line.startswith("$ "):
            current["command"], name = line[2:], None
        elif RESULT.match(line):
            measure, worse, better, key, relation = RESULT.match(line).groups()
            current.update(worse=float(worse), better=float(better), strict=relation == ">")
            current = None
        elif name is not None:
            current["files"][name].append(line)
    return examples


def case_from_files(files: dict[str, list[str]], param: int | None) -> Case:
    """A Case read back from the printed files (documents d1.., intents 1..)."""
    def index(docno: str) -> int:
        return int(docno[1:]) - 1

    qrels = [line.split() for line in files["qrels.txt"]]
    runs = {side: [line.split()[2] for line in files[f"{side}.txt"]] for side in ("worse", "better")}
    docs = {index(d) for *_, d, _ in qrels} | {index(d) for ranking in runs.values() for d in ranking}
    intents = max(int(i) for _, i, _, _ in qrels)
    levels = np.zeros((max(docs) + 1, intents), dtype=np.int64)
    judged = np.zeros(max(docs) + 1, dtype=bool)
    for _, intent, docno, level in qrels:
        levels[index(docno), int(intent) - 1] = int(level)
        judged[index(docno)] = True
    weights = None
    if "iprob.txt" in files:
        weights = np.array([float(line.split()[2]) for line in files["iprob.txt"]])
    return Case(levels, judged, tuple(map(index, runs["worse"])), tuple(map(index, runs["better"])), weights, param)


def violated(worse: float, better: float, strict: bool) -> bool:
    scale = max(1.0, abs(worse), abs(better))
    return not (better - worse > TIE_TOLERANCE * scale) if strict else better - worse < -TIE_TOLERANCE * scale


def test_every_printed_counterexample_violates_when_rescored(printed, tmp_path, monkeypatch):
    """Write each printed counterexample's files, run its printed command (the ordinary evaluation),
    and check the constraint fails on the numbers it prints, and that the case is within the
    constraint's conditions."""
    examples = parse_examples(printed)
    expected = sum(1 for line in printed.splitlines() if HEADING.match(line))
    assert len(examples) == expected > 50
    runner = CliRunner()
    for k, example in enumerate(examples):
        words = shlex.split(example["command"])
        assert words[0] == "divaleval"
        folder = tmp_path / str(k)
        folder.mkdir()
        for name, lines in example["files"].items():
            (folder / name).write_text("\n".join(lines) + "\n")
        monkeypatch.chdir(folder)  # the command names the files as printed
        result = runner.invoke(main_group, words[1:])
        assert result.exit_code == 0, (example["command"], result.stderr)
        rows = {row["run"]: row[example["measure"]] for row in map(json.loads, result.stdout.splitlines())}
        assert rows["worse.txt"] == example["worse"] and rows["better.txt"] == example["better"], example
        assert violated(rows["worse.txt"], rows["better.txt"], example["strict"]), example
        constraint = constraint_named(example["constraint"])
        case = case_from_files(example["files"], example["param"])
        assert constraint.premise(case) is None, (example, constraint.premise(case))


def test_a_counterexample_through_the_installed_command(printed, tmp_path):
    from conftest import run_cli

    example = next(e for e in parse_examples(printed) if e["measure"] == "IA-nDCG@10" and e["constraint"] == "AspRel")
    for name, lines in example["files"].items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    result = run_cli(shlex.split(example["command"])[1:], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = {row["run"]: row["IA-nDCG@10"] for row in map(json.loads, result.stdout.decode().splitlines())}
    assert rows["better.txt"] < rows["worse.txt"]


def test_counterexamples_are_small(report):
    """The shrinker leaves no removable document: P@10's Pri counterexample is one swap of two documents,
    RR's needs a relevant document above the swap (three)."""
    assert report.verdict("Prec@10", "Pri").example.n_docs == 2
    assert report.verdict("RR", "Pri").example.n_docs == 3
    prec = report.verdict("Prec@10", "Pri").example
    assert prec.n_intents == 1 and sorted(prec.worse) == sorted(prec.better)


def test_no_candidate_one_step_smaller_still_violates(report):
    """Shrinking stopped at a local minimum: no smaller case within the conditions still violates."""
    measures = {m.name: m for m in report.measures}
    for (name, key), verdict in sorted(report.verdicts.items()):
        if verdict.example is None or verdict.status != NO or name not in ("CT@10", "EU", "IA-nDCG@10"):
            continue
        constraint = constraint_named(key)
        smaller = [c for c in candidates(verdict.example)
                   if size_key(c) < size_key(verdict.example) and constraint.premise(c) is None]
        if not smaller:
            continue
        worse, better = score_cases(smaller, [measures[name]], report.options.settings)
        assert not any(violated(w, b, constraint.strict) for w, b in zip(worse[:, 0], better[:, 0])), (name, key)


# -- numbers of printed cases, by hand ------------------------------------------------------------

def one_topic(lines: list[str]) -> Qrels:
    topic, intent, docno, level = zip(*(line.split() for line in lines))
    return Qrels.from_arrays(topic, intent, docno, [int(v) for v in level])


def scores(qrels: Qrels, rankings: dict[str, list[str]], measure: str, **options) -> dict[str, float]:
    runs = [RunTable.from_arrays(["1"] * len(docs), docs, runid=name) for name, docs in rankings.items()]
    frame = evaluate(qrels, runs, [measure], topicwise="max", **options)
    return dict(zip(frame["runid"], frame[measure]))


def test_err_ia_never_saturates_by_hand():
    """Sat for IA-ERR@10 at L = 10: r = (2^L - 1)/2^L; the second document still adds r2 (1 - r1)/2."""
    got = scores(one_topic(["1 1 d1 10", "1 1 d2 1"]), {"worse": ["d1", "d2"], "better": ["d1"]}, "IA-ERR@10")
    r1, r2 = 1023 / 1024, 1 / 1024
    assert got["better"] == pytest.approx(r1, abs=1e-15)
    assert got["worse"] == pytest.approx(r1 + (1 - r1) * r2 / 2, abs=1e-15)
    assert got["worse"] > got["better"]


def test_eu_priority_by_hand():
    """EU's novelty discount counts documents, not relevance: moving a marginal document (r = 1/4) above a
    highly relevant one (r = 3/4) halves the latter's gain, which costs more than the move brings."""
    qrels = one_topic(["1 1 d3 2", "1 1 d4 1"])
    got = scores(qrels, {"worse": ["d1", "d2", "d3", "d4"], "better": ["d1", "d4", "d3", "d2"]}, "EU")
    e = 0.01
    worse = 0.75 / (1 + math.log2(3)) + 0.25 * 0.5 / (1 + 2) - 4 * e
    better = 0.25 / (1 + 1) + 0.75 * 0.5 / (1 + math.log2(3)) - 4 * e
    assert got["worse"] == pytest.approx(worse, abs=1e-15)
    assert got["better"] == pytest.approx(better, abs=1e-15)
    assert better < worse


def test_precision_closeness_threshold_by_hand():
    """P@10 satisfies CloseTh: m = 2 relevant documents after 2 non-relevant ones give 2/10 > 1/10."""
    qrels = one_topic(["1 1 r1 1", "1 1 r2 1", "1 1 z1 0"])
    got = scores(qrels, {"top": ["r1", "z1", "z2", "z3"], "late": ["z1", "z2", "r1", "r2"]}, "Prec@10")
    assert (got["top"], got["late"]) == (0.1, 0.2)


def test_aspect_relevance_read_position_by_position():
    """Read literally, AspRel would let a later document relevant to t' make 'better' the redundant
    ranking: RBU (hand-computed) then prefers 'worse'. The generator keeps other documents away from t
    and t', as the paper's proof does, and the premise rejects this case."""
    p, w_t, w_t2, r = 0.99, 0.4, 0.6, 0.5
    worse = p * w_t * r + p ** 2 * w_t2 * r
    better = p * w_t2 * r + p ** 2 * w_t2 * r * (1 - r)
    assert better < worse
    levels = np.array([[1, 0], [0, 1], [0, 1]])  # x relevant to t, y and z to t'
    case = Case(levels, np.ones(3, dtype=bool), (0, 2), (1, 2), np.array([w_t, w_t2]))
    got = score_cases([case], parse_measures(["RBU(e=0.0)"]))
    assert got[0][0, 0] == pytest.approx(worse, abs=1e-15) and got[1][0, 0] == pytest.approx(better, abs=1e-15)
    assert "another ranked document" in constraint_named("AspRel").premise(case)


# -- premises and generators ---------------------------------------------------------------------

def make(levels, worse, better, weights=None, param=None, judged=None) -> Case:
    levels = np.array(levels, dtype=np.int64).reshape(len(levels), -1)
    judged = np.ones(len(levels), dtype=bool) if judged is None else np.array(judged)
    return Case(levels, judged, tuple(worse), tuple(better), None if weights is None else np.array(weights), param)


@pytest.mark.parametrize("key, case, ok", [
    ("Pri", make([[0], [2]], [0, 1], [1, 0]), True),
    ("Pri", make([[2], [0]], [0, 1], [1, 0]), False),           # swapping against relevance
    ("Pri", make([[1], [1]], [0, 1], [1, 0]), False),           # equal relevance
    ("Deep", make([[0], [1], [0], [0], [1]], [0, 1, 2, 4, 3], [1, 0, 2, 3, 4]), True),
    ("Deep", make([[0], [1], [0], [0], [2]], [0, 1, 2, 4, 3], [1, 0, 2, 3, 4]), False),  # r(d_{j+1}) differs
    ("Conf", make([[1], [0]], [0, 1], [0]), True),
    ("Conf", make([[1], [1]], [0, 1], [0]), False),
    ("DeepTh", make([[1], [1], [0], [0], [0]], [2, 3, 0, 1], [0, 2, 3, 4], param=2), True),
    ("DeepTh", make([[1], [2], [0], [0], [0]], [2, 3, 0, 1], [0, 2, 3, 4], param=2), False),  # not binary
    ("Red", make([[1, 0], [1, 0], [0, 1]], [0, 1], [0, 2]), True),
    ("Red", make([[1, 0], [1, 0], [0, 1]], [0, 1], [0, 2], weights=[0.5, 0.5]), False),  # weights given
    ("Red", make([[0, 1], [1, 0], [0, 1]], [0, 1], [0, 2]), False),   # t' is the more covered
    ("MRed", make([[2, 1], [1, 0], [0, 1], [2, 0], [0, 2]], [0, 1], [0, 2]), True),
    ("MRed", make([[1, 1], [1, 0], [0, 1]], [0, 1], [0, 2]), False),  # d_1 equally relevant to both
    ("Sat", make([[2], [1]], [0, 1], [0], param=2), True),
    ("Sat", make([[1], [1], [2]], [0, 1], [0], param=2), False),      # d_n not at the highest level
    ("AspDiv", make([[1, 0], [1, 1]], [0], [1]), True),
    ("AspDiv", make([[1, 0], [0, 1]], [0], [1]), False),              # not dominating
    ("AspDiv", make([[1, 0], [1, 1], [0, 1]], [0, 2], [1, 2]), False),  # a later document has the new aspect
    ("AspRel", make([[1, 0], [0, 1]], [0], [1], weights=[0.4, 0.6]), True),
    ("AspRel", make([[1, 0], [0, 1]], [0], [1], weights=[0.6, 0.4]), False),
    ("AspRel", make([[1, 0], [0, 1], [0, 2]], [0], [1], weights=[0.4, 0.6]), False),  # highest levels differ
])
def test_premises(key, case, ok):
    problem = constraint_named(key).premise(case)
    assert (problem is None) == ok, problem


@pytest.mark.parametrize("constraint", CONSTRAINTS, ids=lambda c: c.key)
@pytest.mark.parametrize("max_length", [4, 10, 20])
def test_generated_cases_are_within_the_conditions(constraint, max_length):
    """generate_many raises on a case outside the premise; also check the lengths and levels asked for."""
    rng = np.random.default_rng(max_length)
    for levels in ((1,), (1, 2, 3)):
        options = Options(max_length=max_length, top_levels=levels)
        for param in constraint.params(options, binary=levels == (1,)):
            for case in constraint.generate(rng, 20, options, param):
                assert constraint.premise(case) is None
                assert case.levels.max() <= max(max(levels), param or 0)
                if constraint.key not in ("DeepTh", "CloseTh"):
                    assert max(len(case.worse), len(case.better)) <= max_length


def test_same_seed_same_report_other_seed_other_cases():
    runner = CliRunner()
    args = ["axioms", "-m", "EU,IA-nDCG@10", "-c", "Pri", "-c", "AspRel", "-n", "40", "-f", "json", "-q"]
    first, second = runner.invoke(main_group, args), runner.invoke(main_group, args)
    assert first.exit_code == 0 and first.stdout == second.stdout
    other = runner.invoke(main_group, [*args, "--seed", "99"])
    counts = lambda out: [(r["violations"], r["cases"]) for r in map(json.loads, out.splitlines())]  # noqa: E731
    assert counts(other.stdout) != counts(first.stdout)


# -- the command --------------------------------------------------------------------------------

def invoke(*args: str):
    return CliRunner().invoke(main_group, ["axioms", *args])


def test_formats():
    args = ["-m", "RBU,Prec@10", "-c", "Pri", "-c", "Conf", "-n", "20", "-q"]
    csv_out = invoke(*args, "-f", "csv")
    assert csv_out.exit_code == 0
    lines = csv_out.stdout.splitlines()
    assert lines[0] == "measure,constraint,verdict,cases,violations,threshold,paper,binary,worse,better"
    assert len(lines) == 1 + 2 * 2
    assert lines[1].startswith("RBU,Pri,yes,40,0,,yes,False,,")
    records = [json.loads(line) for line in invoke(*args, "-f", "json").stdout.splitlines()]
    assert [(r["measure"], r["constraint"], r["verdict"]) for r in records] == [
        ("RBU", "Pri", "yes"), ("RBU", "Conf", "yes"), ("Prec@10", "Pri", "no"), ("Prec@10", "Conf", "no")]
    assert set(records[2]["example"]["files"]) == {"qrels.txt", "worse.txt", "better.txt"}
    markdown = invoke(*args, "-f", "markdown").stdout
    assert "| measure   | Pri" in markdown and "```" in markdown
    table = invoke(*args, "--no-examples").stdout
    assert "==> qrels.txt <==" not in table and "Prec@10" in table


def test_explain():
    result = invoke("--explain", "Sat")
    assert result.exit_code == 0
    assert "Constraint 9 (Aspect relevance saturation, Sat)" in result.stdout
    assert "Q(d) >= Q(d, d_{n+1})" in result.stdout
    everything = invoke("--explain", "all").stdout
    assert all(f"({c.title}, {c.key})" in everything for c in CONSTRAINTS)


@pytest.mark.parametrize("args", [
    ["--explain", "Foo"], ["-c", "Foo"], ["-m", "nosuch"], ["-m", "TOMA"], ["--max-length", "3"],
    ["-n", "0"], ["--gain", "x"],
])
def test_usage_errors_exit_2(args):
    result = invoke(*args, "-q")
    assert result.exit_code == 2, result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_tiny_genuine_differences_are_not_ties():
    """After three documents at level 10 (r = 1023/1024), one at level 1 (r = 1/1024) still adds
    (1/1024)^3 (1/1024) / 4 = 2^-42 to ERR: a violation of Sat, not a tie."""
    levels = np.array([[10], [10], [10], [1]])
    case = Case(levels, np.ones(4, dtype=bool), (0, 1, 2, 3), (0, 1, 2), param=10)
    assert constraint_named("Sat").premise(case) is None
    worse, better = score_cases([case], parse_measures(["IA-ERR@10"]), Options().settings)
    assert worse[0, 0] - better[0, 0] == pytest.approx(2.0 ** -42, rel=1e-3)
    assert violations(worse, better, strict=False)[0, 0]
