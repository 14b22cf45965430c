"""What the reports of comparisons and meta-evaluation share: aligned text tables, JSON lines, CSV, and
numbers as those tables print them (p-values, fixed decimals with ``-`` for undefined)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterator

from tabulate import tabulate

if TYPE_CHECKING:
    import pandas as pd

REPORT_FORMATS = ("table", "csv", "json")


def text_table(rows: list[list], headers: list[str], names: int = 1) -> str:
    """An aligned table: the first ``names`` columns (names) to the left, numbers to the right."""
    return tabulate(rows, headers=headers, disable_numparse=True,
                    colalign=["left"] * names + ["right"] * (len(headers) - names))


def json_records(frame: pd.DataFrame, **extra) -> Iterator[str]:
    """One JSON object per row of a frame (NaN as null, numpy numbers as Python's), ``extra`` fields first."""
    for record in frame.to_dict(orient="records"):
        yield json.dumps({**extra, **{key: _plain(value) for key, value in record.items()}}, ensure_ascii=False)


def json_lines(frame: pd.DataFrame, **extra) -> str:
    """:func:`json_records` as text, each record a line."""
    return "".join(line + "\n" for line in json_records(frame, **extra))


def csv_text(frame: pd.DataFrame, index: bool = False) -> str:
    """A frame as CSV (``\\n`` line ends), with its index as the first column if ``index``."""
    return frame.to_csv(index=index, lineterminator="\n")


def _plain(value):
    if isinstance(value, float) and value != value:
        return None
    return value.item() if hasattr(value, "item") else value


def format_p(value: float, trials: int | None = None) -> str:
    """A p-value for a table: 4 decimals; 0 of a randomised test as ``<1/B``; tiny ones as ``<0.0001``."""
    if value != value:
        return "nan"
    if trials is not None and value == 0:
        return f"<{1 / trials:.4g}"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def run_names(runs, runids) -> tuple[dict[str, str], str]:
    """Each run's short label by its key (labels.py), and the legend of the labels that are not the keys
    ("" if none): what the text tables print for runs."""
    from ..labels import legend, run_labels

    labels = run_labels(runs, runids)
    pairs = legend(runs, labels)
    text = "\n\nRuns\n" + text_table([list(pair) for pair in pairs], ["run", "file"], names=2) if pairs else ""
    return dict(zip(runs, labels)), text


def fixed(value: float, digits: int = 3) -> str:
    """``digits`` decimals, or ``-`` for an undefined value."""
    return "-" if value != value else f"{value:.{digits}f}"
