"""The layers of the package: every import points down, and tools are named only in compat/.

These are the rules of the README's Design section, checked on the source so
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
    {"errors", "ids", "arrays", "memory", "native"},  # native: the compiled kernels, each with a numpy twin
    {"io"},
    {"model"},
    {"ranking"},
    {"context"},
    {"measures"},
    {"engine"},
    {"results", "aggregate"},
    {"evaluator", "cluster"},  # cluster: the Dask back end of the evaluator (and of the resampling blocks)
    {"stats"},                 # pure numpy over a topics x runs matrix, knowing no measure
    {"meta", "axioms"},        # consume score matrices (meta) or score generated cases (axioms)
    {"output"},
    {"api"},
    {"cli", "__init__", "__main__"},
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
            assert own in ("api", "cli"), f"{path} imports compat: only the API and the CLI may name a mode"
            continue
        assert RANK[other] <= RANK[own], f"{path} ({own}) imports {other}, a layer above it"


def test_readers_know_nothing_above_them():
    for path in (PACKAGE / "io").rglob("*.py"):
        assert imported_units(path) <= {"io", "errors", "ids", "arrays", "memory", "native"}, path


def test_output_does_not_import_the_api():
    for path in (PACKAGE / "output").rglob("*.py"):
        assert not imported_units(path) & {"api", "evaluator", "cli"}, path


def test_tool_names_live_in_compat():
    """The core consults conventions; only compat/ (and the CLI's option help) names a tool's mode."""
    for path in MODULES:
        if unit(path) in ("compat", "cli"):
            continue
        assert not re.search(r"\b(ntcireval|evalir)\b", path.read_text()), path


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
    """-j, --scheduler and a connected cluster are resolved in cluster.py alone: only it refuses jobs with a
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
    assert checks == [Path("cluster.py")], checks
    assert set(cores) <= {Path("cluster.py")}, cores
    assert set(connects) == {Path("cluster.py")}, connects


def test_measure_registry_has_no_import_circle():
    """The registry's table is a leaf (it imports nothing of measures/ at run time), and the modules of
    measures/core import one another without a circle (definition.py and registry.py both import the table)."""
    core = PACKAGE / "measures" / "core"
    assert not [n for n in _runtime_imports(core / "table.py") if n.startswith("divaleval")], "table.py is a leaf"
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
