"""The layers of the package: every import points down, and tools are named only in compat/.

These are the rules of docs/architecture.md, checked on the source so
that they keep holding as the package grows.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "divaleval"

# Bottom to top; a module may import modules of its own layer or of layers below.
LAYERS = [
    {"errors", "ids", "arrays", "memory", "native", "threads", "lazy"},  # native: the compiled kernels, each with a numpy twin
    {"io"},
    {"model"},
    {"ranking"},
    {"context"},
    {"measures"},
    {"engine"},
    {"results", "aggregate", "labels"},  # labels: runs' short names, for every report
    {"evaluator", "cluster", "placement"},  # cluster: the Dask back end of the evaluator (and of the resampling
    # blocks); placement: where the work runs (processes here or a cluster)
    {"stats"},                 # pure numpy over a topics x runs matrix, knowing no measure
    {"meta", "axioms", "design", "report"},  # consume score matrices (meta; design: topic set sizes; report: the
    # organiser's) or score cases (axioms)
    {"output"},
    {"api"},
    {"cli", "__init__", "__main__", "ir_measures", "launch", "server"},  # ir_measures: the provider, an adapter over
    # the API; launch: the console script (a call handed to a server, or run here); server: forks the CLI per call
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def unit(path: Path) -> str:
    """The first component of a module's name below the package (``measures`` for measures/ncu/lists.py)."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imported_units(path: Path) -> set[str]:
    """The package units a module imports, anywhere in it (inside functions too)."""
    package = list(path.relative_to(PACKAGE.parent).parts[:-1])  # what a relative import starts from
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [target] if node.module else [f"{target}.{alias.name}" for alias in node.names]
            else:
                names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "divaleval" and len(parts) > 1:
                found.add(parts[1] if parts[1] in RANK or parts[1] == "compat" else "__init__")
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path):
    own = unit(path)
    for other in imported_units(path) - {own}:
        if own == "compat":  # beside the layers: builds conventions or a drop-in from what lies below
            assert other not in ("api", "cli", "compat"), (path, other)
            continue
        if other == "compat":
            assert own in ("api", "cli", "ir_measures"), f"{path} imports compat: only the API, the CLI and the " \
                "ir_measures provider (pyndeval's order) may name a mode"
            continue
        assert RANK[other] <= RANK[own], f"{path} ({own}) imports {other}, a layer above it"


def test_readers_know_nothing_above_them():
    for path in (PACKAGE / "io").rglob("*.py"):
        assert imported_units(path) <= {"io", "errors", "ids", "arrays", "memory", "native", "threads", "lazy"}, path


def test_output_does_not_import_the_api():
    for path in (PACKAGE / "output").rglob("*.py"):
        assert not imported_units(path) & {"api", "evaluator", "cli"}, path


def test_tool_names_live_in_compat():
    """The core consults conventions; only compat/ (and the CLI's option help) names a tool's mode."""
    for path in MODULES:
        if unit(path) in ("compat", "cli"):
            continue
        assert not re.search(r"\b(ntcireval|evalir)\b", path.read_text()), path


# -- one judgment model per kind ---------------------------------------------------------------

PREFERENCE_ONLY_RULES = {"preference_smoothing", "blank_judgment_repeats", "utility_with_unconditional",
                         "minimum_skips_unseen_given", "cumulate_weighted_utility", "preference_ideal",
                         "simulated_covered_weight"}


def test_qrels_carry_intent_levels_only():
    """The judged-document index and the intentwise Qrels hold no other kind's payload: multi-aspect and
    preference judgments are classes of their own over the same index, and preferences are no intent."""
    import dataclasses

    from divaleval.model import AspectQrels, JudgedDocuments, PreferenceQrels, Qrels

    for model in (JudgedDocuments, Qrels):
        assert not {f.name for f in dataclasses.fields(model)} & {"preferences", "aspects"}, model
        assert not hasattr(model, "preferences") and not hasattr(model, "aspects"), model
    assert {"levels", "intent_ids", "rel_count", "weights"} <= {f.name for f in dataclasses.fields(Qrels)}
    assert not {f.name for f in dataclasses.fields(JudgedDocuments)} & {"levels", "intent_ids", "weights"}
    assert issubclass(Qrels, JudgedDocuments) and issubclass(PreferenceQrels, JudgedDocuments)
    assert not issubclass(PreferenceQrels, Qrels) and not hasattr(PreferenceQrels, "levels")
    assert issubclass(AspectQrels, Qrels)  # aspects are the intent columns of their qrels


def test_preference_rules_are_not_conventions_flags():
    """Conventions carry the preference rules as one object of the preference model, not flag by flag."""
    import dataclasses

    from divaleval.model import Conventions, PreferenceRules

    fields = {f.name: f for f in dataclasses.fields(Conventions)}
    assert not PREFERENCE_ONLY_RULES & set(fields)
    assert fields["preference_rules"].type in (PreferenceRules, "PreferenceRules")


def test_a_measure_fits_judgments_by_their_type(tmp_path):
    """Measure.check is a type test: each kind of measure takes its own class of judgments, whatever
    attributes an object of another class may have."""
    import divaleval
    from divaleval.errors import UsageError
    from divaleval.io.preferences import PreferenceTable

    intentwise = divaleval.Qrels.from_arrays(["1", "1"], ["1", "2"], ["a", "b"], [1, 1])
    preferences = divaleval.load_preferences(PreferenceTable.from_arrays(["1"], ["x"], None, ["a"], ["b"], ["a"]))
    (tmp_path / "rel").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "trust").write_text("1 0 a 0\n1 0 b 1\n")
    aspects = divaleval.load_aspects([f"rel={tmp_path / 'rel'},labels=0:1", f"trust={tmp_path / 'trust'},labels=0:1"])
    fits = {  # measure: the judgments it fits (multi-aspect qrels are intentwise qrels too)
        "alpha-nDCG@10": (intentwise, aspects),
        "TOMA(m=nDCG)@10": (aspects,),
        "nPrf@10": (preferences,),
    }
    for name, fitting in fits.items():
        measure = divaleval.parse_measure(name)
        for judgments in (intentwise, aspects, preferences):
            if any(judgments is f for f in fitting):
                measure.check(judgments)
            else:
                with pytest.raises(UsageError, match="needs"):
                    measure.check(judgments)
    intentwise.aspects = aspects.aspects  # an attribute is not a kind
    with pytest.raises(UsageError, match="needs multi-aspect qrels"):
        divaleval.parse_measure("TOMA(m=nDCG)@10").check(intentwise)

def test_measures_do_not_import_native():
    """A measure reads as its formula: which compiled kernel or numpy twin computes a row sum is chosen
    behind divaleval/native, whose plain functions the measures reach through divaleval/arrays.py."""
    for path in (PACKAGE / "measures").rglob("*.py"):
        assert "native" not in imported_units(path), path


SWITCH = {"kernels", "kernel", "compiled", "_kernels"}  # native's own access to the compiled module


def import_statements(path: Path):
    """(module, imported names) of every import in a module, relative ones resolved (names: None for
    ``import module``)."""
    package = list(path.relative_to(PACKAGE.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            yield ".".join(base + ([node.module] if node.module else [])), [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None


def names_from_native(path: Path) -> set[str]:
    """The names a module imports from divaleval/native or its modules (``native.x`` for a module of it)."""
    found = set()
    for target, names in import_statements(path):
        if names is None:
            found |= {target.removeprefix("divaleval.native.")} if target.startswith("divaleval.native.") else set()
        elif target == "divaleval.native" or target.startswith("divaleval.native."):
            found |= {target.removeprefix("divaleval.native.")} if target != "divaleval.native" else set()
            found |= set(names)
        elif target == "divaleval":
            found |= {"native" for name in names if name == "native"}
    return found


def test_only_native_calls_the_compiled_module():
    """Only divaleval/native names the extension (``_kernels``) or asks for it (``kernels()``, ``kernel(name)``):
    every other module calls one of native's plain functions, which takes the kernel or its twin itself."""
    for path in MODULES:
        if unit(path) == "native":
            continue
        assert not names_from_native(path) & SWITCH, path
        assert not re.search(r"\b_kernels\b|\bkernels\(\)|\bnative\.kernels?\(", path.read_text()), path

# -- rendering lives in output/, where the work runs is resolved once, the measure registry has no circle ---------

def _source_tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _runtime_imports(path: Path) -> list[str]:
    """The absolute module names a module imports when it runs (``if TYPE_CHECKING:`` blocks left out)."""
    package = list(path.relative_to(PACKAGE.parent).parts[:-1])  # what a relative import starts from
    names = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names.extend([target] if node.module else [f"{target}.{alias.name}" for alias in node.names])
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(_source_tree(path))
    return names


CLI = sorted((PACKAGE / "cli").glob("*.py"))


@pytest.mark.parametrize("path", CLI, ids=lambda p: p.name)
def test_cli_renders_no_table(path):
    """The command line parses options and prints what output/ renders: no table, CSV or JSON of its own,
    and none of output/'s formatting primitives (so the library returns what the commands print)."""
    for name in _runtime_imports(path):
        assert name.split(".")[0] not in ("tabulate", "json", "csv"), f"{path} imports {name}: render in output/"
        assert name not in ("divaleval.output.formatting", "divaleval.output.tables"), \
            f"{path} imports {name}: a primitive of output/'s renderers"
    text = path.read_text()
    assert not re.search(r"\.to_csv\(|\bc_fixed\b|\btext_table\b|\bjson\.dumps\b", text), path


def test_one_resolver_of_where_the_work_runs():
    """-j, --scheduler and a connected cluster are resolved in placement.py alone: only it refuses jobs with a
    scheduler, counts the cores for jobs = 0, and connects to a cluster."""
    checks, connects, cores = [], [], []
    for path in MODULES:
        text = path.read_text()
        if re.search(r"\bjobs\s*!=\s*1\b", text):
            checks.append(path.relative_to(PACKAGE))
        if re.search(r"\bcpu_count\(\)", text) and re.search(r"\bjobs\b", text):
            cores.append(path.relative_to(PACKAGE))
        for node in ast.walk(_source_tree(path)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Cluster":
                connects.append(path.relative_to(PACKAGE))
    assert checks == [Path("placement.py")], checks
    assert set(cores) <= {Path("placement.py")}, cores
    assert set(connects) == {Path("placement.py")}, connects


def test_measure_registry_has_no_import_circle():
    """The registry's table is a leaf (it imports nothing of measures/ at run time but its index, which imports
    nothing), and the modules of measures/core import one another without a circle (definition.py and
    registry.py both import the table)."""
    core = PACKAGE / "measures" / "core"
    assert [n for n in _runtime_imports(core / "table.py") if n.startswith("divaleval")] == [
        "divaleval.measures.core.index"], "table.py is a leaf"
    assert not _runtime_imports(core / "index.py"), "index.py is a leaf"
    modules = {path.stem: path for path in core.glob("*.py") if path.name != "__init__.py"}
    edges = {}
    for name, path in modules.items():
        edges[name] = {imported.rsplit(".", 1)[-1] for imported in _runtime_imports(path)
                       if imported.startswith("divaleval.measures.core.")
                       and imported.rsplit(".", 1)[-1] in modules} - {name}
    assert "table" in edges["definition"] and "table" in edges["registry"]
    assert "registry" not in edges["definition"]
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import circle: {' -> '.join(path + (name,))}"
        if name in done:
            return
        for other in sorted(edges[name]):
            visit(other, path + (name,))
        done.add(name)

    for name in sorted(edges):
        visit(name, ())


# -- one tokenizer: io/lines splits every file's lines, runs have two readers ------------------------------

SPLITTER = "divaleval.io.lines"
OLD_SPLITTERS = {"line_blocks", "split_block", "split_lines", "binary_field", "_blocks", "_normalise", "Block"}


def absolute_imports(path: Path) -> set[str]:
    """The modules a module imports from (relative imports resolved), anywhere in it."""
    return {target for target, _ in import_statements(path)}


def defined_names(path: Path) -> set[str]:
    """The functions and classes a module defines at its top level."""
    return {node.name for node in ast.parse(path.read_text()).body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def test_the_ndeval_drop_in_is_a_package():
    drop_in = PACKAGE / "compat" / "ndeval"
    assert (drop_in / "__init__.py").is_file() and not (PACKAGE / "compat" / "ndeval.py").exists()
    assert len(list(drop_in.glob("*.py"))) > 2, "one module per concern"


def test_the_ndeval_drop_in_reads_lines_through_io_lines():
    modules = sorted((PACKAGE / "compat" / "ndeval").glob("*.py"))
    assert any(SPLITTER in absolute_imports(path) for path in modules)
    for path in modules:
        assert not defined_names(path) & OLD_SPLITTERS, path
        assert "pyarrow.csv" not in absolute_imports(path), path


def test_io_has_one_splitter_and_runs_two_readers():
    """io/lines is the one splitter; io/table reads by it alone (no Arrow CSV reader, no fast path of its own);
    a run is read by the compiled kernel or by io/table, nothing else."""
    for path in (PACKAGE / "io").rglob("*.py"):
        if path.name != "lines.py":
            assert not defined_names(path) & (OLD_SPLITTERS | {"_fast_read", "_arrow_batches"}), path
    table = PACKAGE / "io" / "table.py"
    assert SPLITTER in absolute_imports(table) and "pyarrow.csv" not in absolute_imports(table)
    runs = ast.parse((PACKAGE / "io" / "runs.py").read_text())
    read_run = next(node for node in runs.body if isinstance(node, ast.FunctionDef) and node.name == "read_run")
    called = {node.func.id for node in ast.walk(read_run) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    readers = {name for name in called if "read" in name and name != "read_input"}
    assert readers == {"_read_plain_run", "read_columns"}, readers
