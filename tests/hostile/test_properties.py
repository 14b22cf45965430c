"""Hostile input, property-based (issue 16): for both commands, `divaleval QRELS RUN` (native) and
`divaleval ndeval QRELS RUN` (the drop-in), on real lines mutated and on hostile lines generated:

* exit 0 with every value in its measure's range, or exit 2 (drop-in: 1) with FILE:LINE: (FILE: for
  a whole-file problem) on stderr and nothing on stdout;
* never a traceback; never a hang (each in-process case under harness.TIME_LIMIT seconds);
* the same bytes whatever the line order of valid inputs, and whether an input is a file, standard
  input or gzip;
* numbers read as the command promises: natively only plain ASCII numbers, spelled any way they
  mean the same; in the drop-in exactly what ndeval's C reads (naturalNumber, sscanf %lf / %d,
  asked of the C library itself through ctypes).

Each test runs a small default profile (in `make test`) and a long one (`-m long`, >= 10,000 cases
in total): `.venv/bin/python -m pytest -m long tests/hostile/test_properties.py`. Hypothesis is
derandomised and keeps no database, so every run tries the same cases.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hostile import harness as h
from conftest import ROOT, shared_path

# -- profiles ------------------------------------------------------------------------------------


sizes = h.sizes


def write(directory: Path, name: str, data: bytes) -> str:
    path = directory / name
    path.write_bytes(data)
    return str(path)


def outcome_of(command: str, directory: Path, qrels: bytes, run: bytes, options: list[str]):
    """Write the two files, run the command on them, check the outcome property; the outcome, inputs, rows."""
    inputs = {write(directory, "qrels.txt", qrels): qrels, write(directory, "run.txt", run): run}
    outcome = h.invoke(command, [*options, *inputs])
    rows = h.check_outcome(outcome, inputs, options)
    return outcome, inputs, rows


def corpus_strategy():
    return st.sampled_from(h.corpora())


# Small hand-written inputs, the base of the named cases.
QRELS = b"1 1 d1 1\n1 2 d2 1\n1 1 d3 0\n2 1 d1 1\n"
RUN = b"1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n1 Q0 d9 3 1.0 r\n2 Q0 d1 1 3 r\n"
BOM = b"\xef\xbb\xbf"


# -- 1. real lines, mutated ------------------------------------------------------------------------

CATEGORIES = {
    "fields": h.FIELD_MUTATIONS,          # missing, extra, empty, huge, repeated fields
    "numbers": h.NUMBER_MUTATIONS,        # a hostile number in a numeric field
    "encodings": h.ENCODING_MUTATIONS,    # invalid UTF-8, a BOM, NUL, Latin-1
    "separators": h.SEPARATOR_MUTATIONS,  # tabs, runs of spaces, \v, \f, \r, CRLF, odd Unicode spaces
    "lengths": h.LENGTH_MUTATIONS,        # empty file, one line, very long lines, no final newline
    "all": h.ALL_MUTATIONS,
}


@pytest.mark.parametrize("settings", sizes(20, 550))
@pytest.mark.parametrize("category", list(CATEGORIES))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_mutated_real_lines(tmp_path, command, category, settings):
    cases = h.mutated_files(h.real_case(corpus_strategy(), command), CATEGORIES[category])

    @settings
    @given(cases, h.options(command))
    def check(files, options):
        outcome_of(command, tmp_path, *files, options)

    check()


@pytest.mark.slow
@pytest.mark.parametrize("settings", sizes(5, 500))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_mutated_trec2012_lines(tmp_path, command, settings):
    corpus = h.trec2012_corpus(shared_path("data", "trec-web", "2012"))
    cases = h.mutated_files(h.real_case(st.just(corpus), command), h.ALL_MUTATIONS)

    @settings
    @given(cases, h.options(command))
    def check(files, options):
        outcome_of(command, tmp_path, *files, options)

    check()


# -- 2. hostile lines, generated -------------------------------------------------------------------

@pytest.mark.parametrize("settings", sizes(30, 1000))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_generated_hostile_files(tmp_path, command, settings):
    @settings
    @given(h.generated_files(), h.options(command))
    def check(files, options):
        outcome_of(command, tmp_path, *files, options)

    check()


@pytest.mark.parametrize("settings", sizes(10, 300))
def test_several_runs_all_or_nothing(tmp_path, settings):
    """Native, with a good run before a bad one (in a directory, or named in turn): either every run is
    scored, or the error alone is printed, nothing on stdout."""
    @settings
    @example((QRELS, RUN, b""), False, [])  # an empty run named after a good one
    @given(h.one_run_mutated(h.real_case(corpus_strategy(), h.NATIVE)), st.booleans(), h.options(h.NATIVE))
    def check(files, as_directory, options):
        qrels, good, bad = files
        runs = tmp_path / "runs"
        runs.mkdir(exist_ok=True)
        inputs = {write(tmp_path, "qrels.txt", qrels): qrels, write(runs, "a-good.txt", good): good,
                  write(runs, "b-mutated.txt", bad): bad}
        names = list(inputs)
        outcome = h.invoke(h.NATIVE, [*options, names[0], *([str(runs)] if as_directory else names[1:])])
        h.check_outcome(outcome, inputs, options)

    check()


# -- 2b. hostile files written out: each named case, for both commands -------------------------------



def in_run(old: bytes, new: bytes) -> tuple[bytes, bytes]:
    assert old in RUN
    return QRELS, RUN.replace(old, new, 1)


def in_qrels(old: bytes, new: bytes) -> tuple[bytes, bytes]:
    assert old in QRELS
    return QRELS.replace(old, new, 1), RUN


EXPLICIT_FILES = {
    # lengths
    "empty run": (QRELS, b""),
    "empty qrels": (b"", RUN),
    "blank lines only": (QRELS, b"\n\n"),
    "whitespace only": (QRELS, b" \t\n\x0b\x0c\n"),
    "one line": (QRELS, RUN.split(b"\n")[0]),
    "no final newline": (QRELS.rstrip(b"\n"), RUN.rstrip(b"\n")),
    "a 300 KB docno": in_run(b"d9", b"d" * 300_000),
    "a first line past 64 KiB": (QRELS, b"1 Q0 " + b"x" * 70_000 + b" 9 0.5 r\n" + RUN),
    # encodings
    "BOM only (run)": (QRELS, BOM),
    "BOM only (qrels)": (BOM, RUN),
    "BOM and newline only": (QRELS, BOM + b"\n"),
    "BOM before both": (BOM + QRELS, BOM + RUN),
    "NUL in a docno": in_run(b"d2", b"d\x002"),
    "NUL only": (QRELS, b"\x00\x00\n"),
    "invalid UTF-8 docno and runtag": (QRELS, RUN.replace(b"d9", b"d\xff9").replace(b" r\n", b" r\xe9\n")),
    "UTF-16 run": (QRELS, RUN.decode().encode("utf-16")),
    "invalid UTF-8 in a rank": in_run(b" 3 1.0", b" 3\xe9 1.0"),
    "invalid UTF-8 in a score": in_run(b" 1.0 r", b" 1.0\xe9 r"),
    "invalid UTF-8 in a run topic": (QRELS, RUN.replace(b"2 Q0", b"2\xff Q0")),
    "invalid UTF-8 in a judgment": in_qrels(b"d2 1", b"d2 1\x80"),
    # separators
    "CRLF": (QRELS.replace(b"\n", b"\r\n"), RUN.replace(b"\n", b"\r\n")),
    "CR only": (QRELS.replace(b"\n", b"\r"), RUN.replace(b"\n", b"\r")),
    "tabs and spaces mixed": (QRELS.replace(b" ", b"\t", 3), RUN.replace(b" ", b" \t ")),
    "vertical tabs": (QRELS, RUN.replace(b" ", b"\x0b")),
    "form feeds": (QRELS.replace(b" ", b"\x0c"), RUN),
    "a carriage return inside a line": in_run(b"d2 2", b"d2\r2"),
    "no-break spaces": (QRELS, RUN.replace(b" ", b"\xc2\xa0")),
    # fields
    "five fields": in_run(b" 1.0 r", b" 1.0"),
    "seven fields (trailing text)": in_run(b" 1.0 r", b" 1.0 r extra"),
    "an empty field between tabs": (QRELS, RUN.replace(b" ", b"\t").replace(b"\t2.5", b"\t\t2.5")),
    "three-field qrels line among four": in_qrels(b"1 1 d3 0", b"1 d3 0"),
    # numbers
    "a 20-digit rank": in_run(b" 3 1.0", b" 99999999999999999999 1.0"),
    "rank 2^63": in_run(b" 3 1.0", b" 9223372036854775808 1.0"),
    "rank -2^64": in_run(b" 3 1.0", b" -18446744073709551616 1.0"),
    "a 20-digit judgment": in_qrels(b"d3 0", b"d3 99999999999999999999"),
    "a 20-digit topic": (QRELS.replace(b"2 1 d1", b"99999999999999999999 1 d1"),
                         RUN.replace(b"2 Q0", b"99999999999999999999 Q0")),
    "score 1_000": in_run(b"1.5 r", b"1_000 r"),
    "score with Arabic-Indic digits": in_run(b"1.5 r", "٩٩".encode() + b" r"),
    "score 0x10": in_run(b"1.5 r", b"0x10 r"),
    "score 99.25abc": in_run(b"1.5 r", b"99.25abc r"),
    "score nan": in_run(b"1.5 r", b"nan r"),
    "score -inf": in_run(b"1.5 r", b"-inf r"),
    "score 1e999": in_run(b"1.5 r", b"1e999 r"),
    "judgment L2": in_qrels(b"d2 1", b"d2 L2"),
    "judgment with a fullwidth digit": in_qrels(b"d2 1", "１".encode()),
    "rank 1_0": in_run(b" 2 1.5", b" 1_0 1.5"),
}


@pytest.mark.parametrize("case", list(EXPLICIT_FILES))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_explicit_hostile_files(tmp_path, command, case):
    options = ["-traditional"] if command == h.DROPIN else []
    outcome_of(command, tmp_path, *EXPLICIT_FILES[case], options)
    outcome_of(command, tmp_path, *EXPLICIT_FILES[case], ["--order", "rank"] if command == h.NATIVE else [])


@pytest.mark.parametrize("settings", sizes(10, 200))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_no_topic_in_common(tmp_path, command, settings):
    """Natively: no fake mean, an error naming the run unless -c asks for zeros. In the drop-in: what ndeval
    prints (oracle/ndeval/edge E6, E6b): zero rows, an all -nan mean, or zeros with -c."""
    @settings
    @given(h.real_case(corpus_strategy(), command), st.booleans())
    def check(case, complete):
        qrels, run = case
        renamed = {topic: str(900000 + k).encode() for k, topic in enumerate(sorted({l.split()[0] for l in run}))}
        run = [b" ".join([renamed[line.split()[0]], *line.split()[1:]]) for line in run]
        options = ["-c"] if complete else []
        outcome, inputs, rows = outcome_of(command, tmp_path, b"\n".join(qrels) + b"\n", b"\n".join(run) + b"\n",
                                           options)
        if command == h.NATIVE and not complete:
            assert outcome.status == 2, "a mean over no topic\n" + outcome.describe()
            h.check_error(outcome, inputs)
            assert any(name.endswith("run.txt") for name, _ in h.located(outcome.stderr, inputs)), \
                "the message does not name the run\n" + outcome.describe()
            return
        assert rows is not None, outcome.describe()
        mean = rows[-1].values
        if command == h.NATIVE:  # -c: every qrels topic, every value 0
            assert len(rows) - 1 == len({line.split()[0] for line in qrels}), outcome.describe()
            assert {v for row in rows for v in row.values} == {"0.000000"}, outcome.describe()
        else:
            assert len(rows) - 1 == len(renamed), outcome.describe()
            assert set(mean) == ({"0.000000"} if complete else {"-nan"}), outcome.describe()

    check()


@pytest.mark.parametrize("command", h.COMMANDS)
def test_a_wide_field_is_refused_in_time(tmp_path, command):
    """A 3,000,000-byte judgment (a binary file given as qrels, say): refused by its line, in time."""
    lines = [b"1 %d doc-%d %d" % (k % 4, k, k % 3) for k in range(10)]
    lines[3] = b"1 3 doc-3 " + b"d" * 3_000_000
    outcome, inputs, _ = outcome_of(command, tmp_path, b"\n".join(lines) + b"\n", b"1 Q0 doc-1 1 1.0 r\n", [])
    assert outcome.status == h.ERROR_STATUS[command], outcome.describe()
    h.check_error(outcome, inputs, (next(iter(inputs)), 4))


# -- 3. line order never matters -------------------------------------------------------------------

ORDER_FREE = {
    # Native: the default score order (ties broken by docno), and the others with distinct ranks.
    h.NATIVE: [[], ["-c"], ["--order", "rank"], ["-M", "3"], ["-c", "-M", "5"]],
    # Drop-in: -traditional (ties broken by docno), and the rank order with the distinct ranks real runs have.
    h.DROPIN: [["-traditional"], ["-c", "-traditional"], [], ["-c"], ["-M", "4"], ["-M", "2", "-traditional"]],
}


@st.composite
def respelled(draw, case):
    """Valid lines of a real case, each line's fields rejoined by tabs or runs of spaces, CRLF or not:
    what a file can vary in without meaning anything else."""
    qrels, run = draw(case)
    gap = draw(st.sampled_from([b" ", b"\t", b"  ", b" \t"]))
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    return [gap.join(line.split()) for line in qrels], [gap.join(line.split()) for line in run], ending


@pytest.mark.parametrize("settings", sizes(12, 300))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_line_order_never_changes_a_byte(tmp_path, command, settings):
    @settings
    @given(respelled(h.real_case(corpus_strategy(), command)), st.sampled_from(ORDER_FREE[command]),
           st.randoms(use_true_random=False))
    def check(files, options, rng):
        qrels, run, ending = files
        first, _, _ = outcome_of(command, tmp_path, ending.join(qrels) + ending, ending.join(run) + ending, options)
        rng.shuffle(qrels)
        rng.shuffle(run)
        again, _, _ = outcome_of(command, tmp_path, ending.join(qrels) + ending, ending.join(run) + ending, options)
        assert (again.status, again.stdout) == (first.status, first.stdout), \
            "line order changed the result\n" + first.describe() + "\n" + again.describe()

    check()


# -- 4. files, standard input and gzip are read alike -------------------------------------------------

def location_lines(outcome: h.Outcome) -> list[str]:
    return re.findall(r":(\d+): ", outcome.stderr)


@pytest.mark.parametrize("settings", sizes(12, 300))
@pytest.mark.parametrize("command", h.COMMANDS)
def test_file_stdin_and_gzip_agree(tmp_path, command, settings):
    cases = h.mutated_files(h.real_case(corpus_strategy(), command), h.ALL_MUTATIONS, max_mutations=2)

    @settings
    @given(cases, h.options(command), st.sampled_from(["qrels", "run"]))
    def check(files, options, which):
        qrels, run = files
        plain, _, _ = outcome_of(command, tmp_path, qrels, run, options)
        data = qrels if which == "qrels" else run
        other = write(tmp_path, "other.txt", run if which == "qrels" else qrels)
        for channel in ("-", "gz"):
            name = write(tmp_path, f"{which}.gz", h.gz(data)) if channel == "gz" else "-"
            pair = [name, other] if which == "qrels" else [other, name]
            inputs = {("<stdin>" if name == "-" else name): data, other: run if which == "qrels" else qrels}
            outcome = h.invoke(command, [*options, *pair], stdin=data if channel == "-" else b"")
            h.check_outcome(outcome, inputs, options)
            assert (outcome.status, outcome.stdout, location_lines(outcome)) == \
                (plain.status, plain.stdout, location_lines(plain)), \
                f"{which} through {channel} differs from the file\n" + plain.describe() + "\n" + outcome.describe()

    check()


# -- 5. numbers: read as promised -------------------------------------------------------------------

PLAIN_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)", re.IGNORECASE)
PLAIN_INT = re.compile(r"[+-]?[0-9]+")
PLAIN_LEVEL = re.compile(r"[+-]?[0-9]+|L[0-9]+")


def clean_numbers():
    """Hostile numbers that stay one field (no whitespace, not empty)."""
    return h.numbers().filter(lambda t: t and t.split() == [t] and "\x00" not in t)


@st.composite
def one_field_changed(draw, command: str, which: str, j: int):
    """A real case, one line of qrels or run chosen, its field j set to a hostile number:
    (qrels lines, run lines, index of the line, the token)."""
    qrels, run = draw(h.real_case(corpus_strategy(), command))
    lines = qrels if which == "qrels" else run
    return qrels, run, draw(st.integers(0, len(lines) - 1)), draw(clean_numbers())


# qrels_mini / run_mini (oracle/ndeval/examples): the numbers issue 16 names are tried on them in every
# profile, before the generated cases.
MINI = ([b"1 1 A 1", b"1 2 B 1", b"1 2 D 1", b"1 3 C 1"],
        [b"1 Q0 A 1 9.3 mini", b"1 Q0 D 2 8.4 mini", b"1 Q0 E 3 8.1 mini", b"1 Q0 B 4 7.6 mini"])


def examples(*cases: tuple | dict):
    """hypothesis examples, each given as its positional arguments or as its keyword arguments."""
    def apply(test):
        for case in cases:
            test = (example(**case) if isinstance(case, dict) else example(*case))(test)
        return test
    return apply


def named_numbers(tokens: list[str], **fixed):
    """hypothesis examples: each token in line 2 of MINI's qrels or run, with the other arguments fixed."""
    return examples(*({"case": (*MINI, 1, token), **fixed} for token in tokens))


def with_field(lines: list[bytes], i: int, j: int, token: str) -> bytes:
    changed = list(lines)
    fields = changed[i].split()
    fields[j] = token.encode("utf-8")
    changed[i] = b" ".join(fields)
    return b"".join(line + b"\n" for line in changed)


def respell_check(command, tmp_path, which, j, options, case, plain, canonical):
    """The token must be read as `canonical` when `plain` (same status, stdout and error line), else
    be refused naming its line."""
    qrels, run, i, token = case
    lines = qrels if which == "qrels" else run
    body = b"".join(line + b"\n" for line in (run if which == "qrels" else qrels))
    files = (with_field(lines, i, j, token), body) if which == "qrels" else (body, with_field(lines, i, j, token))
    outcome, inputs, _ = outcome_of(command, tmp_path, *files, options)
    name = next(n for n in inputs if n.endswith(f"{which}.txt"))
    if not plain:
        assert outcome.status == h.ERROR_STATUS[command], \
            f"{which} field {j + 1} {token!r} accepted\n" + outcome.describe()
        h.check_error(outcome, inputs, (name, i + 1))
        return
    files_c = (with_field(lines, i, j, canonical), body) if which == "qrels" else \
        (body, with_field(lines, i, j, canonical))
    reference, _, _ = outcome_of(command, tmp_path, *files_c, options)
    assert (outcome.status, outcome.stdout, location_lines(outcome)) == \
        (reference.status, reference.stdout, location_lines(reference)), \
        f"{token!r} is not read as {canonical!r}\n" + outcome.describe() + "\n" + reference.describe()


NATIVE_NUMBERS = {
    # field: (file, field index, its plain spellings, the one it must read alike, numbers issue 16 names,
    #         the options they are tried with, the options generated cases are tried with)
    "score": ("run", 4, PLAIN_FLOAT, lambda t: repr(float(t)),
              ["1_000", "٩٩", "0x10", "99.25abc", "nan", "inf", "-inf", "1e999", "+1.5e+0", "00001.50"],
              [], [[], ["-c"], ["-M", "3"]]),
    "rank": ("run", 3, PLAIN_INT, lambda t: str(int(t)),
             ["99999999999999999999", "9223372036854775808", "-18446744073709551616", "1_0", "0x10", "+2", "0002"],
             ["--order", "rank"], [[], ["--order", "rank"], ["--order", "file"]]),
    "judgment": ("qrels", 3, PLAIN_LEVEL, lambda t: str(int(t.lstrip("L"))),
                 ["99999999999999999999", "L2", "١٠", "+1", "01", "-2"], [], [[], ["-c"]]),
}


@pytest.mark.parametrize("settings", sizes(25, 600))
@pytest.mark.parametrize("field", list(NATIVE_NUMBERS))
def test_native_numbers_only_plain_ascii(tmp_path, field, settings):
    which, j, plain, canonical, named, named_options, option_sets = NATIVE_NUMBERS[field]

    @settings
    @named_numbers(named, options=named_options)
    @given(one_field_changed(h.NATIVE, which, j), st.sampled_from(option_sets))
    def check(case, options):
        token = case[3]
        is_plain = plain.fullmatch(token) is not None
        respell_check(h.NATIVE, tmp_path, which, j, options, case, is_plain, canonical(token) if is_plain else "")

    check()


DROPIN_NATURALS = {"qrels topic": ("qrels", 0), "qrels intent": ("qrels", 1), "qrels judgment": ("qrels", 3),
                   "run rank": ("run", 3), "run topic": ("run", 0)}


@pytest.mark.parametrize("settings", sizes(12, 300))
@pytest.mark.parametrize("field", list(DROPIN_NATURALS))
def test_dropin_reads_natural_numbers_as_ndeval(tmp_path, field, settings):
    which, j = DROPIN_NATURALS[field]

    @settings
    @named_numbers(["007", "1000009", "1000010", "٩٩", "+1", "1_0", "wt09-1"], options=[])
    @given(one_field_changed(h.DROPIN, which, j), st.sampled_from([[], ["-traditional"], ["-c"]]))
    def check(case, options):
        raw = case[3].encode("utf-8")
        if field == "run topic" and not raw[:1].isdigit():
            if b"-" not in raw:
                return  # ndeval reads past the field's end (oracle/ndeval/edge E7b): not a spelling
            raw = raw[raw.index(b"-") + 1:]
        value = h.natural_number(raw)
        canonical = case[3][: len(case[3]) - len(raw.decode("utf-8"))] + str(value) if value is not None else ""
        respell_check(h.DROPIN, tmp_path, which, j, options, case, value is not None, canonical)

    check()


@pytest.mark.parametrize("settings", sizes(25, 600))
def test_dropin_reads_scores_as_c_does(tmp_path, settings):
    @settings
    @named_numbers(["nan", "99.25abc", "0x10", "٩٩", "1_000", "1e999", "-inf"], traditional=True)
    @given(one_field_changed(h.DROPIN, "run", 4), st.booleans())
    def check(case, traditional):
        qrels, run, i, token = case
        qrels_text = b"".join(line + b"\n" for line in qrels)
        options = ["-traditional"] if traditional else []
        outcome, inputs, _ = outcome_of(h.DROPIN, tmp_path, qrels_text, with_field(run, i, 4, token), options)
        if not traditional:  # ndeval does not read the score: nothing may change
            reference, _, _ = outcome_of(h.DROPIN, tmp_path, qrels_text, b"".join(x + b"\n" for x in run), options)
            assert (outcome.status, outcome.stdout) == (reference.status, reference.stdout), \
                f"score {token!r} changed the result without -traditional\n" + outcome.describe()
            return
        value = h.c_scan_double(token)
        if value is None:
            # sscanf reads nothing and leaves ndeval's score as malloc gave it (0 in practice, as the
            # issue observed): refusing it names its line, reading it otherwise than 0 is a wrong number.
            if outcome.status == 1:
                h.check_error(outcome, inputs, (next(n for n in inputs if n.endswith("run.txt")), i + 1))
                return
            value = 0.0
        assert outcome.status == 0, f"ndeval reads score {token!r} as {value!r}\n" + outcome.describe()
        if value != value:
            return  # NaN: accepted, as ndeval accepts it (its order among NaNs is its own)
        reference, _, _ = outcome_of(h.DROPIN, tmp_path, qrels_text, with_field(run, i, 4, repr(value)), options)
        assert outcome.stdout == reference.stdout, \
            f"score {token!r} is not read as {value!r}\n" + outcome.describe() + "\n" + reference.describe()

    check()


def option_values():
    return st.one_of(h.numbers(), st.sampled_from(["", " ", "0.5 ", " 0.5", "1 2", "-version", "-c", "0.5\x00"]))


def example_inputs() -> dict[str, bytes]:
    """oracle/ndeval/examples qrels.txt and runA.txt, by name."""
    return {str(path): path.read_bytes() for path in (h.NDEVAL_EXAMPLES_QRELS, h.NDEVAL_EXAMPLES_RUN)}


@pytest.mark.parametrize("settings", sizes(25, 600))
def test_dropin_reads_options_as_c_does(tmp_path, settings):
    inputs = example_inputs()

    @settings
    @examples(("-alpha", "٠"), ("-alpha", "nan"), ("-alpha", "0x"), ("-beta", "0.9abc"), ("-riskAlpha", "nan"),
              ("-M", "2147483648"))
    @given(st.sampled_from(["-alpha", "-beta", "-M", "-riskAlpha"]), option_values().filter(lambda t: "\x00" not in t))
    def check(option, token):
        outcome = h.invoke(h.DROPIN, [option, token, *inputs])
        h.check_sound(outcome)
        if option == "-M":
            value = h.c_scan_int(token)
            refused = value is None or value <= 0
            canonical = str(value)
        else:
            value = h.c_scan_double(token)
            default = 0.0 if option == "-riskAlpha" else 0.5
            value = default if value is None else value
            refused = value < 0 or (value > 1 and option != "-riskAlpha")  # NaN compares false: accepted
            canonical = repr(value)
        if refused:
            assert outcome.status == 1 and outcome.stdout == b"" and "usage" in outcome.stderr, \
                f"ndeval stops with its usage for {option} {token!r}\n" + outcome.describe()
            return
        assert outcome.status == 0, f"ndeval reads {option} {token!r} as {value!r}\n" + outcome.describe()
        if value != value or option == "-riskAlpha":
            return  # NaN values print -nan; -riskAlpha only matters with -baseline
        h.check_outcome(outcome, inputs)
        reference = h.invoke(h.DROPIN, [option, canonical, *inputs])
        assert outcome.stdout == reference.stdout, \
            f"{option} {token!r} is not read as {canonical}\n" + outcome.describe() + "\n" + reference.describe()

    check()


def small_enough(token: str) -> bool:
    """A cutoff or depth token no reading can make large (huge ones run in a subprocess, memory-limited)."""
    return sum(c.isdigit() or c in "abcdefABCDEF" for c in token) <= 5


@pytest.mark.parametrize("settings", sizes(25, 600))
def test_native_numeric_options_only_plain_ascii(tmp_path, settings):
    inputs = example_inputs()

    @settings
    @examples(("-M", "٣"), ("-M", "1_000"), ("-m", "٣"), ("-m", "²"), ("-m", "05"))
    @given(st.sampled_from(["-M", "-m"]), clean_numbers().filter(small_enough))
    def check(option, token):
        args = (lambda t: ["-M", t]) if option == "-M" else (lambda t: ["-m", f"alpha-nDCG@{t},P-IA@{t}"])
        outcome = h.invoke(h.NATIVE, [*args(token), *inputs])
        h.check_sound(outcome)
        plain = re.fullmatch(r"\+?[0-9]+", token) is not None and int(token) >= 1
        if not plain:
            assert outcome.status == 2 and outcome.stdout == b"", \
                f"{option} {token!r} accepted\n" + outcome.describe()
            return
        if token.startswith("+") and outcome.status == 2 and outcome.stdout == b"":
            return  # a sign may be refused, as long as the number is not read otherwise
        reference = h.invoke(h.NATIVE, [*args(str(int(token))), *inputs])
        assert outcome.status == reference.status == 0, f"{option} {token!r} refused\n" + outcome.describe()
        # The header may spell the cutoff as given; the values must be the same.
        assert outcome.stdout.split(b"\n")[1:] == reference.stdout.split(b"\n")[1:], \
            f"{option} {token!r} is not read as {int(token)}\n" + outcome.describe() + "\n" + reference.describe()

    check()


# -- 6. the real command line, in a subprocess ---------------------------------------------------------

limited, subprocess_case = h.limited, h.subprocess_case


SUBPROCESS_CASES = ["BOM before both", "CRLF", "no final newline", "invalid UTF-8 docno and runtag",
                    "a 20-digit rank", "rank 2^63", "vertical tabs", "NUL in a docno", "a 20-digit judgment",
                    "empty run", "a 300 KB docno", "BOM only (run)"]
FAST_SUBPROCESS = {"BOM before both", "invalid UTF-8 docno and runtag", "a 20-digit rank"}


def subprocess_params():
    params = []
    for name in SUBPROCESS_CASES:
        for command in h.COMMANDS:
            marks = [] if name in FAST_SUBPROCESS else [pytest.mark.long]
            params.append(pytest.param(command, name, id=f"{command}-{name}", marks=marks))
    return params


@pytest.mark.parametrize("command,case", subprocess_params())
def test_real_command_line(tmp_path, command, case):
    qrels, run = EXPLICIT_FILES[case]
    inputs = {write(tmp_path, "qrels.txt", qrels): qrels, write(tmp_path, "run.txt", run): run}
    options = ["--order", "rank"] if command == h.NATIVE and case == "rank 2^63" else []
    h.check_outcome(subprocess_case(command, [*options, *inputs]), inputs, options)


@pytest.mark.parametrize("args", [
    pytest.param(["-m", "alpha-nDCG@1000000000"], id="cutoff 1e9"),
    pytest.param(["-m", "alpha-nDCG@99999999999999999999"], id="cutoff 1e20"),
    pytest.param(["-M", "99999999999999999999"], id="depth 1e20"),
])
def test_huge_numeric_options_native(tmp_path, args):
    inputs = {write(tmp_path, "qrels.txt", QRELS): QRELS, write(tmp_path, "run.txt", RUN): RUN}
    outcome = subprocess_case(h.NATIVE, [*args, *inputs], timeout=60)
    h.check_sound(outcome)
    assert outcome.status in (0, 2), outcome.describe()
    if outcome.status == 0:  # a cutoff beyond the longest ranking scores the whole ranking
        rows = outcome.stdout.decode().splitlines()[1:]
        assert [row.split(",")[1] for row in rows] == ["1", "2", "amean"], outcome.describe()
        values = [float(v) for row in rows for v in row.split(",")[2:]]
        assert values and all(0 <= v < float("inf") for v in values), outcome.describe()
    else:
        assert outcome.stdout == b"", outcome.describe()


def feed_later(path: str, data: bytes) -> threading.Thread:
    """Write `data` into a named pipe from a thread (the open blocks until the reader opens it)."""
    def writer():
        try:
            with open(path, "wb") as pipe:
                pipe.write(data)
        except OSError:
            pass
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("command", h.COMMANDS)
@pytest.mark.parametrize("which", ["run", "qrels"])
def test_named_pipe_is_read_once(tmp_path, command, which):
    fifo = tmp_path / f"{which}.fifo"
    os.mkfifo(fifo)
    other = write(tmp_path, "other.txt", QRELS if which == "run" else RUN)
    files = [other, str(fifo)] if which == "run" else [str(fifo), other]
    writer = feed_later(str(fifo), RUN if which == "run" else QRELS)
    outcome = subprocess_case(command, files, timeout=20)
    try:  # let the writer go, if the command never opened the pipe
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    except OSError:
        pass
    writer.join(timeout=5)
    inputs = {other: QRELS if which == "run" else RUN, str(fifo): RUN if which == "run" else QRELS}
    rows = h.check_outcome(outcome, inputs)
    assert rows is not None, "a named pipe is refused\n" + outcome.describe()


@pytest.mark.parametrize("command", h.COMMANDS)
def test_process_substitution_is_read(tmp_path, command):
    """`divaleval qrels <(cat run)`: the run is /dev/fd/N, a pipe."""
    qrels = write(tmp_path, "qrels.txt", QRELS)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, RUN)
        os.close(write_end)
        argv = ([] if command == h.NATIVE else ["ndeval"]) + [qrels, f"/dev/fd/{read_end}"]
        done = subprocess.run([sys.executable, "-m", "divaleval", *argv], capture_output=True, timeout=30,
                              pass_fds=(read_end,), preexec_fn=limited, cwd=ROOT)
    finally:
        os.close(read_end)
    outcome = h.Outcome(command, argv, done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))
    rows = h.check_outcome(outcome, {qrels: QRELS, f"/dev/fd/{read_end}": RUN})
    assert rows is not None, "process substitution is refused\n" + outcome.describe()
