"""Figures as papers show them: ASL curves, a heat map of tau between measures, per-topic differences.

matplotlib is an optional extra (``pip install divaleval[plot]``), imported only
when a figure is drawn, through its object-oriented API (no pyplot, no global
backend change). The format follows the file's suffix (.png, .pdf, .svg: output/paths.py);
dates are left out of the files and SVG ids salted, so the same data draw the same bytes.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import UsageError
from .atomic import atomic_output
from .paths import FIGURE, INSTALL_HINT, cannot_write, check_output

if TYPE_CHECKING:
    import pandas as pd

METHOD_TITLES = {"tukey": "randomised Tukey HSD", "bootstrap": "paired bootstrap (studentised)"}
_NO_DATES = {".pdf": {"CreationDate": None}, ".svg": {"Date": None}, ".png": {}}


def check_plot_path(path: str, option: str = "", inputs: tuple[str, ...] = ()) -> None:
    """Fail early (a :class:`UsageError`) when a figure cannot be written to ``path`` (see output/paths.py)."""
    check_output(path, option, kind=FIGURE, inputs=inputs)


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return Figure


def _save(figure, path: str) -> None:
    import matplotlib

    suffix = os.path.splitext(path)[1].lower()
    # SVG ids are random unless salted: a fixed salt keeps the file's bytes the same for the same data.
    try:
        with matplotlib.rc_context({"svg.hashsalt": "divaleval"}), atomic_output(path, binary=True) as handle:
            figure.savefig(handle, format=suffix.lstrip(".") or None, metadata=_NO_DATES.get(suffix, {}), dpi=90)
    except OSError as exc:  # checked before the work, failed since (a full disk, a directory removed)
        raise cannot_write(path, exc) from None


def _styles(count: int):
    """(colour, line style) of the i-th of ``count`` curves: 10 colours, then again dashed, dotted, ..."""
    from matplotlib import colormaps

    colours = colormaps["tab10"].colors
    dashes = ["-", "--", ":", "-."]
    return [(colours[i % 10], dashes[(i // 10) % len(dashes)]) for i in range(count)]


def plot_asl_curves(curves: pd.DataFrame, path: str, alpha: float = 0.05, title: str | None = None) -> None:
    """One panel per method, one curve per measure: the pairs' p-values sorted (ASL against pair rank)."""
    check_plot_path(path)
    Figure = _figure_class()
    methods = list(dict.fromkeys(curves["method"]))
    measures = list(dict.fromkeys(curves["measure"]))
    figure = Figure(figsize=(5.2 * len(methods) + 2.2, 4.4), layout="constrained")
    axes = figure.subplots(1, len(methods), squeeze=False, sharey=True)[0]
    styles = dict(zip(measures, _styles(len(measures))))
    for ax, method in zip(axes, methods):
        block = curves[curves["method"] == method]
        for measure in measures:
            curve = block[block["measure"] == measure]
            colour, dash = styles[measure]
            ax.plot(curve["rank"], curve["p"], dash, color=colour, linewidth=1.2, label=measure)
        ax.axhline(alpha, color="grey", linewidth=0.8, linestyle="--")
        ax.set_title(METHOD_TITLES.get(method, method), fontsize=10)
        ax.set_xlabel("run pairs sorted by ASL")
        pairs = int(block["rank"].max()) if len(block) else 1
        ax.set_xlim(*((1, pairs) if pairs > 1 else (0.5, 1.5)))  # one pair: a width of its own (matplotlib warns)
        ax.set_ylim(0, 1)
        ax.grid(True, linewidth=0.3)
    axes[0].set_ylabel(f"achieved significance level (alpha = {alpha:g} dashed)")
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper", fontsize=7,
                  ncols=1 if len(measures) <= 24 else 2)
    if title:
        figure.suptitle(title, fontsize=11)
    _save(figure, path)


def plot_tau_heatmap(matrix: pd.DataFrame, path: str, title: str | None = None) -> None:
    """A heat map of Kendall's tau between measures (a square frame, measures as index and columns)."""
    check_plot_path(path)
    _save(tau_heatmap_figure(matrix, title), path)


def tau_heatmap_figure(matrix: pd.DataFrame, title: str | None = None):
    """The figure of :func:`plot_tau_heatmap` (also drawn inline by the organiser's report)."""
    Figure = _figure_class()
    size = len(matrix)
    side = max(4.0, 0.32 * size + 2.5)
    figure = Figure(figsize=(side + 1.2, side), layout="constrained")
    ax = figure.subplots()
    image = ax.imshow(matrix.to_numpy(), cmap="RdBu_r", vmin=-1, vmax=1)
    ax.set_xticks(range(size), list(matrix.columns), rotation=90, fontsize=7)
    ax.set_yticks(range(size), list(matrix.index), fontsize=7)
    if size <= 16:
        for i in range(size):
            for j in range(size):
                value = matrix.iat[i, j]
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=6,
                        color="white" if abs(value) > 0.6 else "black")
    figure.colorbar(image, ax=ax, shrink=0.8, label="Kendall's tau-b")
    if title:
        ax.set_title(title, fontsize=11)
    return figure


def plot_topic_differences(differences: pd.DataFrame, path: str, measure: str) -> None:
    """Per compared pair, a panel of per-topic differences (a - b), sorted, with their mean."""
    check_plot_path(path)
    Figure = _figure_class()
    pairs = list(dict.fromkeys(zip(differences["run_a"], differences["run_b"])))
    columns = min(3, len(pairs))
    rows = -(-len(pairs) // columns)
    figure = Figure(figsize=(4.6 * columns, 3.2 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    for ax in axes.ravel()[len(pairs):]:
        ax.set_visible(False)
    for ax, (run_a, run_b) in zip(axes.ravel(), pairs):
        block = differences[(differences["run_a"] == run_a) & (differences["run_b"] == run_b)]
        values = block["diff"].sort_values(ascending=False, kind="stable").to_numpy()
        ax.bar(range(1, len(values) + 1), values, width=1.0,
               color=["tab:blue" if v >= 0 else "tab:red" for v in values])
        ax.axhline(values.mean() if len(values) else 0.0, color="black", linewidth=0.8, linestyle="--")
        ax.axhline(0.0, color="grey", linewidth=0.5)
        ax.set_title(f"{os.path.basename(run_a)} - {os.path.basename(run_b)}", fontsize=9)
        ax.set_xlabel("topics, sorted by difference", fontsize=8)
        ax.set_ylabel(f"difference in {measure}", fontsize=8)
    _save(figure, path)
