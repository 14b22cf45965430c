"""Per-topic scores read back from divaleval's own output, so that nothing is scored twice.

Every per-topic layout divaleval prints, told apart by the first line:

* JSON lines (``divaleval -f json``): one object per (run, topic) with ``run``
  (the run's source; optional), ``runid``, ``topic`` and one number per measure;
* ndeval's CSV (``divaleval`` by default, and ndeval itself): a header
  ``runid,topic,MEASURE,...`` then one row per (run, topic);
* trec_eval's lines (``-f trec``): ``MEASURE<TAB>TOPIC<TAB>VALUE``, each run
  opening with ``runid<TAB>all<TAB>RUNTAG``;
* the aligned table (``-f table``): a header ``runid topic MEASURE ...``, a
  rule of dashes, then one row per (run, topic), fields apart by spaces.

A run's rows end with its mean (``amean``; ``all`` in trec's lines), so two runs
with one runtag stay two runs (the second is keyed ``RUNTAG#2``, as runs given
twice are). Means are skipped: they are recomputed from the topics. trec's lines
and the table print 4 decimals (the CSV 6, JSON every digit): the scores are
read as printed, and a warning says that tests on them may differ in the last
digits from tests on the runs. TRisk rows (``--baseline``) are refused: they
are risk-adjusted differences, not scores. An undefined value (ndeval's
``-nan``) is read as 0, as divaleval scores it, with a warning naming the line.
Anything else that is not a number is an error naming its line.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from ..errors import InputError, WarningSink, emit_warning
from .source import InputFile, read_input

MEAN_TOPIC = "amean"
TREC_MEAN_TOPIC = "all"
KEY_FIELDS = ("run", "runid", "topic")
RISK_ROWS = ("TRisk", "TRisk-p")   # the rows a run's mean is followed by with --baseline (meta/risk.py)
FORMATS_READ = ("divaleval's per-topic output: ndeval's CSV (the default; a header 'runid,topic,...'), "
                "-f json, -f trec or -f table")
ROUNDED = {"trec": 4, "table": 4}  # decimals each format prints (the CSV 6: close enough to be quiet about)


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
        if topic in RISK_ROWS:
            raise InputError(self.table.name, line, f"{topic} is a risk summary (divaleval --baseline): these are "
                                                    "risk-adjusted differences, not scores; print the scores "
                                                    "without --baseline")
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


def read_scores(source: str | InputFile, warn: WarningSink = emit_warning) -> ScoreTable:
    """Read per-topic scores written by ``divaleval -f json`` or in ndeval's CSV (divaleval's default)."""
    if isinstance(source, str):
        source = read_input(source)
    try:
        text = source.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = source.data[: exc.start].count(b"\n") + 1
        raise InputError(source.name, line, "is not UTF-8 text") from None
    lines = [line.rstrip("\r") for line in text.removeprefix("\ufeff").split("\n")]  # (a BOM is no part of it)
    first = next((j for j, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise InputError(source.name, None, "is empty")
    head = lines[first]
    if head.lstrip().startswith("{"):
        return _read_json(source, lines, warn)
    if head.split(",")[:2] == ["runid", "topic"]:
        return _read_columns(source, _csv_fields(head), first, _csv_rows(lines, first), warn)
    if head.split(",")[:3] == ["run", "runid", "topic"]:  # -f ndeval --run-column
        return _read_columns(source, _csv_fields(head), first, _csv_rows(lines, first), warn, keyed=True)
    if [field.strip() for field in head.split("\t")][:2] == ["runid", TREC_MEAN_TOPIC]:
        return _read_trec(source, lines, warn)
    if head.split()[:2] == ["runid", "topic"] and _is_rule(lines, first + 1):
        _warn_rounded(source, "table", warn)
        return _read_columns(source, head.split(), first, _table_rows(lines, first + 2), warn)
    raise InputError(source.name, first + 1, f"not a score file: expected {FORMATS_READ}; print one with "
                                             "divaleval -c -f json QRELS RUN... > scores.jsonl")


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


def _csv_rows(lines: list[str], header_index: int) -> Iterator[tuple[int, list[str]]]:
    for number, text in enumerate(lines[header_index + 1:], start=header_index + 2):
        if text.strip():
            yield number, _csv_fields(text)


def _is_rule(lines: list[str], index: int) -> bool:
    """The table's rule under its header: dashes apart by spaces."""
    return index < len(lines) and bool(lines[index].strip()) and not lines[index].replace("-", "").strip()


def _table_rows(lines: list[str], start: int) -> Iterator[tuple[int, list[str]]]:
    for number, text in enumerate(lines[start:], start=start + 1):
        if text.strip():
            yield number, text.split()


def _warn_rounded(source: InputFile, fmt: str, warn: WarningSink) -> None:
    warn(f"{source.name}: scores printed by -f {fmt} with {ROUNDED[fmt]} decimals are read as printed: tests on "
         "them may differ in the last digits from tests on the runs (-f json keeps every digit)")


def _read_columns(source: InputFile, header: list[str], header_index: int,
                  rows: Iterable[tuple[int, list[str]]], warn: WarningSink, keyed: bool = False) -> ScoreTable:
    """ndeval's CSV and the table: a header ``runid topic MEASURE...`` (``run runid topic ...`` if ``keyed``),
    then one row per (run, topic)."""
    skip = 3 if keyed else 2
    measures = header[skip:]
    if not measures or any(not m for m in measures):
        raise InputError(source.name, header_index + 1, "the header names no measure, or an empty one")
    duplicated = sorted({m for m in measures if measures.count(m) > 1})
    if duplicated:
        raise InputError(source.name, header_index + 1, f"the header names {duplicated[0]!r} twice")
    builder = _Builder(source, measures, warn)
    current: int | None = None       # the run whose rows are being read
    current_key = None               # as the file names it
    for number, fields in rows:
        if len(fields) != len(header):
            raise InputError(source.name, number, f"expected {len(header)} fields, found {len(fields)}")
        key, runid, topic = (fields[0], fields[1], fields[2]) if keyed else (fields[0], fields[0], fields[1])
        if current is None or current_key != key:
            current, current_key = builder.new_run(key, runid), key
        if topic == MEAN_TOPIC:
            current = None           # the run's block ends with its mean
            continue
        values = [_number(source.name, number, m, v) for m, v in zip(measures, fields[skip:])]
        builder.add(current, topic, values, number)
    return builder.finish()


def _read_trec(source: InputFile, lines: list[str], warn: WarningSink) -> ScoreTable:
    """trec_eval's lines: each run opens with ``runid all RUNTAG``; a topic's measures one line each."""
    _warn_rounded(source, "trec", warn)
    builder: _Builder | None = None
    blocks: list[tuple[str, dict[str, dict[str, tuple[int, str]]]]] = []   # (runtag, topic -> measure -> (line, text))
    measures: list[str] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        fields = [field.strip() for field in text.split("\t")]
        if len(fields) != 3:
            raise InputError(source.name, number, f"expected 3 fields apart by tabs (measure, topic, value), "
                                                  f"found {len(fields)}")
        name, topic, value = fields
        if name == "runid" and topic == TREC_MEAN_TOPIC:
            blocks.append((value, {}))
            continue
        if topic == TREC_MEAN_TOPIC:
            continue
        if name not in measures:
            if len(blocks) > 1 or set(blocks[0][1]) - {topic}:   # measures are those of the first topic
                raise InputError(source.name, number, f"measure {name!r} is not among those of the first topic")
            measures.append(name)
        seen = blocks[-1][1].setdefault(topic, {})
        if name in seen:
            raise InputError(source.name, number, f"{name} of topic {topic!r} repeats line {seen[name][0]}")
        seen[name] = (number, value)
    builder = _Builder(source, measures, warn)
    for runid, topics in blocks:
        run = builder.new_run(runid, runid)
        for topic, seen in topics.items():
            line = min(number for number, _ in seen.values())
            missing = [m for m in measures if m not in seen]
            if missing:
                raise InputError(source.name, line, f"topic {topic!r} of run {runid!r} has no {missing[0]}")
            builder.add(run, topic, [_number(source.name, seen[m][0], m, seen[m][1]) for m in measures], line)
    return builder.finish()
