"""The compare and meta commands, and per-topic scores read back from divaleval's (and ndeval's) output."""
from __future__ import annotations

import json
import sys
import time

import numpy as np
import pytest

import divaleval
from divaleval.errors import InputError, UsageError
from divaleval.io.scores import read_scores
from conftest import SAMPLE, run_cli, shared_path

QRELS = SAMPLE / "qrels.txt"
RUNS = SAMPLE / "runs"
MEASURES = "alpha-nDCG@10,ERR-IA@10,strec@10"
BASELINES = [f"{system}/results-{cat}{kind}.txt" for system in ("ql", "rm") for cat in ("cata", "catb")
             for kind in ("", "-filtered")]
D_SHARP = "D#-nDCG@10,D#-Q@10,D#-ERR@10,D#-nERR@10,D#-EBR@10,D#-RBP@10,D#-RBU@10"


def quiet(message):
    pass


class Result:
    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(args) -> Result:
    """The command line in this process (no interpreter to start): exit status, standard output and error."""
    from click.testing import CliRunner

    from divaleval.cli import main_group

    result = CliRunner().invoke(main_group, [str(a) for a in args], prog_name="divaleval")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Result(result.exit_code, result.stdout_bytes, result.stderr_bytes)


def ok(result):
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


# -- reading scores back ------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["json", "ndeval"])
def test_scores_read_back_give_the_cube_scored(tmp_path, fmt):
    scored = divaleval.score_cube(str(QRELS), str(RUNS), MEASURES.split(","), warn=quiet)
    out = tmp_path / f"scores.{fmt}"
    out.write_bytes(ok(run(["-c", "-q", "-f", fmt, "-m", MEASURES, QRELS, RUNS])).encode())
    read = divaleval.read_score_cube(str(out))
    assert read.measures == scored.measures and read.topics == scored.topics
    if fmt == "json":   # full precision, runs keyed by file
        assert read.runs == scored.runs and np.array_equal(read.values, scored.values)
    else:               # ndeval's %.6f, runs keyed by runtag
        assert read.runs == scored.runids
        printed = np.vectorize(lambda v: "%.6f" % v)
        assert np.array_equal(printed(read.values), printed(scored.values))


def test_ndeval_outputs_read_back(tmp_path):
    """ndeval's own CSVs of the eight TREC 2012 baselines (one runtag, 'indri'): the cube divaleval scores."""
    data = shared_path("data", "trec-web", "2012")
    oracle = shared_path("oracle", "ndeval", "trec2012")
    files = [str(oracle / f"{name.replace('/results', '-results')[:-4]}.c.traditional.csv") for name in BASELINES]
    read = divaleval.read_score_cube(files)
    assert read.runs == ("indri", *(f"indri#{k}" for k in range(2, 9)))
    scored = divaleval.score_cube(str(data / "qrels-for-ndeval.txt"),
                                  [str(data / "baseline-runs" / name) for name in BASELINES], "ndeval", warn=quiet)
    assert read.measures == scored.measures and read.topics == scored.topics
    printed = np.vectorize(lambda v: "%.6f" % v)
    assert np.array_equal(printed(read.values), printed(scored.values))     # what ndeval printed, exactly
    # A subset of the columns, by name or set name.
    assert divaleval.read_score_cube(files[:2], ["MAP-IA", "alpha-nDCG@20"]).measures == ("MAP-IA", "alpha-nDCG@20")


def test_two_runs_with_one_runtag_in_one_csv_stay_two(tmp_path):
    out = tmp_path / "s.csv"
    out.write_text("runid,topic,m\nx,1,0.5\nx,2,0.25\nx,amean,0.375\nx,1,0.125\nx,2,-nan\nx,amean,0.0625\n")
    warnings = []
    table = read_scores(str(out), warnings.append)
    assert table.runs == ["x", "x#2"] and table.values[:, 0].tolist() == [0.5, 0.25, 0.125, 0.0]
    assert warnings == [f"{out}:6: m is undefined (nan); read as 0"]


def test_a_byte_order_mark_is_skipped(tmp_path):
    out = tmp_path / "s.csv"
    out.write_bytes(b"\xef\xbb\xbfrunid,topic,m\nx,1,0.5\n")
    assert read_scores(str(out)).measures == ["m"]


@pytest.mark.parametrize("text, line, message", [
    ("runid,topic,m\nx,1,0.5,0.2\n", 2, "expected 3 fields, found 4"),
    ("runid,topic,m\nx,1,high\n", 2, "m 'high' is not a number"),
    ("runid,topic,m\nx,1,0.5\nx,1,0.5\n", 3, "topic '1' of run 'x' repeats line 2"),
    ("runid,topic,m\nx,amean,0.5\n", None, "holds no per-topic scores"),
    ('{"runid": "x", "topic": "1", "m": 0.5}\n{"runid": "x", "topic": "2", "n": 0.5}\n', 2, "differ"),
    ('{"runid": "x", "topic": "1", "m": 0.5}\nnot json\n', 2, "not a JSON object"),
    ("topic runid m\n", 1, "not a score file"),
])
def test_score_file_errors_name_the_line(tmp_path, text, line, message):
    path = tmp_path / "scores"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as error:
        read_scores(str(path))
    assert error.value.line == line


def test_missing_topics_in_score_files(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("runid,topic,m\na,1,0.5\na,2,0.25\na,amean,0\nb,1,0.125\nb,amean,0\n")
    with pytest.raises(InputError, match="run b has no scores for topics 2"):
        divaleval.read_score_cube(str(path))
    assert divaleval.read_score_cube(str(path), missing="zero").values[1, :, 0].tolist() == [0.125, 0.0]
    result = run(["meta", "--scores", path, "-s", "tau"])
    assert result.returncode == 2 and f"{path}: run b has no scores for topics 2" in result.stderr.decode()


# -- compare ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [["-J"], ["--rel-min", "2"], ["-J", "--rel-min", "2"]])
def test_compare_and_meta_score_as_evaluating_does_with_j_and_rel_min(tmp_path, options):
    measures = "P-IA@10,MAP-IA,alpha-nDCG@10"
    scores, plain = tmp_path / "scores.json", tmp_path / "plain.json"
    scores.write_bytes(ok(run(["-c", "-q", "-f", "json", "-m", measures, *options, QRELS, RUNS])).encode())
    plain.write_bytes(ok(run(["-c", "-q", "-f", "json", "-m", measures, QRELS, RUNS])).encode())
    for command in (["compare", "-B", "200", "-f", "csv"], ["meta", "-B", "200", "-s", "tau", "-f", "csv"]):
        scored = ok(run([*command, "-q", "-m", measures, *options, QRELS, RUNS]))
        assert scored == ok(run([*command, "-q", "--scores", scores]))
        if command[0] == "compare":  # the options change the means
            assert scored != ok(run([*command, "-q", "--scores", plain]))


@pytest.mark.parametrize("options, named", [(["-J"], "-J"), (["--rel-min", "2", "-M", "5"], "-M, --rel-min"),
                                            (["--order", "rank"], "--order")])
def test_scoring_options_are_refused_with_scores(tmp_path, options, named):
    scores = tmp_path / "scores.json"
    scores.write_bytes(ok(run(["-c", "-q", "-f", "json", "-m", MEASURES, QRELS, RUNS])).encode())
    for command in ("compare", "meta"):
        result = run([command, "-q", "--scores", scores, *options])
        assert result.returncode == 2 and f"{named} cannot be used with --scores" in result.stderr.decode()


def test_compare_table_csv_json_agree():
    args = ["compare", "-q", "-B", "500", "-m", MEASURES, QRELS, RUNS]
    table = ok(run(args))
    assert "Means" in table and "p(HSD)" in table and "Holm" in table
    rows = ok(run([*args, "-f", "csv"])).splitlines()
    assert rows[0] == ("measure,run_a,run_b,mean_a,mean_b,diff,t,p_t,p_t_holm,ci_t_low,ci_t_high,p_rand,p_rand_se,"
                       "p_rand_holm,p_hsd,p_hsd_se,ci_hsd_low,ci_hsd_high,effect_dz,effect_dz_low,effect_dz_high,"
                       "es_e2,g_av,alpha,correct,family,trials,rand_exact")
    assert len(rows) == 1 + 3 * 3
    records = [json.loads(line) for line in ok(run([*args, "-f", "json"])).splitlines()]
    frame = divaleval.compare(divaleval.score_cube(str(QRELS), str(RUNS), MEASURES.split(","), warn=quiet),
                              trials=500, seed=0)
    assert [r["p_hsd"] for r in records] == frame["p_hsd"].tolist()
    assert [r["p_t"] for r in records] == frame["p_t"].tolist()


def test_compare_is_reproducible_with_its_seed_and_quiet_when_piped():
    args = ["compare", "-B", "700", "-m", "alpha-nDCG@10", "--baseline", "bm25.txt", QRELS, RUNS]
    first = run_cli([*args, "--seed", "5"])    # a real process, its standard error a pipe
    assert ok(first) == ok(run([*args, "--seed", "5"]))
    assert ok(first) != ok(run([*args, "--seed", "6"]))
    assert b"trials" not in first.stderr            # no progress bar on a pipe


def test_compare_with_a_plot(tmp_path):
    plot = tmp_path / "diff.png"
    ok(run(["compare", "-q", "-B", "100", "-m", "alpha-nDCG@10", "--baseline", "bm25.txt", "--plot", plot,
                QRELS, RUNS]))
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, message", [
    (["compare", QRELS, RUNS / "bm25.txt"], "at least 2 runs"),
    (["compare", QRELS], "expected QRELS and at least two RUNs"),
    (["compare", "--baseline", "nope", QRELS, RUNS], "the baseline 'nope' is none of the runs"),
    (["compare", "--plot", "x.gif", QRELS, RUNS], "x.gif: a figure is written as .png, .pdf, .svg"),
    (["compare", "--plot", QRELS.with_suffix(".png"), "--scores", QRELS.with_suffix(".png"), QRELS], "not both"),
    (["meta", "-f", "csv", QRELS, RUNS], "-f csv writes one section"),
    (["meta", "-s", "gold", QRELS, RUNS], "-s gold needs --gold FILE"),
    (["meta", "-m", "nDCG@10", QRELS, RUNS], "at least 2 measures"),
])
def test_usage_errors_exit_2(args, message):
    result = run(args)
    assert result.returncode == 2
    assert message in result.stderr.decode()


def test_a_plot_never_overwrites_an_input(tmp_path):
    scores = tmp_path / "scores.png"      # an odd name for a score file, but an input all the same
    scores.write_text(ok(run(["-c", "-q", "-m", MEASURES, QRELS, RUNS])))
    before = scores.read_bytes()
    result = run(["meta", "--scores", scores, "--plot", scores])
    assert result.returncode == 2 and "is an input" in result.stderr.decode()
    assert scores.read_bytes() == before


def test_without_matplotlib_the_message_names_the_extra(monkeypatch):
    from divaleval.output import plots

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(UsageError, match=r"pip install 'divaleval\[plot\]'"):
        plots.check_plot_path("asl.png")


# -- meta ---------------------------------------------------------------------------------------------------

def test_meta_sections_and_formats(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("101 bm25 diverse diverse\n102 bm25 random bm25\n")
    args = ["meta", "-q", "-B", "300", "-m", MEASURES, "--gold", gold, QRELS, RUNS]
    table = ok(run(args))
    for title in ("Kendall's tau-b", "Discriminative power", "Metric Unanimity", "Agreement with 2 gold"):
        assert title in table
    tau = ok(run([*args, "-s", "tau", "-f", "csv"])).splitlines()
    assert tau[0] == "measure_a,measure_b,tau,ci_low,ci_high,runs,ties_a,ties_b,level" and len(tau) == 4
    records = [json.loads(line) for line in ok(run([*args, "-f", "json", "-s", "power", "-s", "mu"])).splitlines()]
    assert {r["section"] for r in records} == {"power", "mu"}
    assert len([r for r in records if r["section"] == "power"]) == 3 * 2


def test_undefined_intervals_read_alike_in_every_format():
    """Three runs: Fisher's z needs more than 4, so no interval exists: '-' in the table, empty in CSV,
    null in JSON, never [1, 1] (alpha-nDCG@10 and ERR-IA@10 rank the three runs alike: tau 1)."""
    args = ["meta", "-q", "-m", MEASURES, "-s", "tau", QRELS, RUNS]
    table = ok(run(args))
    assert "[1.000, 1.000]" not in table and "(-: no interval: Fisher's z needs L > 4" in table
    line = next(row for row in table.splitlines() if row.startswith("alpha-nDCG@10  ERR-IA@10"))
    assert line.split()[2:4] == ["1.000", "-"]
    csv_rows = ok(run([*args, "-f", "csv"])).splitlines()
    assert csv_rows[1] == "alpha-nDCG@10,ERR-IA@10,1.0,,,3,0,0,0.95"
    record = json.loads(ok(run([*args, "-f", "json"])).splitlines()[0])
    assert (record["tau"], record["ci_low"], record["ci_high"], record["level"]) == (1.0, None, None, 0.95)


def test_metric_unanimity_says_its_reading_in_every_format():
    args = ["meta", "-q", "-m", MEASURES, "-s", "mu", QRELS, RUNS]
    table = ok(run(args))
    assert "Reading: strict: a unanimous improvement is every other measure > (all =: 1/2)" in table
    assert "--mu-reading pareto" in table
    pareto = ok(run([*args, "--mu-reading", "pareto"]))
    assert "Reading: pareto: a unanimous improvement is every other measure >=, at least one > (all =: 1/2)" in pareto
    rows = ok(run([*args, "-f", "csv", "--mu-reading", "pareto"])).splitlines()
    assert rows[0] == "measure,mu,p_joint,p_measure,p_others,reading" and rows[1].endswith(",pareto")
    records = [json.loads(line) for line in ok(run([*args, "-f", "json"])).splitlines()]
    assert {r["reading"] for r in records} == {"strict"}
    frame = divaleval.metric_unanimity(divaleval.score_cube(str(QRELS), str(RUNS), MEASURES.split(","), warn=quiet),
                                       reading="pareto")
    assert [float(row.split(",")[1] or "nan") for row in rows[1:]] == pytest.approx(frame["mu"].tolist(),
                                                                                     nan_ok=True)
    assert run([*args, "--mu-reading", "weak"]).returncode == 2


def test_power_labels_each_test_by_its_error_control():
    args = ["meta", "-q", "-B", "300", "-m", MEASURES, "-s", "power", "--method", "tukey", "--method", "bootstrap",
            "--method", "bootstrap-maxt", QRELS, RUNS]
    table = ok(run(args))
    assert table.startswith("3 runs, 5 topics, 3 measures; tukey, bootstrap and bootstrap-maxt tests with B = 300")
    for legend in ("HSD: randomised Tukey HSD (Sakai 2014), family-wise over the 3 pairs of runs",
                   "bootstrap: studentised paired bootstrap (Sakai 2006), per pair: not corrected for the 3 pairs",
                   "bootstrap max-t: the same bootstrap, family-wise over the 3 pairs"):
        assert legend in table
    headers = table.splitlines()[6:9]
    assert headers[0].split() == ["HSD", "HSD", "bootstrap", "bootstrap", "bootstrap", "max-t", "bootstrap", "max-t"]
    assert headers[1].split() == ["family-wise", "family-wise", "per", "pair", "per", "pair", "family-wise",
                                  "family-wise"]
    rows = ok(run([*args, "-f", "csv"])).splitlines()
    assert rows[0] == "measure,method,control,alpha,pairs,significant,share,min_significant_diff,trials,seed"
    assert [row.split(",")[1:4] for row in rows[1:4]] == [
        ["tukey", "family-wise", "0.05"], ["bootstrap", "per-pair", "0.05"], ["bootstrap-maxt", "family-wise", "0.05"]]
    assert all(row.endswith(",300,0") for row in rows[1:])
    asl = [json.loads(line) for line in ok(run([*args, "-s", "asl", "-f", "json"])).splitlines()]
    assert {(r["method"], r["control"]) for r in asl if r["section"] == "asl"} == {
        ("tukey", "family-wise"), ("bootstrap", "per-pair"), ("bootstrap-maxt", "family-wise")}
    assert all(r["trials"] == 300 and r["seed"] == 0 for r in asl)


def test_meta_is_reproducible_with_its_seed():
    args = ["meta", "-q", "-B", "400", "-m", MEASURES, "-s", "asl", "-f", "csv", QRELS, RUNS]
    assert ok(run([*args, "--seed", "1"])) == ok(run([*args, "--seed", "1"]))
    assert ok(run([*args, "--seed", "1"])) != ok(run([*args, "--seed", "2"]))


@pytest.mark.slow
def test_meta_on_the_trec_2012_baselines_in_under_a_minute(tmp_path):
    data = shared_path("data", "trec-web", "2012")
    plot, heat = tmp_path / "asl.png", tmp_path / "tau.svg"
    started = time.monotonic()
    result = run_cli(["meta", "-B", "1000", "-m", "ndeval", "-m", D_SHARP, "--plot", plot, "--plot-tau", heat,
                      data / "qrels-for-ndeval.txt", *[data / "baseline-runs" / name for name in BASELINES]])
    elapsed = time.monotonic() - started
    text = ok(result)
    assert elapsed < 60, elapsed
    assert text.startswith("8 runs, 50 topics, 28 measures; tukey and bootstrap tests with B = 1000 trials")
    assert "27 D#-RBP@10" in text and "D#-RBU@10" in text                  # the tau matrix, 28 measures
    assert text.count("/28 = ") == 2 * 28                                   # power: both tests, every measure
    assert plot.read_bytes()[:4] == b"\x89PNG" and b"<svg" in heat.read_bytes()[:400]


def test_the_progress_bar_draws_only_on_a_terminal():
    import io

    from divaleval.cli.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    shown, piped = Terminal(), io.StringIO()
    for stream in (shown, piped):
        with Progress("divaleval meta", 1000, unit="trials", stream=stream) as bar:
            for _ in range(4):
                bar.advance(250)
    assert "[##############################] 100% 1000/1000 trials" in shown.getvalue()
    assert shown.getvalue().endswith("\r\033[K")          # the line is cleared at the end
    assert piped.getvalue() == ""


@pytest.mark.parametrize("suffix", [".png", ".pdf", ".svg"])
def test_figures_are_the_same_bytes_for_the_same_data(tmp_path, suffix):
    drawn = []
    for name in ("first", "second"):
        asl, tau = tmp_path / f"{name}-asl{suffix}", tmp_path / f"{name}-tau{suffix}"
        ok(run(["meta", "-q", "-B", "200", "-m", MEASURES, "-s", "power", "--plot", asl, "--plot-tau", tau,
                QRELS, RUNS]))
        drawn.append((asl.read_bytes(), tau.read_bytes()))
    assert drawn[0] == drawn[1]
    assert drawn[0][0][:5] in (b"\x89PNG\r", b"%PDF-", b"<?xml")
