"""The organiser's report as a static site (``divaleval report -o DIR``): pages that work offline, from file://.

What is written (from a :class:`divaleval.report.TrackReport`):

* ``index.html``: the runs ranked by one measure (means, simultaneous
  intervals, the groups of runs the Tukey HSD test does not tell apart), the
  matrix of the test's p-values, every run's mean of every measure, Kendall's
  tau between the measures, and the configuration that produced the report;
* ``runs/LABEL.html``, one page per run: its per-topic scores against each
  topic's best, median and worst over all runs, the topics where it gains or
  loses most against the median, and its table of measures;
* ``per-topic.csv`` and ``per-topic.json`` (a list of the same records): per
  topic and measure, best, median and worst over all runs, and the best run;
* ``style.css``, shared by the pages (screen and print).

Nothing is fetched when the pages are viewed: no script or font from a network,
figures inline as SVG. Every figure has its numbers in a table beside it and a
text alternative (``role="img"`` with ``aria-label``). The figures are drawn by
matplotlib (``divaleval[plot]``); without it the pages hold the tables and say
that figures need the extra. Long lists collapse (``<details>``) beyond
:data:`SHOWN_RUNS` runs, and open when the page is printed.

HTML is built by :func:`element`, which escapes every text and attribute it is
given; only what it built itself (:class:`Markup`) goes in as it is.

The site is written whole or not at all (:func:`write_site`): into a temporary
folder beside DIR, renamed to DIR once complete.
"""
from __future__ import annotations

import contextlib
import html
import io
import json
import math
import os
import re
import secrets
import shutil
from typing import TYPE_CHECKING, Callable, Iterable

from .paths import FOLDER, INSTALL_HINT, OutputPathError, cannot_write, check_output

if TYPE_CHECKING:
    import pandas as pd

    from ..report import TrackReport

SHOWN_RUNS = 30      # beyond this many runs, long lists and the p-value matrix are collapsed
WIDE_TOPICS = 60    # beyond this many topics, a run's figure takes the page's width, its table below
EXTREME_TOPICS = 5   # topics of most gain and most loss against the median on a run's page
SUMMARY_CSV, SUMMARY_JSON, STYLE = "per-topic.csv", "per-topic.json", "style.css"


class Markup(str):
    """HTML built here: inserted as it is (every other string is escaped)."""


def escape(value) -> Markup:
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


def element(name: str, *children, **attributes) -> Markup:
    """``<name attributes>children</name>``, text escaped; attribute ``class_`` is ``class``, ``None`` is left
    out, ``True`` written bare."""
    attrs = []
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        key = key.rstrip("_").replace("_", "-")
        attrs.append(f" {key}" if value is True else f' {key}="{escape(value)}"')
    inner = "".join(escape(child) for child in children if child is not None)
    return Markup(f"<{name}{''.join(attrs)}>{inner}</{name}>")


def fragment(*parts) -> Markup:
    return Markup("".join(escape(part) for part in parts if part is not None))


def number(value: float, digits: int = 4) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def table(headers: list, rows: Iterable[list], *, numeric_from: int = 1, caption: str | None = None,
          class_: str | None = None) -> Markup:
    """A table: the first ``numeric_from`` columns text, the others numbers (right-aligned)."""
    head = element("tr", *(element("th", h, scope="col") for h in headers))
    body = [element("tr", *(element("td", cell, class_="num" if j >= numeric_from else None)
                             for j, cell in enumerate(row))) for row in rows]
    return element("table", element("caption", caption) if caption else None, element("thead", head),
                   element("tbody", *body), class_=class_)


def collapsed(summary: str, content: Markup, open_: bool = False) -> Markup:
    return element("details", element("summary", summary), content, open=open_)


def page(title: str, body: Markup, root: str = "") -> str:
    """A whole page; ``root`` is the way back to the site's top ("" or "../")."""
    script = Markup("<script>addEventListener('beforeprint',function(){document.querySelectorAll('details')"
                    ".forEach(function(d){d.open=true})})</script>")
    head = fragment(Markup('<meta charset="utf-8">'),
                    Markup('<meta name="viewport" content="width=device-width, initial-scale=1">'),
                    element("title", title), Markup(f'<link rel="stylesheet" href="{escape(root + STYLE)}">'),
                    script)
    return "<!DOCTYPE html>\n" + element("html", element("head", head), element("body", body), lang="en") + "\n"


CSS = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 78rem; padding: 0 1.2rem 2rem; color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.5rem; margin: 1rem 0 .3rem; } h2 { font-size: 1.2rem; margin-top: 2rem;
     border-bottom: 1px solid #ccc; } h3 { font-size: 1rem; }
nav { margin: .5rem 0; font-size: .9rem; } nav a { margin-right: 1rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { padding: .15rem .5rem; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
.pair { display: grid; grid-template-columns: minmax(20rem, 1fr) auto; gap: 1.5rem; align-items: start; }
.pair .numbers { max-height: 32rem; overflow: auto; } .pair.wide { grid-template-columns: 1fr; }
figure { margin: .5rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #444; }
.note { background: #fff7e0; border: 1px solid #e8d18a; padding: .4rem .7rem; font-size: .9rem; }
.matrix td { padding: 0; width: 1.4rem; height: 1.4rem; text-align: center; font-size: .7rem; border: 1px solid #fff; }
.matrix th { font-size: .7rem; white-space: nowrap; }
.sig { background: #2c7fb8; color: #fff; } .same { background: #e7eef4; } .self { background: #bbb; }
.config td:first-child { white-space: nowrap; } code { font-size: .85rem; word-break: break-all; }
td a { white-space: nowrap; } .wide { overflow-x: auto; max-width: 100%; }
@media (max-width: 60rem) { .pair { grid-template-columns: 1fr; } }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; } nav { display: none; }
  .pair { grid-template-columns: 1fr; } .pair .numbers { max-height: none; overflow: visible; }
  figure, table { break-inside: avoid; } a { color: inherit; text-decoration: none; }
}
"""


# -- figures (matplotlib, inline SVG) ---------------------------------------------------------------------------

def plotting_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _svg(figure) -> Markup:
    """A matplotlib figure as inline SVG (text as text; ids salted, no date: the same data, the same bytes)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "divaleval", "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text[text.index("<svg"):], flags=re.S)  # RDF, no use inline
    return Markup(text)


def figure_block(svg: Markup | None, alt: str, caption: str, numbers: Markup, wide: bool = False) -> Markup:
    """A figure (or, without matplotlib, a note that figures need it) with its numbers in a table beside it
    (under it if ``wide``: a figure that needs the page's width)."""
    if svg is None:
        drawing = element("p", f"(A figure goes here: {INSTALL_HINT}.) {alt}", class_="note")
    else:
        drawing = element("div", svg, role="img", aria_label=alt)
    return element("div", element("figure", drawing, element("figcaption", caption)),
                   element("div", numbers, class_="numbers"), class_="pair wide" if wide else "pair")


def means_figure(ranking: pd.DataFrame, measure: str, level: str) -> Markup:
    from matplotlib.figure import Figure

    count = len(ranking)
    figure = Figure(figsize=(6.4, max(2.0, 0.22 * count + 0.9)), layout="constrained")
    ax = figure.subplots()
    y = list(range(count))
    means = ranking["mean"].to_numpy()
    errors = [means - ranking["ci_low"].to_numpy(), ranking["ci_high"].to_numpy() - means]
    ax.errorbar(means, y, xerr=errors, fmt="o", color="#2c7fb8", ecolor="#7a9cb8", markersize=3.5, capsize=2)
    ax.set_yticks(y, list(ranking["label"]), fontsize=7 if count > 30 else 8)
    ax.set_ylim(count - 0.5, -0.5)  # the best on top, no margin of empty rows
    ax.set_xlabel(f"mean {measure} ({level} simultaneous intervals)")
    ax.grid(True, axis="x", linewidth=0.3)
    return _svg(figure)


def tau_figure(tau: pd.DataFrame) -> Markup:
    from .plots import tau_heatmap_figure

    return _svg(tau_heatmap_figure(tau))


class TopicsFigure:
    """The bars of a run's per-topic scores against each topic's best, median and worst, drawn for every run on
    one figure whose data alone change (the topics, the scale and the markers of best, median and worst are the
    same on every run's page): a hundred pages cost a hundred savefig calls, not a hundred layouts."""

    def __init__(self, summary: pd.DataFrame, measure: str) -> None:
        from matplotlib.figure import Figure

        block = summary[summary["measure"] == measure]
        topics = list(block["topic"])
        count = len(topics)
        x = list(range(count))
        self.figure = Figure(figsize=(min(11.0, max(6.4, 0.06 * count + 4)), 3.4))
        self.figure.subplots_adjust(left=0.08, right=0.99, bottom=0.2, top=0.88)
        ax = self.figure.subplots()
        low = min(0.0, float(block["worst"].min()))
        high = float(block["best"].max()) or 1.0
        self.bars = ax.vlines(x, 0.0, [0.0] * count, colors="#2c7fb8", linewidth=max(1.0, 300.0 / max(count, 1)),
                              label="this run")
        ax.plot(x, block["best"], linestyle="none", marker="v", markersize=3.5, color="#1a7f37", label="best")
        ax.plot(x, block["median"], linestyle="none", marker="_", markersize=7, mew=1.6, color="#111",
                label="median")
        ax.plot(x, block["worst"], linestyle="none", marker="^", markersize=3.5, color="#b42318", label="worst")
        step = max(1, math.ceil(count / 50))
        ax.set_xticks(x[::step], topics[::step], rotation=90, fontsize=6)
        ax.set_xlim(-0.8, count - 0.2)
        ax.set_ylim(low, high + 0.05 * (high - low))
        ax.set_xlabel("topic", fontsize=8)
        ax.set_ylabel(measure, fontsize=8)
        ax.legend(fontsize=7, ncols=4, loc="lower right", bbox_to_anchor=(1, 1.0), frameon=False)
        ax.grid(True, axis="y", linewidth=0.3)
        self.x = x

    def draw(self, scores) -> Markup:
        self.bars.set_segments([[(x, 0.0), (x, float(v))] for x, v in zip(self.x, scores)])
        return _svg(self.figure)


# -- pages -------------------------------------------------------------------------------------------------------

def run_file_names(labels: Iterable[str]) -> list[str]:
    """A file name per run (``runs/NAME.html``) from its label: safe characters only, unique."""
    names, taken = [], set()
    for label in labels:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._") or "run"
        name, count = base, 1
        while name.lower() in taken:
            count += 1
            name = f"{base}-{count}"
        taken.add(name.lower())
        names.append(f"runs/{name}.html")
    return names


def _level(report: TrackReport) -> str:
    return f"{100 * (1 - report.alpha):g}%"


def _run_link(label: str, key: str, href: str) -> Markup:
    return element("a", label, href=href, title=key)


def _ranking_section(report: TrackReport, hrefs: dict[str, str], figures: bool) -> Markup:
    ranking = report.ranking
    rows = [[_run_link(r.label, r.run, hrefs[r.label]), r.rank, number(r.mean), number(r.ci_low), number(r.ci_high),
             r.groups] for r in ranking.itertuples(index=False)]
    headers = ["run", "rank", f"mean {report.measure}", "low", "high", "groups"]
    shown = table(headers, rows[:SHOWN_RUNS], caption=f"Runs by mean {report.measure}")
    if len(rows) > SHOWN_RUNS:
        shown = fragment(shown, collapsed(f"The other {len(rows) - SHOWN_RUNS} runs",
                                          table(headers, rows[SHOWN_RUNS:])))
    alt = (f"Mean {report.measure} of {len(ranking)} runs, best first, each with its {_level(report)} simultaneous "
           f"interval; the best is {ranking['label'].iloc[0]} at {number(ranking['mean'].iloc[0])}, the last "
           f"{ranking['label'].iloc[-1]} at {number(ranking['mean'].iloc[-1])}.")
    svg = means_figure(ranking, report.measure, _level(report)) if figures else None
    groups = element("ul", *(element("li", element("strong", letter), ": ", ", ".join(members))
                             for letter, members in zip(_letters(report), report.groups)))
    text = element("p", f"Intervals: each run's mean over {len(report.cube.topics)} topics with a "
                        f"{_level(report)} t interval, Bonferroni-corrected over the {len(ranking)} runs, so that "
                        "all hold together; they show where a mean lies, not which runs differ (see the groups). "
                        f"Groups: runs sharing a letter are not significantly different at alpha = "
                        f"{report.alpha:g} by the randomised Tukey HSD test ({report.trials} trials, seed "
                        f"{report.seed}), which compares every pair of runs with each topic as a block.")
    return element("section", element("h2", f"Runs ranked by {report.measure}"), text,
                   figure_block(svg, alt, f"Mean {report.measure} with {_level(report)} simultaneous intervals",
                                shown),
                   element("h3", "Groups of runs not significantly different"), groups, id="ranking")


def _letters(report: TrackReport) -> list[str]:
    from ..report.track import group_letters

    return group_letters(len(report.groups))


def _matrix_section(report: TrackReport) -> Markup:
    p = report.p_values
    labels = list(p.index)
    index = {label: i + 1 for i, label in enumerate(labels)}
    head = element("tr", element("th", ""), *(element("th", str(index[label]), scope="col", title=label)
                                              for label in labels))
    rows = []
    for i, a in enumerate(labels):
        cells = [element("th", f"{i + 1} {a}", scope="row")]
        for j, b in enumerate(labels):
            value = p.iat[i, j]
            if i == j:
                cells.append(element("td", "", class_="self"))
                continue
            significant = value < report.alpha
            cells.append(element("td", "*" if significant else "", class_="sig" if significant else "same",
                                 title=f"{a} vs {b}: p = {number(value)}"))
        rows.append(element("tr", *cells))
    matrix = element("table", element("thead", head), element("tbody", *rows), class_="matrix")
    significant = int((p.to_numpy() < report.alpha).sum() // 2)
    pairs = len(labels) * (len(labels) - 1) // 2
    text = element("p", f"{significant} of {pairs} pairs of runs are significantly different under "
                        f"{report.measure} (p < {report.alpha:g}, randomised Tukey HSD; marked *). Runs in ranking "
                        "order; hover over a cell for its p-value. The p-values: ",
                   element("a", "in the table below", href="#p-values"), ".")
    numbers = table(["run A", "run B", "p"], ([a, b, number(p.iat[i, j])] for i, a in enumerate(labels)
                                              for j, b in enumerate(labels) if j > i), numeric_from=2)
    return element("section", element("h2", "Significance"), text,
                   collapsed(f"The matrix of {len(labels)} runs", matrix, open_=len(labels) <= SHOWN_RUNS),
                   element("div", collapsed(f"Every pair's p-value ({pairs} pairs)", numbers), id="p-values"),
                   id="significance")


def _measures_section(report: TrackReport, hrefs: dict[str, str], figures: bool) -> Markup:
    means = report.means
    keys = dict(zip(report.labels, report.cube.runs))
    order = list(report.ranking["label"])
    rows = [[_run_link(label, keys[label], hrefs[label]), *(number(v) for v in means.loc[label])] for label in order]
    headers = ["run", *means.columns]
    content = element("div", table(headers, rows, caption="Mean of every measure (runs in ranking order)"),
                      class_="wide")
    parts = [element("h2", "Every measure"),
             collapsed(f"Means of {len(rows)} runs", content, open_=len(rows) <= SHOWN_RUNS)]
    if report.tau is not None:
        tau = report.tau
        names = list(tau.index)
        numbers = table(["", *map(str, range(1, len(names) + 1))],
                        ([f"{i + 1} {name}", *(number(tau.iat[i, j], 3) for j in range(len(names)))]
                         for i, name in enumerate(names)), caption="Kendall's tau-b")
        pairs = [(tau.iat[i, j], names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
        low = min(pairs)
        alt = (f"Heat map of Kendall's tau-b between the system rankings of {len(names)} measures; the least alike "
               f"are {low[1]} and {low[2]} (tau {number(low[0], 3)}).")
        svg = tau_figure(tau) if figures else None
        parts += [element("h3", "How alike the measures rank the runs"),
                  figure_block(svg, alt, "Kendall's tau-b between the measures' rankings of the runs", numbers)]
    return element("section", *parts, id="measures")


def _config_section(report: TrackReport) -> Markup:
    config = report.config
    rows = [[key, element("code", value)] for key, value in config.get("settings", [])]
    inputs = [[role, element("code", path), element("code", digest or "(not a file)")]
              for role, path, digest in config.get("inputs", [])]
    parts = [element("h2", "Configuration"),
             element("p", "What produced this report, so that it can be made again."),
             table(["setting", "value"], rows, numeric_from=2, class_="config")]
    if config.get("command"):
        parts.append(element("p", "Command: ", element("code", config["command"])))
    if inputs:
        parts.append(table(["input", "file", "sha256"], inputs, numeric_from=3, class_="config"))
    return element("section", *parts, id="configuration")


def _legend_section(report: TrackReport) -> Markup:
    rows = [[label, element("code", key), runid] for label, key, runid in
            zip(report.labels, report.cube.runs, report.cube.runids)]
    content = table(["label", "run", "runtag"], rows, numeric_from=3)
    return element("section", element("h2", "Runs"),
                   collapsed(f"Labels and files of the {len(rows)} runs", content, open_=len(rows) <= SHOWN_RUNS),
                   id="runs")


def index_page(report: TrackReport, hrefs: dict[str, str], figures: bool) -> str:
    cube = report.cube
    nav = element("nav", *(element("a", text, href=href) for text, href in [
        ("Ranking", "#ranking"), ("Significance", "#significance"), ("Measures", "#measures"),
        ("Configuration", "#configuration"), ("Runs", "#runs"), (SUMMARY_CSV, SUMMARY_CSV),
        (SUMMARY_JSON, SUMMARY_JSON)]))
    intro = element("p", f"{len(cube.runs)} runs, {len(cube.topics)} topics, {len(cube.measures)} measures; "
                         f"ranked by {report.measure}. Per topic and measure, the best, median and worst score over "
                         "all runs: ", element("a", SUMMARY_CSV, href=SUMMARY_CSV), " (and ",
                    element("a", SUMMARY_JSON, href=SUMMARY_JSON), ").")
    note = None if figures else element("p", f"Figures are left out: {INSTALL_HINT}.", class_="note")
    body = fragment(element("header", element("h1", "Evaluation report"), intro, nav), note,
                    _ranking_section(report, hrefs, figures), _matrix_section(report),
                    _measures_section(report, hrefs, figures), _config_section(report), _legend_section(report))
    return page("Evaluation report", body)


def run_page(report: TrackReport, run: int, hrefs: dict[str, str], drawing: TopicsFigure | None) -> str:
    from ..report import run_topic_view, topic_extremes

    cube, label = report.cube, report.labels[run]
    ranking = report.ranking
    position = int((ranking["label"] == label).to_numpy().argmax())
    row = ranking.iloc[position]
    previous = ranking["label"].iloc[position - 1] if position > 0 else None
    following = ranking["label"].iloc[position + 1] if position + 1 < len(ranking) else None
    nav = element("nav", element("a", "Report", href="../index.html"),
                  element("a", f"previous: {previous}", href="../" + hrefs[previous]) if previous else None,
                  element("a", f"next: {following}", href="../" + hrefs[following]) if following else None)
    facts = element("p", f"Run file {cube.runs[run]}, runtag {cube.runids[run]}. Rank {row['rank']} of "
                         f"{len(ranking)} by {report.measure}: mean {number(row['mean'])} "
                         f"({_level(report)} simultaneous interval {number(row['ci_low'])} to "
                         f"{number(row['ci_high'])}); groups {row['groups']}.")
    view = run_topic_view(cube, report.summary, run, report.measure)
    numbers = table(["topic", label, "best", "median", "worst", "vs median"],
                    ([t.topic, number(t.score), number(t.best), number(t.median), number(t.worst),
                      f"{t.vs_median:+.4f}"] for t in view.itertuples(index=False)),
                    caption=f"{report.measure} per topic")
    above = int((view["vs_median"] > 0).sum())
    below = int((view["vs_median"] < 0).sum())
    alt = (f"Bars: {label}'s {report.measure} on each of {len(view)} topics, with markers for the topic's best, "
           f"median and worst over all {len(cube.runs)} runs; above the median on {above} topics, below on {below}.")
    svg = drawing.draw(view["score"]) if drawing is not None else None
    gains, losses = topic_extremes(view, EXTREME_TOPICS)
    extremes_headers = ["topic", label, "median", "vs median"]

    def extremes(frame: pd.DataFrame, title: str) -> Markup:
        if frame.empty:
            return element("p", f"{title}: none.")
        return table(extremes_headers, ([t.topic, number(t.score), number(t.median), f"{t.vs_median:+.4f}"]
                                        for t in frame.itertuples(index=False)), caption=title)

    means = report.means
    measure_rows = []
    for measure in cube.measures:
        column = means[measure]
        value = column.iloc[run]
        rank = int((column > value).sum()) + 1
        measure_rows.append([measure, number(value), f"{rank} of {len(column)}", number(column.max()),
                             number(column.median()), number(column.min())])
    measures = table(["measure", "mean", "rank", "best mean", "median mean", "worst mean"], measure_rows,
                     caption=f"{label}: every measure, against the means of all runs")
    body = fragment(
        element("header", element("h1", f"Run {label}"), facts, nav),
        element("section", element("h2", f"{report.measure} per topic"),
                figure_block(svg, alt, f"{label} against each topic's best (v), median (-) and worst (^)", numbers,
                             wide=len(view) > WIDE_TOPICS)),
        element("section", element("h2", "Where it gains and loses most against the median"),
                extremes(gains, f"Gains over the median ({above} topics above it)"),
                extremes(losses, f"Losses to the median ({below} topics below it)")),
        element("section", element("h2", "Every measure"), measures))
    return page(f"Run {label}", body, root="../")


# -- files -------------------------------------------------------------------------------------------------------

def summary_json(summary: pd.DataFrame) -> str:
    """The per-topic summary as a JSON list of records (NaN as null)."""
    records = [{key: (None if isinstance(value, float) and value != value else
                      value.item() if hasattr(value, "item") else value) for key, value in record.items()}
               for record in summary.to_dict(orient="records")]
    return json.dumps(records, ensure_ascii=False, indent=0) + "\n"


def site_files(report: TrackReport, figures: bool | None = None,
               progress: Callable[[int], None] | None = None) -> Iterable[tuple[str, str]]:
    """(relative path, text) of every file of the site, page by page (``progress`` told of each)."""
    from .tables import csv_text

    figures = plotting_available() if figures is None else figures
    names = run_file_names(report.labels)
    hrefs = dict(zip(report.labels, names))
    yield STYLE, CSS
    yield SUMMARY_CSV, csv_text(report.summary)
    yield SUMMARY_JSON, summary_json(report.summary)
    yield "index.html", index_page(report, hrefs, figures)
    if progress:
        progress(1)
    drawing = TopicsFigure(report.summary, report.measure) if figures else None
    for run in range(len(report.labels)):
        yield names[run], run_page(report, run, hrefs, drawing)
        if progress:
            progress(1)


def check_site_directory(directory: str, inputs: Iterable[str] = (), force: bool = False) -> None:
    """Refuse (:class:`OutputPathError`), before any work, a site directory that exists (unless ``force``), is
    not a directory, holds or is an input (never replaced, even with ``force``), or cannot be made."""
    if not directory:
        raise OutputPathError("-o: an empty path")
    target = os.path.realpath(directory)
    if os.path.lexists(directory):
        if not os.path.isdir(directory):
            raise OutputPathError(f"-o {directory}: not a directory (the site is a directory of pages)")
        if not force:
            raise OutputPathError(f"-o {directory} exists: choose another directory, or --force to replace it")
    for item in inputs:
        if not item or item == "-":
            continue
        real = os.path.realpath(item)
        if real == target or real.startswith(target.rstrip(os.sep) + os.sep):
            raise OutputPathError(f"-o {directory} holds the input {item}: it will not be replaced")
    check_output(os.path.dirname(target), "-o", kind=FOLDER)


def write_site(report: TrackReport, directory: str, *, force: bool = False, figures: bool | None = None,
               progress: Callable[[int], None] | None = None) -> None:
    """Write the site into ``directory``, whole or not at all: built in a temporary folder beside it, renamed
    into place once complete (an existing ``directory`` replaced only with ``force``, after the new site is
    complete)."""
    target = os.path.abspath(directory)
    parent = os.path.dirname(target)
    if os.path.lexists(target) and not force:
        raise OutputPathError(f"-o {directory} exists: choose another directory, or --force to replace it")
    temporary = None
    try:
        os.makedirs(parent, exist_ok=True)
        temporary = os.path.join(parent, f".{os.path.basename(target)}.divaleval-{secrets.token_hex(6)}.partial")
        os.mkdir(temporary)
        os.mkdir(os.path.join(temporary, "runs"))
        for name, text in site_files(report, figures, progress):
            with open(os.path.join(temporary, name), "w", encoding="utf-8", errors="surrogateescape",
                      newline="\n") as handle:
                handle.write(text)
        if os.path.lexists(target):  # --force: the old site goes only once the new one is complete
            old = temporary + ".old"
            os.rename(target, old)
            try:
                os.rename(temporary, target)
            except OSError:
                os.rename(old, target)  # the old site back in its place
                raise
            temporary = None
            if os.path.isdir(old) and not os.path.islink(old):
                shutil.rmtree(old)
            else:
                os.unlink(old)
        else:
            os.rename(temporary, target)
            temporary = None
    except OSError as exc:
        raise cannot_write(directory, exc, "-o") from None
    finally:  # an error or Ctrl-C: nothing half written is left
        if temporary is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(temporary)
