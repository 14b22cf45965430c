"""The command group: the default command, subcommands with their own --help, usage checked before reading."""
from __future__ import annotations

from conftest import NDEVAL_EXAMPLES as EX, run_cli


def test_the_default_command_is_evaluate():
    plain = run_cli([EX / "qrels.txt", EX / "runA.txt"])
    named = run_cli(["evaluate", EX / "qrels.txt", EX / "runA.txt"])
    assert plain.returncode == named.returncode == 0
    assert plain.stdout == named.stdout and plain.stdout.startswith(b"runid,topic,ERR-IA@5")


def test_help_lists_the_commands():
    result = run_cli(["--help"])
    text = result.stdout.decode()
    assert result.returncode == 0
    assert "Usage: divaleval [OPTIONS] QRELS RUN..." in text and "--list-measures" in text
    assert "Commands" in text and "ndeval" in text


def test_ndeval_has_its_own_help_and_keeps_ndevals():
    long = run_cli(["ndeval", "--help"])
    own = run_cli(["ndeval", "-help"])
    assert long.returncode == own.returncode == 0
    assert long.stdout == own.stdout and b"-traditional" in long.stdout and b"-riskAlpha" in long.stdout


def test_ndeval_arguments_pass_through_unchanged():
    expected = (EX / "expected" / "runB.c.traditional.csv").read_bytes()
    result = run_cli(["ndeval", "-c", "-traditional", EX / "qrels.txt", EX / "runB.txt"])
    assert result.returncode == 0 and result.stdout == expected
    bad = run_cli(["ndeval", "-x", EX / "qrels.txt", EX / "runA.txt"])
    assert bad.returncode == 1 and bad.stdout == b"" and b"unknown option -x" in bad.stderr


def test_a_measure_that_does_not_fit_the_qrels_fails_before_any_run_is_read(tmp_path):
    missing = tmp_path / "not-there.txt"
    for jobs in ("1", "2"):
        result = run_cli(["-j", jobs, "-m", "TOMA(m=AP)", EX / "qrels.txt", EX / "runA.txt", missing])
        stderr = result.stderr.decode()
        assert result.returncode == 2 and result.stdout == b"", stderr
        assert "needs multi-aspect qrels" in stderr and "cannot open" not in stderr and "Traceback" not in stderr


def test_evaluating_never_imports_pandas_or_the_other_commands():
    """pandas (0.2 s), meta-evaluation and the axiom checker are for the library and the other commands."""
    import subprocess
    import sys

    from conftest import SAMPLE

    code = ("import sys\n"
            "sys.argv = ['divaleval', '-m', 'all', sys.argv[1], sys.argv[2]]\n"
            "from divaleval.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'pandas' or m.split('.')[:2] in "
            "(['divaleval', 'meta'], ['divaleval', 'axioms'], ['divaleval', 'stats']))\n"
            "print(loaded, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code, str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs")],
                            capture_output=True)
    assert result.returncode == 0 and result.stdout.startswith(b"runid,topic,")
    assert result.stderr.decode().strip().splitlines()[-1] == "[]"
