"""divaleval report: the organiser's static site, run labels everywhere, and the site in a real browser.

The per-topic summary is checked against the per-topic scores read independently
(pandas over ``divaleval -f json``), the intervals against scipy's t quantiles,
the groups against the definition on hand-made matrices, and the pages in
headless Chromium (Debian's chromium and chromium-driver, through selenium).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from divaleval.labels import legend, path_labels, run_labels
from divaleval.meta import ScoreCube
from divaleval.report import track_report
from divaleval.report.track import not_different_groups, simultaneous_intervals
from conftest import SAMPLE, run_cli, shared_path

QRELS = SAMPLE / "qrels.txt"
RUNS = SAMPLE / "runs"
BASELINES = [f"{system}/results-{cat}{kind}.txt" for system in ("ql", "rm") for cat in ("cata", "catb")
             for kind in ("", "-filtered")]
MEASURES = "ERR-IA@20,alpha-nDCG@20,P-IA@10"


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


def trec_2012():
    """The diversity qrels and the 8 baseline runs of the TREC 2012 Web track (all with the runtag indri)."""
    base = shared_path("data", "trec-web", "2012")
    return base / "qrels.diversity.txt", [base / "baseline-runs" / name for name in BASELINES]


@pytest.fixture(scope="module")
def baseline_site(tmp_path_factory):
    """The report of the 8 TREC 2012 baselines, and their per-topic scores printed by ``divaleval -f json``."""
    qrels, runs = trec_2012()
    where = tmp_path_factory.mktemp("site")
    site = where / "site"
    ok(run_cli(["report", "-q", "-B", "500", "-m", MEASURES, "-o", site, qrels, *runs]))
    scores = where / "scores.jsonl"
    scores.write_text(ok(run_cli(["-q", "-c", "-f", "json", "-m", MEASURES, qrels, *runs])))
    return site, scores


# -- labels --------------------------------------------------------------------------------------------------

def test_labels_are_runtags_when_unique_else_the_shortest_distinguishing_path_suffix():
    assert run_labels(["a/x.txt", "b/y.txt"], ["bm25", "lm"]) == ["bm25", "lm"]
    assert run_labels(["a/x.txt", "b/y.txt"], ["indri", "indri"]) == ["x.txt", "y.txt"]
    assert run_labels(["d/ql/r.txt", "d/rm/r.txt", "d/rm/s.txt"], ["t", "t", "u"]) == ["ql/r.txt", "rm/r.txt",
                                                                                          "rm/s.txt"]
    assert path_labels(["a/run", "run"]) == ["a/run", "run"]  # one key the suffix of another
    assert path_labels(["x/run", "./x/run"]) == ["x/run", "./x/run"]  # no suffix tells them apart: the keys
    assert legend(["a/x.txt", "y"], ["x.txt", "y"]) == [("x.txt", "a/x.txt")]


def test_the_trec_2012_baselines_get_eight_short_labels():
    _, runs = trec_2012()
    labels = run_labels([str(run) for run in runs], ["indri"] * 8)
    assert labels == BASELINES


def test_table_and_compare_name_the_baselines_apart():
    qrels, runs = trec_2012()
    table = ok(run_cli(["-q", "-n", "-f", "table", "-m", "ERR-IA@20", qrels, *runs]))
    rows = [line.split() for line in table.splitlines()[2:]]
    assert [row[0] for row in rows] == BASELINES
    compare = ok(run_cli(["compare", "-q", "-B", "100", "-m", "ERR-IA@20", qrels, *runs]))
    means = compare.split("Means\n")[1].split("\n\n")[0].splitlines()[2:]
    assert [line.split()[0] for line in means] == BASELINES
    pairs = [line for line in compare.split("Differences")[1].split("\n\n")[0].splitlines()[3:]
             if not line.startswith("(")]  # (a note on Holm against the Bonferroni intervals)
    assert {line.split()[1] for line in pairs} | {line.split()[2] for line in pairs} == set(BASELINES)
    assert all(str(run) in compare.split("\nRuns\n")[1] for run in runs)  # the legend keeps the files


def test_meta_names_the_baselines_apart():
    qrels, runs = trec_2012()
    text = ok(run_cli(["meta", "-q", "-s", "asl", "--method", "tukey", "-B", "50", "-m", "ERR-IA@20", qrels, *runs]))
    rows = [line.split() for line in text.split("ASL curves")[1].split("\n\n")[0].splitlines()[3:]]
    assert {row[4] for row in rows} | {row[5] for row in rows} == set(BASELINES)  # after measure, method, control


def test_ndeval_run_column_tells_the_baselines_apart_and_reads_back(tmp_path):
    qrels, runs = trec_2012()
    plain = ok(run_cli(["-q", "-n", "-m", "ERR-IA@20", qrels, *runs]))
    assert {line.split(",")[0] for line in plain.splitlines()[1:]} == {"indri"}  # ndeval's runid, as before
    keyed = ok(run_cli(["-q", "-c", "--run-column", "-m", "ERR-IA@20", qrels, *runs]))
    assert keyed.splitlines()[0] == "run,runid,topic,ERR-IA@20"
    assert [line.split(",")[0] for line in keyed.splitlines()[1:] if ",amean," in line] == [str(r) for r in runs]
    assert [line.split(",", 1)[1] for line in keyed.splitlines()] == plain_rows(qrels, runs)
    (tmp_path / "scores.csv").write_text(keyed)
    compare = ok(run_cli(["compare", "-q", "-B", "100", "--scores", tmp_path / "scores.csv"]))
    assert [line.split()[0] for line in compare.split("Means\n")[1].split("\n\n")[0].splitlines()[2:]] == BASELINES
    refused = run_cli(["-q", "-f", "json", "--run-column", qrels, runs[0]])
    assert refused.returncode == 2 and b"--run-column" in refused.stderr


def plain_rows(qrels, runs) -> list[str]:
    return ok(run_cli(["-q", "-c", "-m", "ERR-IA@20", qrels, *runs])).splitlines()


# -- the numbers ---------------------------------------------------------------------------------------------

def test_per_topic_summary_equals_values_recomputed_from_the_per_topic_scores(baseline_site):
    site, scores = baseline_site
    frame = pd.DataFrame([json.loads(line) for line in scores.read_text().splitlines()])  # every digit
    frame = frame[frame["topic"] != "amean"]
    measures = MEASURES.split(",")
    long = frame.melt(id_vars=["run", "topic"], value_vars=measures, var_name="measure", value_name="score")
    grouped = long.groupby(["topic", "measure"])["score"]
    expected = pd.DataFrame({"best": grouped.max(), "median": grouped.median(), "worst": grouped.min()})
    summary = pd.read_csv(site / "per-topic.csv", dtype={"topic": str}).set_index(["topic", "measure"])
    assert len(summary) == len(expected) == 50 * 3
    joined = summary.merge(expected, left_index=True, right_index=True, how="outer", suffixes=("", "_expected"))
    for column in ("best", "median", "worst"):
        np.testing.assert_array_equal(joined[column].to_numpy(), joined[f"{column}_expected"].to_numpy(), column)
    # The best run: a run with the best score, named by its label; how many share it.
    label = dict(zip((str(r) for r in trec_2012()[1]), BASELINES))
    scored = long.assign(label=long["run"].map(label)).set_index(["topic", "measure", "label"])["score"].sort_index()
    for (topic, measure), row in summary.iterrows():
        assert scored[(topic, measure, row.best_run)] == row.best
        assert (scored.loc[(topic, measure)] == row.best).sum() == row.best_count
    records = json.loads((site / "per-topic.json").read_text())
    assert pd.DataFrame(records).astype({"topic": str}).set_index(["topic", "measure"]).equals(summary)


def test_simultaneous_intervals_are_bonferroni_t_intervals():
    rng = np.random.default_rng(3)
    matrix = rng.random((25, 6))
    mean, low, high = simultaneous_intervals(matrix, 0.05)
    critical = scipy_stats.t.ppf(1 - 0.05 / (2 * 6), 24)
    half = critical * matrix.std(axis=0, ddof=1) / np.sqrt(25)
    np.testing.assert_allclose(low, matrix.mean(axis=0) - half, rtol=1e-12)
    np.testing.assert_allclose(high, matrix.mean(axis=0) + half, rtol=1e-12)


def test_groups_are_maximal_ranges_without_a_significant_pair():
    def significant(m, pairs):
        matrix = np.zeros((m, m), dtype=bool)
        for a, b in pairs:
            matrix[a, b] = matrix[b, a] = True
        return matrix

    assert not_different_groups(significant(4, [])) == [(0, 3)]
    # 0 differs from 2 and 3, 1 from 3: groups {0, 1}, {1, 2}, {2, 3}
    assert not_different_groups(significant(4, [(0, 2), (0, 3), (1, 3)])) == [(0, 1), (1, 2), (2, 3)]
    assert not_different_groups(significant(3, [(0, 1), (0, 2), (1, 2)])) == [(0, 0), (1, 1), (2, 2)]


def test_report_groups_agree_with_its_p_values_and_ranking():
    rng = np.random.default_rng(5)
    base = rng.random((1, 30, 1))
    values = np.clip(base + np.array([0.0, 0.02, 0.25, 0.3, 0.6])[:, None, None]
                     + 0.05 * rng.standard_normal((5, 30, 1)), 0, 2)
    cube = ScoreCube(tuple(f"runs/r{i}" for i in range(5)), ("t",) * 5, tuple(map(str, range(30))), ("m",), values)
    report = track_report(cube, run_labels(cube.runs, cube.runids), trials=400)
    assert list(report.ranking["label"]) == ["r4", "r3", "r2", "r1", "r0"]
    assert list(report.ranking["mean"]) == sorted(values[:, :, 0].mean(axis=1), reverse=True)
    p = report.p_values
    for group in report.groups:
        assert all(p.loc[a, b] >= report.alpha for a in group for b in group if a != b)
    for a in p.index:  # two runs sharing no group differ significantly
        for b in p.columns:
            if a != b and not any(a in g and b in g for g in report.groups):
                assert p.loc[a, b] < report.alpha


# -- the site ------------------------------------------------------------------------------------------------

def test_the_site_names_every_baseline_and_keeps_the_configuration(baseline_site):
    site, _ = baseline_site
    index = (site / "index.html").read_text()
    for label in BASELINES:
        assert f">{label}</a>" in index
    pages = sorted(p.name for p in (site / "runs").iterdir())
    assert len(pages) == 8
    qrels, runs = trec_2012()
    import hashlib

    for path in [qrels, *runs]:
        assert hashlib.sha256(path.read_bytes()).hexdigest() in index
    assert "ERR-IA@20, alpha-nDCG@20, P-IA@10" in index
    assert "http" not in without_namespaces(index)  # nothing fetched
    for page in (site / "runs").iterdir():
        text = page.read_text()
        assert "<svg" in text and 'role="img"' in text and "aria-label=" in text
        assert "http" not in without_namespaces(text)


def without_namespaces(text: str) -> str:
    """A page without its SVG's XML namespace names (URIs that name, and fetch nothing)."""
    return re.sub(r'xmlns(:xlink)?="http[^"]*"', "", text)


def test_same_inputs_same_bytes_and_scores_input(tmp_path):
    measures = "alpha-nDCG@10,ERR-IA@10"
    ok(run_cli(["report", "-q", "-B", "200", "-m", measures, "-o", tmp_path / "a", QRELS, RUNS]))
    ok(run_cli(["report", "-q", "-B", "200", "-m", measures, "-o", tmp_path / "b", QRELS, RUNS]))
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file():
            other = (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_text()
            # The configuration names the output directory in the command: the one difference.
            assert path.read_text().replace(str(tmp_path / "a"), "") == other.replace(str(tmp_path / "b"), ""), path
    (tmp_path / "s.jsonl").write_text(ok(run_cli(["-q", "-c", "-f", "json", "-m", measures, QRELS, RUNS])))
    ok(run_cli(["report", "-q", "-B", "200", "--scores", tmp_path / "s.jsonl", "-o", tmp_path / "c"]))
    assert (tmp_path / "c" / "per-topic.csv").read_bytes() == (tmp_path / "a" / "per-topic.csv").read_bytes()


def test_output_directory_rules(tmp_path):
    args = ["report", "-q", "-B", "100", "-m", "ERR-IA@10", QRELS, RUNS]
    site = tmp_path / "site"
    site.mkdir()
    (site / "old.txt").write_text("old")
    refused = run_cli([*args, "-o", site])
    assert refused.returncode == 2 and b"exists" in refused.stderr and b"--force" in refused.stderr
    ok(run_cli([*args, "-o", site, "--force"]))
    assert (site / "index.html").is_file() and not (site / "old.txt").exists()
    # An input's directory is never replaced, not even with --force.
    copy = tmp_path / "inputs"
    shutil.copytree(RUNS, copy / "runs")
    refused = run_cli(["report", "-q", "-m", "ERR-IA@10", "-o", copy, "--force", QRELS, copy / "runs"])
    assert refused.returncode == 2 and b"holds the input" in refused.stderr
    assert sorted(os.listdir(copy / "runs")) == sorted(os.listdir(RUNS))
    a_file = tmp_path / "file"
    a_file.write_text("x")
    refused = run_cli([*args, "-o", a_file])
    assert refused.returncode == 2 and b"not a directory" in refused.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 1.0 r\nnot a run line\n")
    refused = run_cli(["report", "-q", "-o", tmp_path / "new", QRELS, RUNS / "bm25.txt", bad])
    assert refused.returncode == 2 and b"bad.txt:2" in refused.stderr and b"Traceback" not in refused.stderr
    assert not (tmp_path / "new").exists()


def test_a_failure_leaves_no_half_written_site(tmp_path, monkeypatch):
    from divaleval.output import report_site

    cube_values = np.random.default_rng(0).random((3, 5, 1))
    cube = ScoreCube(("a", "b", "c"), ("a", "b", "c"), tuple("12345"), ("m",), cube_values)
    report = track_report(cube, ["a", "b", "c"], trials=50)
    original = report_site.run_page

    def failing(report, run, *rest):
        if run == 2:
            raise OSError(28, "No space left on device")
        return original(report, run, *rest)

    monkeypatch.setattr(report_site, "run_page", failing)
    with pytest.raises(report_site.OutputPathError, match="No space left"):
        report_site.write_site(report, str(tmp_path / "site"))
    assert os.listdir(tmp_path) == []
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "kept").write_text("the old site")
    with pytest.raises(report_site.OutputPathError):
        report_site.write_site(report, str(tmp_path / "site"), force=True)
    assert os.listdir(tmp_path) == ["site"] and os.listdir(tmp_path / "site") == ["kept"]


def test_without_matplotlib_the_pages_hold_the_tables(tmp_path):
    from divaleval.output.report_site import write_site

    cube = ScoreCube(("a", "b", "c"), ("a", "b", "c"), tuple("12345"), ("m", "n"),
                     np.random.default_rng(1).random((3, 5, 2)))
    write_site(track_report(cube, ["a", "b", "c"], trials=50), str(tmp_path / "site"), figures=False)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<svg" not in index and "pip install &#x27;divaleval[plot]&#x27;" in index
    assert "Kendall&#x27;s tau-b" in index and "<table" in index


def test_html_is_escaped(tmp_path):
    from divaleval.output.report_site import element, write_site

    assert element("td", "<b>&", title='"x"') == '<td title="&quot;x&quot;">&lt;b&gt;&amp;</td>'
    cube = ScoreCube(("<script>", "b&c"), ("<script>", "b&c"), ("1", "2", "3"), ("m<1>",),
                     np.arange(6.0).reshape(2, 3, 1))
    write_site(track_report(cube, run_labels(cube.runs, cube.runids), trials=20), str(tmp_path / "s"), figures=False)
    for page in (tmp_path / "s").rglob("*.html"):
        text = page.read_text()
        assert "<script>" not in text.replace("<script>addEventListener", "")


# -- in a real browser ---------------------------------------------------------------------------------------

class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value and tag != "svg":
                self.targets.append(value)


def chromium_driver(user_data: Path):
    """selenium driving Debian's chromium through chromium-driver, or a skip saying why it cannot run."""
    browser, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver_path:
        pytest.skip("headless Chromium is not installed: apt-get install chromium chromium-driver (.ci/run does)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e .[test])")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={user_data}", "--window-size=1280,1600"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    except Exception as exc:  # the browser cannot start here (no display libraries, a sandbox, ...)
        pytest.skip(f"headless Chromium cannot run here: {str(exc).splitlines()[0]}")


@pytest.mark.browser
def test_the_site_in_headless_chromium(baseline_site, tmp_path):
    site, _ = baseline_site
    driver = chromium_driver(tmp_path / "profile")
    try:
        pages = [site / "index.html", *sorted((site / "runs").glob("*.html"))]
        reached: set[Path] = set()
        for page in pages:
            driver.get(page.resolve().as_uri())
            assert driver.title, page
            errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
            assert not errors, (page, errors)
            broken_images = driver.execute_script(
                "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
                ".map(i => i.src)")
            assert not broken_images, (page, broken_images)
            assert driver.execute_script("return document.querySelectorAll('svg').length") >= 1, page
            css = driver.execute_script("return getComputedStyle(document.body).maxWidth")
            assert css != "none", "style.css was not applied"
            parser = Links()
            parser.feed(page.read_text())
            for target in parser.targets:
                parsed = urlparse(target)
                assert parsed.scheme == "", (page, target)  # no network, nothing fetched
                if parsed.path:
                    linked = (page.parent / unquote(parsed.path)).resolve()
                    assert linked.is_file(), (page, target)
                    reached.add(linked)
                if parsed.fragment and not parsed.path:
                    assert driver.find_elements("id", parsed.fragment), (page, target)
        assert {p.resolve() for p in pages[1:]} <= reached  # every run's page is linked
        driver.get((site / "index.html").resolve().as_uri())
        shot = tmp_path / "index.png"
        assert driver.save_screenshot(str(shot))
    finally:
        driver.quit()
    from PIL import Image

    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the screenshot is blank"
