"""The documentation is true of the code: generated pages are current, and every command's help is useful.

* docs/reference/measures.md is what :mod:`divaleval.output.reference` generates from the catalogue now
  (a measure registered, renamed or re-documented without regenerating it fails here: run `make docs`);
* docs/reference/api.md documents every name of ``divaleval.__all__``; every page of mkdocs.yml's nav
  exists and every page under docs/ is in the nav (`make docs` then builds the site strictly);
* every command's ``--help`` has examples, a pointer to its page under docs/commands/ (which exists) and
  no placeholder bound (click's ``[x<=None]``); and every example runs, from a folder laid out as the
  repository's root, with exit status 0.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

import divaleval
from divaleval.output.reference import PAGE, measures_page

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
COMMANDS = ["evaluate", "ndeval", "trec_eval", "gdeval", "compare", "meta", "axioms", "validate",
            "simulate-preferences"]
COMMANDS += ["report", "server"]  # issues 30, 32
# A command whose examples another branch rewrites (issue 27: cli/validate.py); remove at the merge.
def test_the_measures_reference_is_current():
    committed = (ROOT / PAGE).read_text(encoding="utf-8")
    assert committed == measures_page(), (
        f"{PAGE} is stale: run `make docs` (or python -m divaleval.output.reference {PAGE}) and commit it")


def test_the_measures_reference_has_a_section_per_family():
    page = measures_page()
    for definition in divaleval.catalogue():
        assert f"\n## {definition.name} {{#" in page, definition.name


def test_the_api_page_documents_every_public_name():
    page = (DOCS / "reference" / "api.md").read_text()
    documented = set(re.findall(r"^::: divaleval(?:\.\w+)*\.(\w+)$", page, re.MULTILINE))
    missing = sorted(set(divaleval.__all__) - documented - {"__version__"})
    assert not missing, f"docs/reference/api.md lacks {missing}"


def _nav_pages() -> list[str]:
    return re.findall(r"^\s*- (?:[^:\n]+: )?([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)


def test_the_nav_and_the_pages_agree():
    nav = _nav_pages()
    assert len(nav) == len(set(nav))
    assert not [page for page in nav if not (DOCS / page).is_file()], "mkdocs.yml names a page that does not exist"
    pages = sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))
    assert not sorted(set(pages) - set(nav)), "a page under docs/ is missing from mkdocs.yml's nav"


@lru_cache(maxsize=None)
def _help(command: str) -> str:
    args = [] if command == "evaluate" else [command]
    result = subprocess.run([str(BIN / "divaleval"), *args, "--help"], capture_output=True, text=True, check=True)
    return result.stdout


def examples(command: str) -> list[str]:
    """The command lines of the Examples section of ``command``'s help."""
    lines = _help(command).splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"\s*examples\b.*:", line, re.IGNORECASE))
    found = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        found.append(line.strip())
    return found


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_examples_and_a_docs_page(command):
    text = _help(command)
    assert examples(command), f"{command} --help has no examples"
    pointer = re.search(r"^\s*Docs: (docs/commands/[\w-]+\.md)$", text, re.MULTILINE)
    assert pointer and pointer.group(1) == f"docs/commands/{command}.md", text
    assert (ROOT / pointer.group(1)).is_file()


def test_help_shows_no_placeholder_bounds():
    for command in COMMANDS:
        text = _help(command)
        assert "None]" not in text and "x<=None" not in text, command


# Commands whose examples are one session, run in order as one script: the server's start, calls, stop.
SESSIONS = {"server"}


def _example_cases():
    for command in COMMANDS:
        if command in SESSIONS:
            yield pytest.param("\n".join(examples(command)), id=f"{command}: its examples in order")
            continue
        for line in examples(command):
            marks = [pytest.mark.dask] if "--scheduler" in line else []
            yield pytest.param(line, marks=marks, id=f"{command}: {line[:60]}")


@pytest.mark.parametrize("line", list(_example_cases()))
def test_each_example_runs(tmp_path, line):
    """Run as a user would, from the root of a copy of the repository's layout (files it writes land there)."""
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    if "--scores scores.jsonl" in line:  # the example before it in the help writes the file
        subprocess.run(f"divaleval -f json -m ndeval,D#-nDCG@10 sample_data/qrels.txt sample_data/runs/ "
                       "> scores.jsonl", shell=True, cwd=tmp_path, check=True, env=_env())
    # A server started by an example lives in a runtime directory of its own (short: a socket's path is short),
    # so that no other test's call reaches it, and is stopped whatever happens.
    runtime = tempfile.mkdtemp(prefix="dvd")
    env = {**_env(), "XDG_RUNTIME_DIR": runtime}
    try:
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", line], cwd=tmp_path, capture_output=True,
                                text=True, env=env, timeout=300)
    finally:
        subprocess.run([str(BIN / "divaleval"), "server", "stop"], env=env, capture_output=True)
        shutil.rmtree(runtime, ignore_errors=True)
    assert result.returncode == 0, f"{shlex.quote(line)}\n{result.stderr}"
    assert "Traceback" not in result.stderr


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
