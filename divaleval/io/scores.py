"""Per-topic scores read back from divaleval's own output, so that nothing is scored twice.

Two layouts, told apart by the first character of the file:

* JSON lines (``divaleval -f json``): one object per (run, topic) with ``run``
  (the run's source; optional), ``runid``, ``topic`` and one number per measure;
* ndeval's CSV (``divaleval`` by default, and ndeval itself): a header
  ``runid,topic,MEASURE,...`` then one row per (run, topic). A run's rows end
  with its ``amean`` row, so two runs with one runtag stay two runs (the
  second is keyed ``RUNTAG#2``, as runs given twice are).

``amean`` rows (means) are skipped: means are recomputed from the topics. An
undefined value (ndeval's ``-nan``) is read as 0, as divaleval scores it, with a
warning naming the line. Anything else that is not a number is an error naming
its line.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ..errors import InputError, WarningSink, warn_to_stderr
from .source import InputFile, read_input

MEAN_TOPIC = "amean"
KEY_FIELDS = ("run", "runid", "topic")


@dataclass
class ScoreTable:
    """Per-topic scores of runs under measures, one row per (run, topic), in file order."""

    name: str                       # the file, as messages name it
    measures: list[str]             # column names
    runs: list[str] = field(default_factory=list)     # run keys, in order of appearance
    runids: list[str] = field(default_factory=list)   # their runtags
    run: list[int] = field(default_factory=list)      # per row: index into runs
    topic: list[str] = field(default_factory=list)    # per row
    line: list[int] = field(default_factory=list)     # per row: its line in the file
    values: np.ndarray | None = None                  # (rows, measures)

    def __len__(self) -> int:
        return len(self.line)


class _Builder:
    def __init__(self, source: InputFile, measures: list[str], warn: WarningSink) -> None:
        self.table = ScoreTable(source.name, measures)
        self.rows: list[list[float]] = []
        self.seen: dict[tuple[int, str], int] = {}
        self.key_count: dict[str, int] = {}
        self.warn = warn

    def new_run(self, key: str, runid: str) -> int:
        count = self.key_count[key] = self.key_count.get(key, 0) + 1
        self.table.runs.append(key if count == 1 else f"{key}#{count}")
        self.table.runids.append(runid)
        return len(self.table.runs) - 1

    def add(self, run: int, topic: str, values: list[float], line: int) -> None:
        first = self.seen.setdefault((run, topic), line)
        if first != line:
            raise InputError(self.table.name, line, f"topic {topic!r} of run {self.table.runs[run]!r} "
                                                    f"repeats line {first}")
        for j, value in enumerate(values):
            if math.isnan(value):
                self.warn(f"{self.table.name}:{line}: {self.table.measures[j]} is undefined (nan); read as 0")
                values[j] = 0.0
        self.table.run.append(run)
        self.table.topic.append(topic)
        self.table.line.append(line)
        self.rows.append(values)

    def finish(self) -> ScoreTable:
        if not self.rows:
            raise InputError(self.table.name, None, "holds no per-topic scores (only means? print them "
                                                    "without -n)")
        self.table.values = np.array(self.rows, dtype=np.float64).reshape(len(self.rows), -1)
        return self.table


def read_scores(source: str | InputFile, warn: WarningSink = warn_to_stderr) -> ScoreTable:
    """Read per-topic scores written by ``divaleval -f json`` or in ndeval's CSV (divaleval's default)."""
    if isinstance(source, str):
        source = read_input(source)
    try:
        text = source.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = source.data[: exc.start].count(b"\n") + 1
        raise InputError(source.name, line, "is not UTF-8 text") from None
    lines = text.removeprefix("\ufeff").split("\n")   # a byte-order mark is not part of the first line
    first = next((j for j, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise InputError(source.name, None, "is empty")
    if lines[first].lstrip().startswith("{"):
        return _read_json(source, lines, warn)
    if lines[first].split(",")[:2] == ["runid", "topic"]:
        return _read_csv(source, lines, first, warn)
    raise InputError(source.name, first + 1, "not a score file: expected divaleval's JSON lines "
                                             "or ndeval's CSV (a header 'runid,topic,...')")


def chosen_columns(tables: list[ScoreTable], requested: Iterable[str] | str | None,
                   expand: Callable[[str], list[str]]) -> list[str] | None:
    """The columns asked for, in order and once each: a name the first file has is a column; any other
    (a measure or set name) is what ``expand`` makes of it (names as printed). None: every column."""
    if requested is None:
        return None
    columns = set(tables[0].measures)
    names: list[str] = []
    for item in [requested] if isinstance(requested, str) else requested:
        for name in [item] if item in columns else expand(item):
            if name not in names:
                names.append(name)
    return names


def _number(name: str, line: int, measure: str, text) -> float:
    if isinstance(text, bool) or text is None:
        raise InputError(name, line, f"{measure} {text!r} is not a number")
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(name, line, f"{measure} {text!r} is not a number") from None
    if math.isinf(value):
        raise InputError(name, line, f"{measure} {text!r} is not a finite number")
    return value


def _read_json(source: InputFile, lines: list[str], warn: WarningSink) -> ScoreTable:
    builder: _Builder | None = None
    runs: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(source.name, number, f"not a JSON object: {exc.msg}") from None
        if not isinstance(record, dict) or "topic" not in record or not ({"run", "runid"} & record.keys()):
            raise InputError(source.name, number, "expected a JSON object with 'runid' (or 'run'), "
                                                  "'topic' and one number per measure")
        measures = [key for key in record if key not in KEY_FIELDS]
        if builder is None:
            if not measures:
                raise InputError(source.name, number, "holds no measure")
            builder = _Builder(source, measures, warn)
        elif set(measures) != set(builder.table.measures):
            raise InputError(source.name, number, "its measures differ from those of the first line: "
                                                  + ", ".join(sorted(set(measures) ^ set(builder.table.measures))))
        topic = str(record["topic"])
        if topic == MEAN_TOPIC:
            continue
        runid = str(record.get("runid", record.get("run")))
        key = str(record.get("run", runid))
        if key not in runs:
            runs[key] = builder.new_run(key, runid)
        values = [_number(source.name, number, m, record[m]) for m in builder.table.measures]
        builder.add(runs[key], topic, values, number)
    if builder is None:
        raise InputError(source.name, None, "is empty")
    return builder.finish()


def _csv_fields(text: str) -> list[str]:
    """The fields of one CSV line (quoted ones, as divaleval writes names holding a comma, unquoted)."""
    return next(csv.reader([text])) if '"' in text else text.split(",")


def _read_csv(source: InputFile, lines: list[str], header_index: int, warn: WarningSink) -> ScoreTable:
    header = _csv_fields(lines[header_index].rstrip("\r"))
    measures = header[2:]
    if not measures or any(not m for m in measures):
        raise InputError(source.name, header_index + 1, "the header names no measure, or an empty one")
    duplicated = sorted({m for m in measures if measures.count(m) > 1})
    if duplicated:
        raise InputError(source.name, header_index + 1, f"the header names {duplicated[0]!r} twice")
    builder = _Builder(source, measures, warn)
    current: int | None = None       # the run whose rows are being read
    for number, text in enumerate(lines[header_index + 1:], start=header_index + 2):
        text = text.rstrip("\r")
        if not text.strip():
            continue
        fields = _csv_fields(text)
        if len(fields) != len(header):
            raise InputError(source.name, number, f"expected {len(header)} fields, found {len(fields)}")
        runid, topic = fields[0], fields[1]
        if current is None or builder.table.runids[current] != runid:
            current = builder.new_run(runid, runid)
        if topic == MEAN_TOPIC:
            current = None           # the run's block ends with its mean
            continue
        values = [_number(source.name, number, m, v) for m, v in zip(measures, fields[2:])]
        builder.add(current, topic, values, number)
    return builder.finish()
