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


# -- one tokenizer: io/lines splits every file's lines, runs have two readers ------------------------------

SPLITTER = "divaleval.io.lines"
OLD_SPLITTERS = {"line_blocks", "split_block", "split_lines", "binary_field", "_blocks", "_normalise", "Block"}


def absolute_imports(path: Path) -> set[str]:
    """The modules a module imports from (relative imports resolved), anywhere in it."""
    package = list(path.relative_to(PACKAGE.parent).parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            found.add(".".join(base + ([node.module] if node.module else [])))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


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
