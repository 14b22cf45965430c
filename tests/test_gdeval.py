"""`divaleval gdeval` reproduces gdeval.pl 1.3's standard output byte for byte, and its exit status class.

Golden files: ../shared/oracle/gdeval (every call of its cases.tsv, skipped
where ../shared is absent); small cases in tests/data/gdeval (edge000 copied
from the oracle, the others computed by hand: see each test).
"""
from __future__ import annotations

import csv
import io

import pytest

from conftest import DATA, SHARED, run_cli

from divaleval.compat import gdeval

pytestmark = pytest.mark.golden  # a reference's values: run again on the numpy path in CI

GD = DATA / "gdeval"
CASES = SHARED / "oracle" / "gdeval" / "cases.tsv"


def run_gdeval(args: list) -> tuple[int, bytes, str]:
    """`divaleval gdeval ARGS` in-process: (status, stdout bytes, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = gdeval.main([str(arg) for arg in args], out=out, err_out=err)
    return status, out.getvalue().encode("utf-8", "surrogateescape"), err.getvalue()


def oracle_cases():
    if not CASES.exists():
        yield pytest.param(None, id="oracle-absent")
        return
    with CASES.open(newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            yield pytest.param(row, id=row["name"])


@pytest.mark.sweep
@pytest.mark.parametrize("case", list(oracle_cases()))
def test_oracle_byte_for_byte(case):
    if case is None:
        pytest.skip(f"{CASES} not available")
    shared = str(SHARED)
    status, out, err = run_gdeval(case["args"].replace("{SHARED}", shared).split())
    assert out == open(case["expected"].replace("{SHARED}", shared), "rb").read()
    assert (status == 0) == (case["exit"] == "0"), err


def oracle_groups():
    """The oracle's calls that differ only in their run (same qrels, same options), grouped in file order:
    one call of them all must print the concatenation of their golden outputs. Those on the 2012 qrels (the
    bench's) run with the suite, the others with the sweeps."""
    if not CASES.exists():
        yield pytest.param(None, None, id="oracle-absent")
        return
    groups: dict[tuple, list] = {}
    with CASES.open(newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            args = row["args"].split()
            groups.setdefault(tuple(args[:-1]), []).append((args[-1], row["expected"], row["exit"]))
    for flags, calls in groups.items():
        if len(calls) > 1:
            marks = () if "{SHARED}/data/trec-web/2012/qrels.adhoc.txt" in flags else (pytest.mark.sweep,)
            name = calls[0][1].rsplit("/", 1)[-1].removesuffix(".out")
            yield pytest.param(flags, calls, id=f"{name}+{len(calls) - 1}", marks=marks)


@pytest.mark.parametrize("flags,calls", list(oracle_groups()))
def test_several_runs_are_the_oracle_calls_concatenated(flags, calls):
    if flags is None:
        pytest.skip(f"{CASES} not available")
    assert all(status == "0" for _, _, status in calls)
    shared = str(SHARED)
    status, out, err = run_gdeval([arg.replace("{SHARED}", shared) for arg in flags]
                                  + [run.replace("{SHARED}", shared) for run, _, _ in calls])
    assert status == 0, err
    assert out == b"".join(open(expected.replace("{SHARED}", shared), "rb").read() for _, expected, _ in calls)


def test_several_runs_by_hand():
    """run-b.txt ranks a (2), c (0), b (1) for topic 51 and lacks 52: nDCG (3 + 1/log2(4)) / (3 + 1/log2(3))
    = 0.963940, ERR 3/16 + (1/16)(13/16)/3 = 0.204427; -c halves them in the mean (two qrels topics). With
    run.txt first (both its topics: -c changes nothing), the output is the two calls' one after the other."""
    alone = run_gdeval(["-c", GD / "qrels.txt", GD / "run-b.txt"])
    assert alone[:2] == (0, (GD / "run-b-c.out").read_bytes())
    status, out, _ = run_gdeval(["-c", GD / "qrels.txt", GD / "run.txt", GD / "run-b.txt"])
    assert (status, out) == (0, (GD / "run-default.out").read_bytes() + (GD / "run-b-c.out").read_bytes())
    status, out, _ = run_gdeval(["-k", "1", GD / "qrels.txt", GD / "run.txt", GD / "run.txt"])
    assert (status, out) == (0, (GD / "run-k1.out").read_bytes() * 2)


@pytest.mark.parametrize("second", [
    b"51 Q0 a 1 1 r2\n51 Q0 b 1 1 0\n",   # line 2: a runid Perl takes as false
    None,                                 # no such file
])
def test_an_error_in_the_second_run_comes_after_the_first_block(tmp_path, second):
    bad = tmp_path / "bad"
    if second is not None:
        bad.write_bytes(second)
    status, out, err = run_gdeval([GD / "qrels.txt", GD / "run.txt", bad, GD / "run-b.txt"])
    assert status == 2
    assert out == (GD / "run-default.out").read_bytes()  # the first run's, none of the third's
    assert f"{bad}:2:" in err if second is not None else f"{bad}: cannot open" in err


def test_a_stop_in_the_second_run_prints_its_rows_before(tmp_path):
    """As test_another_spelling_stops_after_the_rows_before, with 053 after 52: the 52 row is printed
    (b, grade 1, first: nDCG 1, ERR 1/16), then nothing of the third run."""
    (tmp_path / "q").write_bytes(b"53 0 a 2\n053 0 b 1\n52 0 b 1\n")
    (tmp_path / "r").write_bytes(b"52 Q0 b 1 1 r\n053 Q0 b 1 1 r\n")
    (tmp_path / "ok").write_bytes(b"52 Q0 b 1 1 ok\n")
    status, out, err = run_gdeval([tmp_path / "q", tmp_path / "ok", tmp_path / "r", tmp_path / "ok"])
    header = b"runid,topic,ndcg@20,err@20\n"
    assert status != 0 and f"{tmp_path / 'r'}:" in err
    assert out == header + b"ok,52,1.00000,0.06250\nok,amean,1.00000,0.06250\n" + header + b"r,52,1.00000,0.06250\n"


@pytest.mark.parametrize("args,parsed", [
    (["q", "r1", "r2"], ("q", ["r1", "r2"])),
    (["-c", "-k", "5", "q", "r1", "r2", "r3"], ("q", ["r1", "r2", "r3"])),
    (["-", "r1", "-c"], ("-", ["r1", "-c"])),      # after the qrels, every argument is a run
    (["-c", "-k", "q"], ("-k", ["q"])),  # two left are the files, as in gdeval.pl (so -k is the qrels)
])
def test_several_runs_on_the_command_line(args, parsed):
    opts, qrels, runs = gdeval.parse_command_line(args)
    assert (qrels, runs) == parsed


@pytest.mark.parametrize("flags", [[], ["-c"], ["-k", "10"]])
def test_oracle_edge_case_copied(flags):
    status, out, _ = run_gdeval([*flags, GD / "edge000.qrels", GD / "edge000.run"])
    name = {0: "default", 1: "c"}.get(len(flags), "k10")
    assert status == 0
    assert out == (GD / f"edge000-{name}.out").read_bytes()


def test_by_hand():
    """Topic 51: the run ranks b (grade 1) above a (2): DCG 1 + 3/log2(3) over the ideal 3 + 1/log2(3);
    ERR 1/16 + (3/16)(15/16)/2. Topic 52: z and x tie on score, docno descending puts z (unjudged) first:
    nDCG 15/log2(3) / 15, ERR (15/16)/2. Topic 53 has no relevant document, 99 no qrels: neither counts."""
    status, out, _ = run_gdeval([GD / "qrels.txt", GD / "run.txt"])
    assert (status, out) == (0, (GD / "run-default.out").read_bytes())
    status, out, _ = run_gdeval(["-k", "1", GD / "qrels.txt", GD / "run.txt"])
    assert (status, out) == (0, (GD / "run-k1.out").read_bytes())


def test_percent_in_a_runid_is_a_printf_conversion():
    """The baseline's runid ``base%x`` takes the nDCG difference as %x (0: a fraction truncated); the two
    %.5f then print the ERR difference, 2.5 (3/16 - 0.150390625), and a missing argument (0)."""
    status, out, _ = run_gdeval(["-c", "-baseline", GD / "baseline-percent.txt", "-riskAlpha", "1.50",
                                 GD / "qrels.txt", GD / "run.txt"])
    assert (status, out) == (0, (GD / "run-c-percent.out").read_bytes())


def test_complete_risk_carries_baseline_values_over():
    """-c against a baseline: topics 0 and 10 the run lacks follow its topic 11. The baseline has topic 0
    (nDCG 1, ERR 1/16) and topic 1 (no relevant document: nDCG "" and no ERR) but not 10, which so keeps
    ERR 1/16 from topic 0 and nDCG 0 from topic 1 (gdeval.pl's list holds the key "1" of its hash's
    values)."""
    status, out, _ = run_gdeval(["-c", "-baseline", GD / "baseline-carry.txt", GD / "qrels-carry.txt",
                                 GD / "run-carry.txt"])
    assert (status, out) == (0, (GD / "run-carry-c.out").read_bytes())


def test_reading_quirks(tmp_path):
    """\\r deleted anywhere, a topic prefix up to its last '-', scores read as Perl numbers (1e0 is 1),
    the runid that of the last line: the same ranking as run.txt's topic 51."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_bytes(b"wt-51 Q0 a 2\r\n51 0.0 b 1\n")
    run.write_bytes(b"x-y-51 Q0 a 1 1 first\n51 Q0 b 2 1e0 la\rst\n")
    status, out, _ = run_gdeval([qrels, run])
    assert status == 0
    assert out == b"runid,topic,ndcg@20,err@20\nlast,51,0.79671,0.15039\nlast,amean,0.79671,0.15039\n"


def test_braces_and_percent_signs_in_a_runid(tmp_path):
    (tmp_path / "r").write_bytes(b"51 Q0 a 1 1 {0}%%%s\n")
    status, out, _ = run_gdeval([GD / "qrels.txt", tmp_path / "r"])
    # %% is a percent sign, %s takes the nDCG (3 / (3 + 1/log2(3)) as Perl's %.15g); the row's two %.5f then
    # take the ERR (3/16) and undef (0).
    assert (status, out) == (0, b"runid,topic,ndcg@20,err@20\n{0}%0.82623465712856,51,0.18750,0.00000\n"
                                b"{0}%0.82623465712856,amean,0.18750,0.00000\n")


def test_empty_files(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    header = b"runid,topic,ndcg@20,err@20\n"
    assert run_gdeval([GD / "qrels.txt", empty])[:2] == (0, header + b"?????,amean,0.00000,0.00000\n")
    assert run_gdeval(["-c", empty, GD / "run.txt"])[:2] == (0, header + b"r1,amean,0.00000,0.00000\n")


def test_depth_as_perl_reads_it():
    assert run_gdeval(["-k", "1.9", GD / "qrels.txt", GD / "run.txt"])[1] == (GD / "run-k1.out").read_bytes()
    assert run_gdeval(["-k", "inf", GD / "qrels.txt", GD / "run.txt"])[1].startswith(b"runid,topic,ndcg@Inf,err@Inf\n")


@pytest.mark.parametrize("args", [
    [], ["q"], ["-k", "0", "q", "r"], ["-riskAlpha", "-1", "q", "r"], ["-x", "q", "r"], ["-k", "5", "q"],
    ["-c", "-x", "q", "r1", "r2"],
])
def test_usage_errors(args):
    status, out, err = run_gdeval(args)
    assert status != 0 and out == b"" and "usage" in err


@pytest.mark.parametrize("qrels,run", [
    (b"51 0 a 5\n", b"51 Q0 a 1 1 r\n"),          # a grade above 4
    (b"51 1 a 1\n", b"51 Q0 a 1 1 r\n"),          # a second field that is not 0
    (b"51 0 a\n", b"51 Q0 a 1 1 r\n"),            # three fields
    (b"\n", b"51 Q0 a 1 1 r\n"),                  # a blank line
    (b"\r", b"51 Q0 a 1 1 r\n"),                  # a blank line to Perl, once \r is deleted
    (b"51 0 a 1\n", b"51 q0 a 1 1 r\n"),          # not Q0
    (b"51 0 a 1\n", b"51 Q0 a 1.0 1 r\n"),        # a rank that is not digits
    (b"51 0 a 1\n", b"51 Q0 a 1 1 0\n"),          # a runid Perl takes as false
    (b"51 0 a 1\n", b"5x Q0 a 1 1 r\n"),          # a topic that is not digits
    (b"51 0 a 1\n", b"51 Q0 a 1 nan r\n"),        # NaN: refused (a departure)
])
def test_input_errors(tmp_path, qrels, run):
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    status, out, err = run_gdeval([tmp_path / "q", tmp_path / "r"])
    assert status == 2 and out == b"" and ":1:" in err


def test_another_spelling_stops_after_the_rows_before(tmp_path):
    """Qrels 51 and 051 share one ideal list (under 51): the run's 051 divides by zero in gdeval.pl."""
    (tmp_path / "q").write_bytes(b"51 0 a 2\n051 0 b 1\n52 0 b 1\n")
    (tmp_path / "r").write_bytes(b"52 Q0 b 1 1 r\n051 Q0 b 1 1 r\n")
    status, out, _ = run_gdeval([tmp_path / "q", tmp_path / "r"])
    assert status != 0
    assert out == b"runid,topic,ndcg@20,err@20\n"


def test_help_and_version():
    assert run_gdeval(["-help"])[:1] == (0,)
    status, out, _ = run_gdeval(["-version", "q", "r"])
    assert status == 0 and b"version 1.3" in out


def test_the_command():
    done = run_cli(["gdeval", GD / "qrels.txt", GD / "run.txt"])
    assert done.returncode == 0 and done.stdout == (GD / "run-default.out").read_bytes()
    done = run_cli(["gdeval", "-c", GD / "qrels.txt", GD / "run.txt", GD / "missing", GD / "run-b.txt"])
    assert done.returncode == 2 and done.stdout == (GD / "run-default.out").read_bytes()
    assert b"missing" in done.stderr
    assert run_cli(["gdeval", "-k", "0", GD / "qrels.txt", GD / "run.txt"]).returncode == 2
    assert b"gdeval" in run_cli(["--help"]).stdout


def test_a_run_s_order_and_fields_against_a_plain_reading(tmp_path):
    """Random runs read as a few lines of Python read them (the topic after its last '-', the score as the
    decimal it spells, the order by Python's stable sorts: file order, docno descending, then topic and score
    descending): many ties of score and docno, topics under prefixes, a prefix or a score longer than the
    fields checked byte by byte, the last line without its newline."""
    import random

    rng = random.Random(20261126)
    spellings = {0.5: ["0.5", ".5", "+0.50", "5e-1"], 1.0: ["1", "1.0", "001", "1e0", "10E-1"], 0.0: ["0", "-0", "0.0"],
                 -2.25: ["-2.25", "-225e-2"], 3.0: ["3", "3." + "0" * 30]}
    for trial in range(40):
        lines, expected = [], []
        for index in range(rng.randint(1, 60)):
            number = rng.choice([7, 51, 51, 52, 100])
            prefix = rng.choice(["", "", "wt-", "a-b-", "x" * 30 + "-"])
            value = rng.choice(list(spellings))
            docno = rng.choice([b"d1", b"d2", b"d10", b"clueweb12-0000tw-05-12114", b"D1"])
            lines.append(b"%s%d Q0 %s %d %s run%d" % (prefix.encode(), number, docno, index,
                                                      rng.choice(spellings[value]).encode(), trial))
            expected.append((number, value, docno, index))
        path = tmp_path / f"run{trial}"
        path.write_bytes(b"\n".join(lines) + rng.choice([b"", b"\n"]))
        order = sorted(expected, key=lambda line: line[2], reverse=True)  # (stable, reverse included)
        order.sort(key=lambda line: (line[0], -line[1]))
        run = gdeval.read_run(str(path))
        assert run.runid == f"run{trial}"
        assert run.topics == [str(number) for number in sorted({line[0] for line in expected})]
        assert run.keys.to_pylist() == [b"%d:%s" % (line[0], line[2]) for line in order]


def test_dcg_and_err_add_term_by_term_as_gdeval_pl():
    """The rows' sums and products (numpy's cumulative ones) equal a plain left-to-right loop to the bit:
    DCG adds (2^g - 1) / (log(i + 2) / log(2)); ERR adds r * decay / (i + 1), then decay *= 1 - r."""
    import math
    import random

    import numpy as np

    from divaleval.compat.gdeval import scoring

    rng = random.Random(7)
    for _ in range(200):
        gains = [rng.choice([0, 0, 1, 2, 3, 4]) for _ in range(rng.randint(0, 40))]
        depth = rng.randint(1, 45)
        dcg = err = 0.0
        decay = 1.0
        for i, gain in enumerate(gains[:depth]):
            if gain:
                dcg += (2.0 ** gain - 1) / (math.log(i + 2) / math.log(2))
                stop = (2.0 ** gain - 1) / 16
                err += stop * decay / (i + 1)
                decay *= 1 - stop
        array = np.array(gains, dtype=np.int64)
        assert (scoring.dcg(array, depth), scoring.err(array, depth)) == (dcg, err)
    # every topic at once, or a topic at a time where one list is far longer: the same values
    gains = np.array([rng.choice([0, 1, 2, 4]) for _ in range(50_500)], dtype=np.int64)
    starts, cuts = np.r_[0, np.arange(50) * 10 + 50_000], np.r_[50_000, np.full(50, 10)]
    assert len(cuts) * cuts.max() > 4 * cuts.sum() + 65536  # (so a topic at a time)
    together = scoring.dcg_and_err(scoring.topic_rows(gains, starts, cuts))
    apart = scoring.topic_values(gains, starts, cuts)
    assert all(np.array_equal(a, b) for a, b in zip(together, apart))
    assert apart[0][0] == scoring.dcg(gains, 50_000) and apart[1][-1] == scoring.err(gains[50_490:], 10)


def test_short_fields_at_the_end_of_the_data():
    """A field closer to the end than the column's widest is read from a padded tail."""
    import numpy as np

    from divaleval.compat.gdeval import reading

    for text, expected in [(b"12345678 9\n", [True, True]), (b"12345678 x\n", [True, False])]:
        data = np.frombuffer(text, dtype=np.uint8)
        starts, ends = np.array([0, 9]), np.array([8, 10])
        assert reading._digits(data, starts, ends).tolist() == expected
        assert reading._decimals(data, starts, ends).tolist() == expected


def test_decimals_checked_by_bytes_are_plain_decimals():
    """Scores taken as plain decimals byte by byte are ones PLAIN_DECIMAL (Arrow's reading = Perl's) accepts;
    the rest is left to it."""
    import random
    import re

    import numpy as np

    from divaleval.compat.gdeval import reading

    rng = random.Random(3)
    texts = [b"".join(rng.choice([b"0", b"7", b".", b"-", b"+", b"e", b"x"]) for _ in range(rng.randint(1, 18)))
             for _ in range(3000)] + [b"1" * 15, b"1" * 16, b"-1.5", b"+.5", b"5.", b"-", b"."]
    data = np.frombuffer(b" ".join(texts) + b"\n", dtype=np.uint8)
    lengths = np.array([len(text) for text in texts])
    starts = np.cumsum(lengths + 1) - lengths - 1
    fast = reading._decimals(data, starts, starts + lengths)
    plain = np.array([re.fullmatch(reading.PLAIN_DECIMAL.encode(), text) is not None for text in texts])
    assert not (fast & ~plain).any()
    assert fast[-7:].tolist() == [True, False, True, True, True, False, False]
    assert fast.sum() > 100


def test_the_command_imports_neither_pandas_nor_the_measures():
    import subprocess
    import sys

    code = ("import sys; from divaleval.cli import main\ntry: main(sys.argv[1:])\nexcept SystemExit: pass\n"
            "print([m for m in ('pandas', 'divaleval.measures', 'divaleval.model') if m in sys.modules], "
            "file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, "gdeval", str(GD / "qrels.txt"), str(GD / "run.txt")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.encode() == (GD / "run-default.out").read_bytes()
    assert done.stderr.strip().splitlines()[-1] == "[]"
