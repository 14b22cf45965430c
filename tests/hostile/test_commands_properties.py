"""Hostile input for the newer commands, property-based (issue 26): `compare`, `meta`, `axioms`,
`validate` and `simulate-preferences`, given hostile qrels, runs, score files, gold and profile files,
hostile option values and hostile output paths (a folder that does not exist, a folder, an input, a
path under a regular file, a place nobody may write to, an existing file).

For every case (in-process, each under harness.TIME_LIMIT seconds; a few in a subprocess):

* never a traceback, never a hang;
* exit 0 or 2 (`validate`: 0, 1 for a run with problems, or 2), and on 2 a message: `divaleval: ...`
  (naming FILE or FILE:LINE, with a line the file has, when only files are hostile) or click's usage
  `Error: ...`;
* no lost output: on exit 0 standard output is whole and parses in its format; an output file is
  either absent or whole (a figure that opens as its format, judgments that parse, a run fixed);
* a bad output path is refused before any work: exit 2, nothing on standard output, no file made,
  no input changed.

Default profile (in `make test`): about 260 cases. Long profile (`-m long`): more than 3,000.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hostile import harness as h

# -- inputs ----------------------------------------------------------------------------------------

MEASURES = "alpha-nDCG@5,ERR-IA@10"  # two cheap measures (meta's unanimity needs two)


@lru_cache(maxsize=None)
def corpus() -> h.Corpus:
    """oracle/ndeval/examples: 33 qrels lines over 4 topics, runs of 40 and 17 lines."""
    return h.corpora()[1]


def lines_of(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


@st.composite
def topic_files(draw, mutations: int = 3, min_topics: int = 1):
    """(qrels, run A, run B) for some topics of the corpus, each with 0 to ``mutations`` hostile changes
    (``ALL_MUTATIONS``); no change at all now and then, so that legal inputs are tried too."""
    source = corpus()
    topics = draw(st.lists(st.sampled_from(source.topics), min_size=min_topics, max_size=4, unique=True))
    texts = [h.FileText([line for line in lines if line.split()[0] in topics])
             for lines in (source.qrels, *source.runs)]
    for _ in range(draw(st.integers(0, mutations))):
        k = draw(st.integers(0, 2))
        h.mutate(draw, texts[k], draw(st.sampled_from(h.ALL_MUTATIONS)), h.QRELS_NUMERIC if k == 0 else h.RUN_NUMERIC)
    return tuple(text.render() for text in texts)


@lru_cache(maxsize=None)
def score_file(fmt: str) -> bytes:
    """divaleval's own per-topic scores of the corpus' two runs, in one of its formats."""
    examples = {str(h.NDEVAL_EXAMPLES / name): b"" for name in ("qrels.txt", "runA.txt", "runB.txt")}
    outcome = h.invoke(h.NATIVE, ["-q", "-f", fmt, "-m", MEASURES, *examples])
    assert outcome.status == 0, outcome.describe()
    return outcome.stdout


SCORE_FORMATS = ["ndeval", "json", "trec", "table"]


@st.composite
def score_files(draw):
    """A score file divaleval printed (any format), its lines mutated 0 to 3 times."""
    text = h.FileText(score_file(draw(st.sampled_from(SCORE_FORMATS))).splitlines())
    for _ in range(draw(st.integers(0, 3))):
        h.mutate(draw, text, draw(st.sampled_from(h.ALL_MUTATIONS)), (2, 3))
    return text.render()


@st.composite
def gold_files(draw):
    """Gold preferences `topic runA runB winner` for the corpus' runs, mutated 0 to 3 times."""
    names = draw(st.sampled_from([("runA", "runB"), ("runA.txt", "runB.txt")]))
    lines = [b"%s %s %s %s" % (topic, names[0].encode(), names[1].encode(), draw(st.sampled_from(names)).encode())
             for topic in draw(st.lists(st.sampled_from(corpus().topics), min_size=1, max_size=4, unique=True))]
    text = h.FileText(lines)
    for _ in range(draw(st.integers(0, 3))):
        h.mutate(draw, text, draw(st.sampled_from(h.ALL_MUTATIONS)), (0,))
    return text.render()


@st.composite
def profile_files(draw):
    """User profiles `topic profile intent...` over the corpus' topics and intents, mutated 0 to 3 times."""
    lines = []
    for number, topic in enumerate(draw(st.lists(st.sampled_from(corpus().topics), min_size=1, max_size=3))):
        intents = draw(st.lists(st.sampled_from([b"1", b"2", b"3", b"4", b"9"]), min_size=1, max_size=3))
        lines.append(b" ".join([topic, b"p%d" % number, *intents]))
    text = h.FileText(lines)
    for _ in range(draw(st.integers(0, 3))):
        h.mutate(draw, text, draw(st.sampled_from(h.ALL_MUTATIONS)), (0, 2))
    return text.render()


# -- option values ---------------------------------------------------------------------------------

def costly(token: str, limit: int) -> bool:
    """A plain integer above ``limit`` but not so large that it must be refused: legal work, only long
    (10^9 trials take hours); such values are the subject of their own tests, not of these cases."""
    return re.fullmatch(r"\+?0*[0-9]{1,10}", token.strip()) is not None and limit < int(token) <= 10**10


def value(legal: list[str], limit: int | None = None) -> st.SearchStrategy[str]:
    """An option's value: mostly a legal one, else a hostile number or id (not a costly one)."""
    hostile = st.one_of(h.numbers(), h.ids()).filter(lambda t: "\x00" not in t)
    if limit is not None:
        hostile = hostile.filter(lambda t: not costly(t, limit))
    return st.one_of(st.sampled_from(legal), st.sampled_from(legal), hostile)


@st.composite
def options(draw, table: dict[str, st.SearchStrategy[str]]) -> tuple[list[str], bool]:
    """Some of the options of ``table`` (name -> values); and whether each value given is a legal one."""
    chosen, legal = [], True
    for name, values in table.items():
        if draw(st.booleans()):
            continue
        given = draw(values)
        chosen += [name, given]
        legal &= given in LEGAL.get(name, ())
    return chosen, legal


# The legal values of each option (anything else drawn is hostile).
LEGAL = {
    "-B": ["1", "20", "50"], "--seed": ["0", "7", "123456789"], "--alpha": ["0.05", "0.1", "0.5"],
    "--missing": ["error", "zero", "drop"], "-M": ["3", "10", "1000"],
    "-s": ["tau-matrix", "tau", "power", "mu", "asl"], "--method": ["tukey", "bootstrap"],
    "--max-docs": ["1", "5", "1000"], "--docno-pattern": ["d[0-9]+", ".*", "[a-z]+[0-9]*"],
    "--pool-depth": ["1", "5", "20"], "--kind": ["pairs", "triplets", "both"], "--ties": ["random", "alphabetical"],
    "-n": ["1", "2"], "--max-length": ["4", "6", "8"], "--gain": ["exp", "linear", "1:3:7"],
    "--topicwise": ["max", "sumlog"], "-m": ["RBU", "alpha-nDCG@5", "ERR-IA@10", "P-IA@5", "strec@5"],
    "-c": ["Pri", "Deep", "Conf", "Red", "Sat", "1", "7"],
}
SCORING = {"-B": value(LEGAL["-B"], 2000), "--seed": value(LEGAL["--seed"]), "--alpha": value(LEGAL["--alpha"]),
           "--missing": value(LEGAL["--missing"]), "-M": value(LEGAL["-M"])}


# -- outputs ---------------------------------------------------------------------------------------

@dataclass
class Case:
    """A command line, its input files (name -> bytes) and whether only its files are hostile."""

    argv: list[str]
    inputs: dict[str, bytes]
    legal_options: bool = True
    output: str | None = None       # the output path given
    output_kind: str = "none"       # OUTPUT_KINDS
    refused: bool = False           # the output path must be refused before any work
    written: str | None = None      # the file written where the path is accepted


def write(directory: Path, name: str, data: bytes) -> str:
    path = directory / name
    path.write_bytes(data)
    return str(path)


def fresh(tmp_path: Path) -> Path:
    """A new, empty folder for one generated case (hypothesis runs many in one test's tmp_path)."""
    fresh.count = getattr(fresh, "count", 0) + 1
    folder = tmp_path / f"case{fresh.count}"
    folder.mkdir()
    return folder


# Hostile output paths. Each is refused before any work, except where a writer's documented rules take it.
OUTPUT_KINDS = [
    "new",             # a new file in an existing folder
    "missing folder",  # in a folder that does not exist
    "folder",          # an existing folder
    "input",           # one of the inputs
    "under a file",    # a path under a regular file
    "unwritable",      # a folder nobody may write to (as root: /sys)
    "existing",        # an existing file that is no input
]
ACCEPTED = {
    "plot": {"new", "existing"},  # a figure replaces an existing file (never an input), whole
    "-o": {"new"},                # simulate-preferences: an existing file only with --force
    "--fix": {"new", "missing folder", "folder"},  # validate makes the folder it needs; a folder is written into
}
def output_path(folder: Path, kind: str, suffix: str, an_input: str) -> str:
    if kind == "new":
        return str(folder / f"out{suffix}")
    if kind == "missing folder":
        return str(folder / "no-such-folder" / f"out{suffix}")
    if kind == "folder":
        (folder / f"sub{suffix}").mkdir()
        return str(folder / f"sub{suffix}")
    if kind == "input":
        return an_input
    if kind == "under a file":
        (folder / "plain").write_bytes(b"a file\n")
        return str(folder / "plain" / f"out{suffix}")
    if kind == "unwritable":
        if os.geteuid() == 0:  # root writes anywhere a mode allows nothing: sysfs refuses new files
            return f"/sys/divaleval-test-output{suffix}"
        locked = folder / "locked"
        locked.mkdir(mode=0o555)
        return str(locked / f"out{suffix}")
    if kind == "existing":
        return write(folder, f"existing{suffix}", b"kept\n")
    raise ValueError(kind)


FIGURE_MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF-", ".svg": b"<?xml"}


def check_figure(path: str) -> None:
    data = Path(path).read_bytes()
    assert data.startswith(FIGURE_MAGIC[os.path.splitext(path)[1]]), f"{path} is not a whole figure"
    assert data.rstrip().endswith({".png": b"IEND\xaeB`\x82", ".pdf": b"%%EOF", ".svg": b"</svg>"}[
        os.path.splitext(path)[1]]), f"{path} is cut short"


def check_preferences(text: bytes) -> None:
    """simulate-preferences' lines: `topic profile docA docB winner` or `topic profile given docA docB winner`."""
    for line in text.splitlines():
        fields = line.split()
        assert len(fields) in (5, 6) and fields[-1] in fields[-3:-1], f"not a judgment: {line!r}"


def check_fixed_run(text: bytes) -> None:
    for line in text.splitlines():
        fields = line.split()
        assert len(fields) == 6 and fields[1] == b"Q0", f"not a run line: {line!r}"
        int(fields[3])
        float(fields[4])


def parse_stdout(command: str, fmt: str, stdout: bytes) -> None:
    """Standard output of a successful command, whole: it ends with a newline and parses in its format."""
    if command == "simulate-preferences":
        return check_preferences(stdout)
    assert stdout.endswith(b"\n"), "output cut short (no final newline)"
    text = stdout.decode("utf-8", "surrogateescape")
    if fmt == "json":
        for line in text.splitlines():
            assert isinstance(json.loads(line), dict), f"not a JSON object: {line!r}"
    elif fmt == "csv":
        rows = text.splitlines()
        assert len(rows) >= 2 and all(row.count(",") >= rows[0].count(",") for row in rows[1:]), "bad CSV"
    elif command == "validate":
        last = text.splitlines()[-1]
        assert re.search(r": (OK|\d+ problems?) |^\d+ files: ", last), f"no summary line: {last!r}"
    else:
        assert text.strip(), "empty output"


def check(case: Case, outcome: h.Outcome, fmt: str = "table") -> None:
    """The properties of the module docstring, for one case."""
    h.check_sound(outcome)
    command = case.argv[0]
    statuses = (0, 1, 2) if command == "validate" else (0, 2)
    assert outcome.status in statuses, f"exit status {outcome.status}\n" + outcome.describe()
    if outcome.status == 2:
        check_message(case, outcome)
    elif case.refused:
        raise AssertionError(f"output path ({case.output_kind}) {case.output} accepted\n" + outcome.describe())
    else:
        try:
            parse_stdout(command, fmt, outcome.stdout)
        except (AssertionError, ValueError) as exc:
            raise AssertionError(f"lost output: {exc}\n" + outcome.describe()) from None
    for name, data in case.inputs.items():
        assert not os.path.isfile(name) or Path(name).read_bytes() == data, \
            f"input {name} changed\n" + outcome.describe()
    if case.output is None:
        return
    if case.refused:
        assert outcome.status == 2 and outcome.stdout == b"", \
            f"output path ({case.output_kind}) not refused before the work\n" + outcome.describe()
    if case.output_kind == "existing" and (case.refused or outcome.status == 2):
        assert Path(case.output).read_bytes() == b"kept\n", "an existing file overwritten\n" + outcome.describe()
    elif case.written and os.path.isfile(case.written):
        assert outcome.status in (0, 1), f"{case.written} written by a failing command\n" + outcome.describe()
        if command == "simulate-preferences":
            check_preferences(Path(case.written).read_bytes())
        elif command == "validate":
            check_fixed_run(Path(case.written).read_bytes())
        else:
            check_figure(case.written)
    if case.written:
        folder = os.path.dirname(case.written)
        leftovers = [name for name in (os.listdir(folder) if os.path.isdir(folder) else [])
                     if name.startswith(".divaleval-")]
        assert not leftovers, f"partial files left: {leftovers}\n" + outcome.describe()


def check_message(case: Case, outcome: h.Outcome) -> None:
    """An error exit: a message, `divaleval: ...` or click's `Error: ...`; a file named where files alone
    are hostile."""
    errors = [line for line in outcome.stderr.splitlines() if line and ": warning: " not in line]
    ours = [line for line in errors if line.startswith("divaleval: ")]
    usage = [line for line in errors if line.startswith("Error: ")]
    assert ours or usage, "exit 2 without a message\n" + outcome.describe()
    if case.legal_options and ours and case.output_kind in ("none", "new"):
        where = h.located("\n".join(ours), case.inputs)
        assert where, "the message names no input as FILE:LINE: or FILE:\n" + outcome.describe()
        for name, number in where:
            assert number is None or 1 <= number <= h.line_count(case.inputs[name]), \
                f"{name} has no line {number}\n" + outcome.describe()


# -- 1. compare and meta on hostile files and options ---------------------------------------------------

def scored_inputs(folder: Path, files: tuple[bytes, bytes, bytes]) -> dict[str, bytes]:
    qrels, run_a, run_b = files
    return {write(folder, "qrels.txt", qrels): qrels, write(folder, "runA.txt", run_a): run_a,
            write(folder, "runB.txt", run_b): run_b}


BASELINES = ["runA", "runA.txt", "runB", "nosuch", ""]


@pytest.mark.parametrize("settings", h.sizes(25, 400))
def test_compare_on_hostile_files_and_options(tmp_path, settings):
    @settings
    @given(topic_files(), options(SCORING), st.sampled_from(["table", "csv", "json"]),
           st.one_of(st.none(), st.sampled_from(BASELINES)))
    def check_case(files, chosen, fmt, baseline):
        folder = fresh(tmp_path)
        inputs = scored_inputs(folder, files)
        args, legal = chosen
        if baseline is not None:
            args += ["--baseline", baseline if baseline in ("", "nosuch") else str(folder / baseline)
                     if baseline.endswith(".txt") else baseline]
        case = Case(["compare", "-q", "-m", MEASURES, "-f", fmt, *args, *inputs], inputs, legal)
        check(case, h.invoke(h.NATIVE, case.argv), fmt)

    check_case()


@pytest.mark.parametrize("settings", h.sizes(25, 400))
def test_meta_on_hostile_files_and_options(tmp_path, settings):
    meta_options = {**SCORING, "-s": value(LEGAL["-s"]), "--method": value(LEGAL["--method"])}

    @settings
    @given(topic_files(), options(meta_options), st.sampled_from(["table", "json"]),
           st.one_of(st.none(), gold_files()))
    def check_case(files, chosen, fmt, gold):
        folder = fresh(tmp_path)
        inputs = scored_inputs(folder, files)
        args, legal = chosen
        if gold is not None:
            path = write(folder, "gold.txt", gold)
            inputs[path] = gold
            args += ["--gold", path]
        case = Case(["meta", "-q", "-m", MEASURES, "-f", fmt, *args, *[n for n in inputs if "gold" not in n]],
                    inputs, legal)
        check(case, h.invoke(h.NATIVE, case.argv), fmt)

    check_case()


@pytest.mark.parametrize("settings", h.sizes(25, 400))
@pytest.mark.parametrize("command", ["compare", "meta"])
def test_scores_read_back_hostile(tmp_path, command, settings):
    """--scores FILE: divaleval's own output in every format it writes, mutated."""
    @settings
    @given(st.lists(score_files(), min_size=1, max_size=2), st.sampled_from(["table", "json", "csv"]),
           options({"-B": value(LEGAL["-B"], 2000), "--missing": value(LEGAL["--missing"])}))
    def check_case(files, fmt, chosen):
        folder = fresh(tmp_path)
        inputs = {write(folder, f"scores{k}.txt", data): data for k, data in enumerate(files)}
        args, legal = chosen
        sections = ["-s", "tau"] if command == "meta" and fmt == "csv" else []
        case = Case([command, "-q", "-f", fmt, *sections, *args, *(f"--scores={name}" for name in inputs)],
                    inputs, legal)
        check(case, h.invoke(h.NATIVE, case.argv), fmt)

    check_case()


# -- 2. validate ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings", h.sizes(30, 400))
def test_validate_on_hostile_runs_and_options(tmp_path, settings):
    table = {"--max-docs": value(LEGAL["--max-docs"]),
             "--docno-pattern": st.sampled_from([*LEGAL["--docno-pattern"], "(", "[", "*", "a{2,1}", "(?P<", "\\",
                                                 "", "[^\\x00]*", "é+", "\\d"])}

    @settings
    @given(topic_files(), options(table), st.booleans(), st.booleans())
    def check_case(files, chosen, with_topics, quiet):
        folder = fresh(tmp_path)
        inputs = scored_inputs(folder, files)
        qrels, *runs = inputs
        args, legal = chosen
        legal &= "--docno-pattern" not in args or args[args.index("--docno-pattern") + 1] in LEGAL["--docno-pattern"]
        case = Case(["validate", *args, *(["--topics", qrels] if with_topics else []), *(["-q"] if quiet else []),
                     *runs], inputs if with_topics else {name: inputs[name] for name in runs}, legal)
        check(case, h.invoke(h.NATIVE, case.argv))

    check_case()


# -- 3. simulate-preferences -------------------------------------------------------------------------------

@pytest.mark.parametrize("settings", h.sizes(30, 400))
def test_simulate_preferences_on_hostile_files_and_options(tmp_path, settings):
    table = {"--pool-depth": value(LEGAL["--pool-depth"]), "--kind": value(LEGAL["--kind"]),
             "--ties": value(LEGAL["--ties"]), "--seed": value(LEGAL["--seed"])}

    @settings
    @given(topic_files(), st.one_of(st.none(), profile_files()), st.integers(0, 2), options(table), st.booleans())
    def check_case(files, profiles, pooled, chosen, evalir):
        folder = fresh(tmp_path)
        inputs = scored_inputs(folder, files)
        qrels, *runs = inputs
        args, legal = chosen
        if profiles is not None:
            path = write(folder, "profiles.txt", profiles)
            inputs[path] = profiles
            args += ["--profiles", path]
        for run in runs[:pooled]:
            args += ["--pool", run]
        used = {name: data for name, data in inputs.items() if name == qrels or name in args}
        case = Case(["simulate-preferences", "-q", *args, *(["--compat", "evalir"] if evalir else []), qrels],
                    used, legal)
        check(case, h.invoke(h.NATIVE, case.argv))

    check_case()


# -- 4. axioms: hostile option values only (it reads no file) ------------------------------------------------

@pytest.mark.parametrize("settings", h.sizes(25, 400))
def test_axioms_on_hostile_options(tmp_path, settings):
    table = {"-n": value(LEGAL["-n"], 3), "--seed": value(LEGAL["--seed"]),
             "--max-length": value(LEGAL["--max-length"], 8), "--gain": value(LEGAL["--gain"]),
             "--topicwise": value(LEGAL["--topicwise"]), "-c": value(LEGAL["-c"])}

    @settings
    @given(st.lists(value(LEGAL["-m"]), min_size=1, max_size=2), options(table),
           st.sampled_from(["table", "csv", "json", "markdown"]), st.booleans())
    def check_case(measures, chosen, fmt, examples):
        args, _legal = chosen
        if "-n" not in args:
            args += ["-n", "2"]
        if "--max-length" not in args:
            args += ["--max-length", "6"]
        case = Case(["axioms", "-q", "-f", fmt, *(f"-m{m}" for m in measures), *args,
                     "--examples" if examples else "--no-examples"], {}, False)
        check(case, h.invoke(h.NATIVE, case.argv), fmt)

    check_case()


def test_axioms_refuse_work_that_would_take_hours():
    """A ranking length or a number of cases past what can be checked in minutes, a seed numpy cannot take:
    usage errors, at once."""
    for args in (["--max-length", "500"], ["--max-length", "99999999999999999999"], ["-n", "99999999999999999999"],
                 ["--seed", "-1"]):
        outcome = h.invoke(h.NATIVE, ["axioms", "-q", "-m", "RBU", "-c", "Pri", *args])
        h.check_sound(outcome)
        assert outcome.status == 2 and outcome.stdout == b"" and "Error: " in outcome.stderr, outcome.describe()


def test_axioms_an_example_that_does_not_violate_when_scored_alone_is_said_so():
    """A counterexample judged in one batch whose two scores, scored alone, tie within the tolerance (long
    rankings: sums a few units in the last place apart) is printed with a note, not an assertion failure."""
    import numpy as np

    from divaleval.api import resolve_measures
    from divaleval.axioms import NO, Options, Verdict, checker, constraint_named
    from divaleval.axioms.shrink import ShrinkTask

    priority = constraint_named("Pri")
    held = priority.generate(np.random.default_rng(1), 1, Options(), None)[0]  # RBU satisfies Pri: no violation
    verdict = Verdict("RBU", "Pri", NO, 1, 1)
    checker._finish_examples([(ShrinkTask(priority, 0, held), verdict)], resolve_measures(["RBU"]),
                             Options().settings)
    assert verdict.status == NO and verdict.example is held and verdict.scores[1] > verdict.scores[0]
    assert verdict.note.startswith("scored alone, this example's scores differ by ")


# -- 5. hostile output paths -----------------------------------------------------------------------------

# Output paths checked only when the file is written, after the work: a traceback (or, for validate --fix,
# a wrong message after every run was validated). Fixed by issue 26 item 1 on branch g26-paths.
WRITERS = {  # what writes a file: the option, the suffix of the file, the files to read
    "compare --plot": ("--plot", ".png"),
    "meta --plot": ("--plot", ".svg"),
    "meta --plot-tau": ("--plot-tau", ".pdf"),
    "simulate-preferences -o": ("-o", ".txt"),
    "validate --fix": ("--fix", ".txt"),
}


def output_params():
    return [pytest.param(writer, kind, id=f"{writer}-{kind}") for writer in WRITERS for kind in OUTPUT_KINDS]


@pytest.mark.parametrize("settings", h.sizes(2, 12))
@pytest.mark.parametrize("writer,kind", output_params())
def test_output_paths(tmp_path, writer, kind, settings):
    command = writer.split()[0]
    option, suffix = WRITERS[writer]

    @settings
    @given(topic_files(mutations=0, min_topics=3))  # legal inputs: the output path is what is hostile
    def check_case(files):
        folder = fresh(tmp_path)
        inputs = scored_inputs(folder, files)
        qrels, *runs = inputs
        target = output_path(folder, kind, suffix, runs[0] if command != "simulate-preferences" else qrels)
        if command in ("compare", "meta"):
            argv = [command, "-q", "-B", "20", "-m", MEASURES, option, target, *inputs]
        elif command == "simulate-preferences":
            argv = [command, "-q", option, target, qrels]
            inputs = {qrels: inputs[qrels]}
        else:
            argv = [command, option, target, runs[0]]
            inputs = {runs[0]: inputs[runs[0]]}
        rules = "plot" if "plot" in option else option
        written = os.path.join(target, "runA.txt") if command == "validate" and kind == "folder" else \
            None if kind == "input" else target
        case = Case(argv, inputs, True, target, kind, kind not in ACCEPTED[rules], written)
        check(case, h.invoke(h.NATIVE, argv))
        if kind == "unwritable" and os.path.exists(target) and target.startswith("/sys/"):
            pytest.fail(f"{target} was created")

    check_case()


# -- 6. the real command line, in a subprocess -----------------------------------------------------------------

def subprocess_params():
    bad_run = b"1 Q0 d1 1 1.0 r\n1 Q0 d2 x 0.5 r\n"
    return [
        pytest.param(["compare", "-q", "-B", "20", "-m", MEASURES, "{qrels}", "{run}", "{bad}"], bad_run,
                     id="compare, a bad run"),
        pytest.param(["meta", "-q", "-B", "20", "-m", MEASURES, "--scores", "{bad}"], b"runid,topic,x\nr,1,y\n",
                     id="meta, a bad score file"),
        pytest.param(["validate", "--topics", "{bad}/topics.txt", "{run}"], b"", id="validate, topics under a file"),
        pytest.param(["simulate-preferences", "--profiles", "{bad}", "{qrels}"], b"1 p\n", id="simulate, bad profiles"),
        pytest.param(["axioms", "-q", "-n", "1", "--max-length", "99999999999999999999"], b"",
                     id="axioms, huge length"),
        pytest.param(["compare", "-q", "-B", "99999999999999999999", "{qrels}", "{run}", "{run}"], b"",
                     id="compare, 10^20 trials"),
    ]


@pytest.mark.parametrize("args,bad", subprocess_params())
def test_real_command_line(tmp_path, args, bad):
    names = {"qrels": str(h.NDEVAL_EXAMPLES / "qrels.txt"), "run": str(h.NDEVAL_EXAMPLES / "runA.txt"),
             "bad": write(tmp_path, "bad.txt", bad)}
    argv = [arg.format(**names) for arg in args]
    outcome = h.subprocess_case(h.NATIVE, argv, timeout=60)
    named = [path for arg, path in zip(args, argv) if "{" in arg]
    inputs = {path: Path(path).read_bytes() if os.path.isfile(path) else b"" for path in named}
    check(Case(argv, inputs, True), outcome)
    assert outcome.status == 2, outcome.describe()
