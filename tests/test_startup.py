"""Start-up: ``divaleval --version``, ``--help`` and a bad option import what they use, not numpy, pyarrow or
pandas (checked on the modules a fresh process holds, never on a timing: the times are in ``make bench``);
and the command line's plain copies of option values (cli/choices.py) equal the values they copy."""
from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from conftest import NDEVAL_EXAMPLES, SAMPLE

HEAVY = ("numpy", "pyarrow", "pandas", "divaleval.api", "divaleval.evaluator")

# Runs the command's entry point in a fresh interpreter, then prints which heavy modules it had imported.
PROBE = """
import json, sys
from divaleval.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)) + "\\n")
"""


def imported_by(*args: str, watched: tuple[str, ...] = HEAVY, env: dict | None = None) -> tuple[list[str], str]:
    """(the watched modules imported, standard output) of ``divaleval ARGS`` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=watched), *args], capture_output=True, text=True,
                          timeout=120, env=env)
    line = [text for text in done.stderr.splitlines() if text.startswith("MODULES ")][-1]
    return json.loads(line.removeprefix("MODULES ")), done.stdout


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("-h",), (), ("-m",), ("--order", "nowhere", "q", "r"),
                                  ("--compat", "nosuchtool", "q", "r")])
def test_no_numpy_to_print_version_help_or_a_usage_error(args):
    heavy, _ = imported_by(*args)
    assert heavy == [], f"divaleval {' '.join(args)} imported {heavy}"


# What one run does without (a grading script pays each call's start-up once a run): worker processes, "did you
# mean" for a misspelt measure, numpy.ma (np.unique asks for it), pyarrow.compute (35-45 ms to import: reading
# calls Arrow's functions by name, divaleval/arrays.py's arrow_call), concurrent.futures (logging: 7-9 ms; not
# watched itself, since pyarrow imports it where cloudpickle is installed), the models and readers of other
# kinds of judgments; and, scored from cached qrels, what only a compressed input, standard input or a cache entry being
# written needs.
NOT_FOR_ONE_RUN = ("multiprocessing", "difflib", "numpy.ma", "pyarrow.compute", "concurrent.futures",
                   "divaleval.io.aspects", "divaleval.model.aspects", "divaleval.io.preferences",
                   "divaleval.model.preferences",
                   # without an option: neither click (the plain evaluation), Dask's back end nor the iprob reader
                   "click", "divaleval.cluster", "divaleval.io.iprob")
NOT_FROM_THE_CACHE = (*NOT_FOR_ONE_RUN, "gzip", "bz2", "lzma", "tempfile", "shlex")


def test_one_run_imports_neither_workers_nor_what_cached_qrels_spare(tmp_path):
    import os

    env = {**os.environ, "DIVALEVAL_CACHE": str(tmp_path)}
    args = (str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt"))
    cold, printed = imported_by(*args, watched=NOT_FROM_THE_CACHE, env=env)  # reads the qrels, fills the cache
    assert not set(cold) & set(NOT_FOR_ONE_RUN), f"one run imported {cold}"
    warm, again = imported_by(*args, watched=NOT_FROM_THE_CACHE, env=env)
    assert warm == [] and again == printed and printed.startswith("runid,topic,")


@pytest.mark.parametrize("ties", [False, True])
def test_one_run_imports_no_pyarrow_with_or_without_cached_qrels(tmp_path, ties):
    """With the compiled kernels, the qrels' and the run's docnos are kept as the readers packed them: small
    qrels' docnos are sorted, their keys ranked and the judged pairs tabled by numpy, a run's docnos are matched
    as they are, tied scores are broken by docno by numpy, and cached qrels keep their docnos packed
    (divaleval/arrays.py's PackedTexts). Such a call needs no Arrow array, so pyarrow (40-50 ms) is not imported,
    whether it reads the qrels (the cache off, or filled by this call) or the cache; and each prints the same.
    With ties: d2 and d3 tie, and the docno later in byte order ranks first (ndeval's rule)."""
    import os

    from divaleval import native

    if not native.built():
        pytest.skip("the compiled kernels are not built: runs are read by Arrow")
    env = {**os.environ, "DIVALEVAL_CACHE": str(tmp_path / "cache"), "DIVALEVAL_NATIVE": "1"}
    args = (str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt"))
    if ties:
        qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
        qrels.write_text("1 1 d2 1\n1 1 d3 0\n")
        run.write_text("1 Q0 d2 1 5.0 r\n1 Q0 d3 2 5.0 r\n1 Q0 d1 3 4.0 r\n")
        args = ("-m", "P-IA@1", str(qrels), str(run))
    uncached, printed = imported_by(*args, watched=("pyarrow",), env={**env, "DIVALEVAL_CACHE": "0"})
    cold, first = imported_by(*args, watched=("pyarrow",), env=env)
    warm, again = imported_by(*args, watched=("pyarrow",), env=env)
    assert uncached == cold == warm == [] and first == again == printed
    assert list((tmp_path / "cache").rglob("*")), "the first call with a cache fills it"
    assert printed.splitlines()[1:] == ["r,1,0.000000", "r,amean,0.000000"] if ties else \
        printed.startswith("runid,topic,")


def test_ties_and_a_repeat_dropped_call_arrow_without_pyarrow_compute(tmp_path):
    """Tied scores (broken by docno) and --dedupe's repeated docno take Arrow's functions by name too; the
    values are the tie-break's: d2 and d3 tie, and the docno later in byte order ranks first (ndeval's rule)."""
    import os

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 1 d2 1\n1 1 d3 0\n")
    run.write_text("1 Q0 d2 1 5.0 r\n1 Q0 d3 2 5.0 r\n1 Q0 d1 3 4.0 r\n1 Q0 d1 4 3.0 r\n")
    # (not difflib here: click's parser looks for close matches when the group meets the command's option)
    watched = tuple(name for name in NOT_FOR_ONE_RUN if name != "difflib")
    watched = tuple(name for name in watched if name != "click")  # (options: the click command)
    heavy, printed = imported_by("--dedupe", "-m", "P-IA@1", str(qrels), str(run),
                                 env={**os.environ, "DIVALEVAL_CACHE": "0"}, watched=watched)
    assert heavy == []
    assert printed.splitlines()[1:] == ["r,1,0.000000", "r,amean,0.000000"]


def test_version_and_help_print_what_they_did():
    from divaleval import __version__

    _, out = imported_by("--version")
    assert out == f"divaleval, version {__version__}\n"
    _, out = imported_by("--help")
    assert "--compat [evalir|ntcireval]" in out and "Commands (each with its own --help)" in out
    for name in ("compare", "meta", "validate", "ndeval"):
        assert f"\n  {name} " in out


def test_import_divaleval_is_lazy_and_complete():
    code = ("import sys, divaleval; heavy = [m for m in ('numpy', 'pyarrow', 'pandas') if m in sys.modules]; "
            "names = [n for n in divaleval.__all__ if getattr(divaleval, n, None) is None]; print(heavy, names)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[] []"


def test_public_names_and_submodules_resolve():
    import divaleval
    from divaleval.api import evaluate
    from divaleval.model import Qrels

    assert divaleval.evaluate is evaluate and divaleval.Qrels is Qrels
    assert divaleval.api.load_qrels is divaleval.load_qrels
    with pytest.raises(AttributeError):
        divaleval.no_such_name  # noqa: B018


def test_option_values_copied_for_the_command_line_equal_the_library_s():
    from divaleval.cli import choices
    from divaleval.compat import MODES
    from divaleval.output import FORMATS
    from divaleval.ranking import ORDERS

    assert choices.ORDERS == ORDERS
    assert choices.FORMATS == FORMATS
    assert choices.MODE_SUMMARIES == {name: mode.summary for name, mode in MODES.items()}


def test_short_help_read_from_source_is_the_command_s():
    """The commands list of --help reads each lazy command's short help from its source: it must be what the
    command, imported, says (and every lazy command declares one as a literal, or --help imports it)."""
    from divaleval.cli import main_group
    from divaleval.cli.group import LAZY_COMMANDS, declared_short_help

    ctx = click.Context(main_group)
    for name, module in LAZY_COMMANDS.items():
        declared = declared_short_help(module)
        assert declared is not None, f"{module}.py declares no literal short_help: --help would import it"
        assert main_group.command_short_help(ctx, name) == main_group.get_command(ctx, name).get_short_help_str(80)


def test_lazy_names_are_the_type_checking_imports():
    """divaleval/__init__.py names each public name twice: in _PUBLIC (what __getattr__ imports) and in the
    imports under TYPE_CHECKING (for type checkers and the API reference): the same names from the same modules."""
    import ast
    from pathlib import Path

    import divaleval

    tree = ast.parse(Path(divaleval.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING")
    imported = {alias.name: node.module for node in block.body for alias in node.names}
    assert imported == divaleval._PUBLIC
    assert set(imported) | {"__version__"} == set(divaleval.__all__)


@pytest.mark.parametrize("command", [[], ["ndeval"], ["gdeval"], ["trec_eval"]])
def test_commands_without_linear_algebra_start_numpy_with_one_blas_thread(command, monkeypatch):
    """Evaluating and the drop-ins set OPENBLAS_NUM_THREADS=1 before numpy loads, unless the user set it."""
    script = ("import os, sys\nfrom divaleval.cli import main\nsys.argv = ['divaleval'] + sys.argv[1:]\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n"
              "print(os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules, file=sys.stderr)\n")
    qrels, run = "tests/data/gdeval/qrels.txt", "tests/data/gdeval/run.txt"
    args = [*command, qrels, run] if command != ["ndeval"] else ["ndeval", qrels, run]
    for given, expected in ((None, "1"), ("2", "2")):
        if given is None:
            monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
        else:
            monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
        done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=False)
        assert done.stderr.splitlines()[-1] == f"{expected} True"


@pytest.mark.parametrize("command", ["ndeval", "gdeval", "trec_eval"])
def test_drop_ins_call_arrow_without_pyarrow_compute(command):
    """The drop-ins are called once a run, as the tools they stand in for: no pyarrow.compute (35-45 ms) nor
    pandas for a plain call."""
    heavy, printed = imported_by(command, "tests/data/gdeval/qrels.txt", "tests/data/gdeval/run.txt",
                                 watched=("pyarrow.compute", "pandas"))
    assert heavy == [] and printed


# The measure modules an evaluation of the ndeval set (the default) uses: each registers its measures when
# imported, and the catalogue imports a module when one of its measures is asked for
# (divaleval/measures/core/table.py), so that the NCU family, trec_eval's counts, bpref, infAP, GAP, RBU, S-RR,
# the multi-aspect and preference measures and the graded novelty measures stay unloaded.
NDEVAL_SET_MODULES = ["map_ia", "novelty", "novelty.alpha_dcg", "novelty.alpha_ndcg", "novelty.err_ia",
                      "novelty.gains", "novelty.nerr_ia", "novelty.nnrbp", "novelty.nrbp", "p_ia", "strec"]


@pytest.mark.parametrize("args,used", [
    ((str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs")), NDEVAL_SET_MODULES),
    (("-m", "alpha-nDCG@10", str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")),
     ["novelty", "novelty.alpha_ndcg", "novelty.gains"]),
    (("ndeval", str(NDEVAL_EXAMPLES / "qrels.txt"), str(NDEVAL_EXAMPLES / "runA.txt")), NDEVAL_SET_MODULES),
])
def test_an_evaluation_imports_the_measure_modules_it_uses_and_no_other(args, used):
    import os

    from divaleval.measures.core.indexer import measure_modules

    watched = tuple(f"divaleval.measures.{name}" for name in measure_modules())
    imported, printed = imported_by(*args, watched=watched, env={**os.environ, "DIVALEVAL_CACHE": "0"})
    assert printed and [name.removeprefix("divaleval.measures.") for name in imported] == used


# The console script after the command: an object whose __del__ tells when Python tore the modules down (the
# shutdown run_and_exit skips), a function registered with atexit (run either way), and on request a thread that
# is not a daemon and writes a file after the command has finished (it must be waited for).
EXITING = """
import atexit, sys, threading, time
class Witness:
    def __del__(self):
        sys.stderr.write("torn down\\n")
witness = Witness()
atexit.register(lambda: sys.stdout.write("registered ran\\n"))
if sys.argv[1] == "thread":
    def late(path=sys.argv[2]):
        time.sleep(0.3)
        open(path, "w").write("written")
    threading.Thread(target=late, daemon=False).start()
sys.argv = ["divaleval", *sys.argv[3:]]
from divaleval.cli import run_and_exit
run_and_exit()
"""


def exit_of(*args: str, thread: str = "") -> subprocess.CompletedProcess:
    import os

    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}  # (as users run it)
    return subprocess.run([sys.executable, "-c", EXITING, "thread" if thread else "-", thread or "-", *args],
                          capture_output=True, text=True, timeout=120, env=buffered)


def test_the_console_script_exits_without_tearing_down_yet_runs_what_was_registered():
    from divaleval import __version__

    done = exit_of("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"divaleval, version {__version__}\nregistered ran\n", "")
    done = exit_of("-m", "nosuch", "q", "r")
    assert done.returncode == 2 and done.stdout == "registered ran\n" and "unknown measure" in done.stderr
    assert "torn down" not in done.stderr
    done = exit_of(str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "nosuch.txt"))
    assert done.returncode != 0 and "nosuch.txt" in done.stderr and "torn down" not in done.stderr


def test_the_console_script_prints_all_that_the_command_printed():
    """Every byte of a long output reaches the pipe before the process ends: as main() prints it in-process."""
    from click.testing import CliRunner

    from divaleval.cli import main_group

    args = ["-m", "all", str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs")]
    expected = CliRunner().invoke(main_group, args).output
    done = exit_of(*args)
    assert done.returncode == 0 and len(expected) > 10_000
    assert done.stdout == expected + "registered ran\n"


def test_a_thread_still_running_is_waited_for_as_python_waits(tmp_path):
    written = tmp_path / "late.txt"
    done = exit_of("--version", thread=str(written))
    assert done.returncode == 0 and written.read_text() == "written"
    assert "torn down" in done.stderr  # (the usual shutdown)


def test_a_profile_is_written_after_the_command(tmp_path):
    profile = tmp_path / "profile.out"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "divaleval", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and profile.stat().st_size > 0


# The plain evaluation: `divaleval QRELS RUN...` with no option runs the default command without click
# (divaleval/cli/__init__.py), with every option at its default; it prints what the click command prints.
PLAIN_AND_CLICK = """
import sys
from divaleval.cli import main
if sys.argv[1] == "click":
    from divaleval.cli import main_group
    main = lambda args: main_group.main(args=args, prog_name="divaleval")
try:
    main(sys.argv[2:])
except SystemExit as done:
    sys.stderr.write(f"\\nSTATUS {done.code}\\nCLICK {'click' in sys.modules}\\n")
"""


def plain_and_click(*args: str, stdin: str | None = None) -> tuple[tuple, tuple]:
    """(stdout, stderr, click imported) of the plain evaluation and of the click command on ``args``."""
    import os

    env = {**os.environ, "DIVALEVAL_CACHE": "0"}
    done = [subprocess.run([sys.executable, "-c", PLAIN_AND_CLICK, way, *args], capture_output=True, text=True,
                           timeout=120, env=env, input=stdin) for way in ("plain", "click")]
    return tuple((d.stdout, d.stderr.rsplit("\nCLICK ", 1)[0], d.stderr.rsplit("\nCLICK ", 1)[1].strip())
                 for d in done)


@pytest.mark.parametrize("args", [
    ("qrels.txt", "runs/bm25.txt"),
    ("qrels.txt", "runs"),
    ("qrels.txt", "runs/bm25.txt", "runs/diverse.txt"),
    ("qrels.txt", "runs/nosuch.txt"),      # an input error: message and status 2
    ("nosuch.txt", "runs/bm25.txt"),
    ("qrels.txt", "-"),                    # standard input
])
def test_the_plain_evaluation_prints_what_the_command_prints_without_click(args):
    stdin = (SAMPLE / "runs" / "bm25.txt").read_text() if "-" in args else None
    plain, clicked = plain_and_click(*[arg if arg == "-" else str(SAMPLE / arg) for arg in args], stdin=stdin)
    assert plain[:2] == clicked[:2]
    failed = "nosuch.txt" in " ".join(args)
    assert ("STATUS 2" in plain[1]) == failed and bool(plain[0]) != failed
    assert (plain[2], clicked[2]) == (str(failed), "True")  # (the message is written by click.echo)


def test_the_plain_evaluation_shows_a_usage_error_as_the_command_does():
    """No default options make a usage error, so the plain path's display is held to click's on a message
    click shows for the command (a --risk-alpha without --baseline)."""
    message = "--risk-alpha weighs losses against a baseline: give --baseline RUN"
    clicked = subprocess.run([sys.executable, "-c", "from divaleval.cli import main; main()", "--risk-alpha", "1",
                              "q", "r"], capture_output=True, text=True, timeout=120)
    plain = subprocess.run([sys.executable, "-c", "from divaleval.cli.evaluation import show_usage_error; "
                            f"show_usage_error({message!r})"], capture_output=True, text=True, timeout=120)
    assert clicked.stderr.endswith(f"Error: {message}\n") and clicked.stderr.startswith("Usage: divaleval")
    assert (plain.returncode, plain.stdout, plain.stderr) == (clicked.returncode, clicked.stdout, clicked.stderr) == \
        (2, "", clicked.stderr)


def test_the_plain_evaluation_takes_the_command_s_defaults_and_no_command_s_name():
    import inspect

    from divaleval.cli import choices, evaluate_command, main_group
    from divaleval.cli.evaluation import evaluate_runs

    signature = inspect.signature(evaluate_runs).parameters
    assert list(signature) == list(inspect.signature(evaluate_command.callback).parameters)
    given = evaluate_command.make_context("divaleval", ["q", "r"]).params  # (what click gives the command)
    assert given == {"inputs": ("q", "r"), **{name: parameter.default for name, parameter in signature.items()
                                             if name != "inputs"}}
    assert set(main_group.list_commands(click.Context(main_group))) == choices.COMMANDS


def test_only_a_call_of_paths_alone_is_a_plain_evaluation():
    from divaleval.cli import plain_evaluation

    assert plain_evaluation(["q", "r"]) and plain_evaluation(["q", "-", "r"])
    for args in (["q"], ["q", "-m", "all", "r"], ["q", "r", "--", "x"], ["compare", "a", "b"], ["ndeval", "q", "r"],
                 ["evaluate", "q", "r"], ["--version"], []):
        assert not plain_evaluation(args), args


COLLECTION = """
import gc, sys
from divaleval.cli.process import pause_collection
pause_collection()
from divaleval.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write(f"\\nCOLLECTION {gc.isenabled()} {gc.get_freeze_count() > 0}\\n")
"""


@pytest.mark.parametrize("args", [("--version",), (str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")),
                                  ("-m", "P-IA@5", str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt"))])
def test_the_collector_paused_at_start_up_is_on_again_for_the_work(args):
    """The console script pauses the garbage collector while it imports; every way through main turns it on
    again, with what was imported set aside (frozen)."""
    done = subprocess.run([sys.executable, "-c", COLLECTION, *args], capture_output=True, text=True, timeout=120)
    assert done.stderr.splitlines()[-1] == "COLLECTION True True"
