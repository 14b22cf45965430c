"""Judgments and runs given in memory, in the forms Python IR tools keep them, read into the tables the
file readers give (:class:`QrelsTable`, :class:`RunTable`).

Three forms, each for qrels and runs:

* a pandas DataFrame, its columns named as divaleval names the fields of a file (``topic``, ``intent``,
  ``docno``, ``level``; ``topic``, ``docno``, ``score``, ``rank``, ``runid``), as ir_measures and
  ir_datasets name them (``query_id``, ``iteration``, ``doc_id``, ``relevance``; ``query_id``,
  ``doc_id``, ``score``) or as PyTerrier does (``qid``, ``docno``, ``label``; ``qid``, ``docno``,
  ``score``, ``rank``; its integer ``docid`` is not a document id and is never read);
* a dict in pytrec_eval's shape: ``{topic: {docno: level}}`` (ad hoc judgments: one intent per topic)
  and ``{topic: {docno: score}}``;
* an iterable of namedtuples with those fields (ir_measures' ``Qrel`` and ``ScoredDoc``, ir_datasets'
  ``TrecQrel``, pyndeval's ``SubtopicQrel``).

Diversity qrels keep the intent in ``iteration`` (ir_measures, ir_datasets) or ``subtopic_id``
(pyndeval); without such a column every topic has one intent, ``0``, as a TREC ad hoc qrels file does.
A run frame with a ``runid`` column holding several runtags is several runs (:func:`run_tables`).

Every check of a file holds here too, and a problem names its row as the form has one: a frame's
position and index label, a dict's topic and docno, an iterable's position.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from operator import itemgetter
from typing import Any, Callable

import numpy as np

from ..errors import InputError, as_written
from .qrels import QrelsTable
from .runs import RunTable

# The fields of each table and the column (or namedtuple field) names that give them, in the order tried.
QRELS_FIELDS = {
    "topic": ("topic", "query_id", "qid"),
    "intent": ("intent", "iteration", "subtopic_id"),
    "docno": ("docno", "doc_id"),
    "level": ("level", "relevance", "label", "judgment"),
}
RUN_FIELDS = {
    "topic": ("topic", "query_id", "qid"),
    "docno": ("docno", "doc_id"),
    "score": ("score",),
    "rank": ("rank",),
    "runid": ("runid",),
}
REQUIRED = {"topic", "docno", "level", "score"}  # intent, rank and runid are optional
QRELS_NAME, RUN_NAME = "<qrels in memory>", "memory"


def is_frame(value: Any) -> bool:
    """A pandas DataFrame (known by its shape, so that pandas is not imported to ask)."""
    return hasattr(value, "columns") and hasattr(value, "itertuples")


def is_records(value: Any, fields: Iterable[str]) -> bool:
    """A non-empty sequence whose first item is a namedtuple with one of ``fields`` (a list or tuple only:
    an iterator is looked at with :func:`peek_records`)."""
    return isinstance(value, (list, tuple)) and bool(value) and _record_of(value[0], fields)


def _record_of(item: Any, fields: Iterable[str]) -> bool:
    return isinstance(item, tuple) and any(name in getattr(item, "_fields", ()) for name in fields)


def peek_records(value: Iterator, fields: Iterable[str]) -> tuple[bool, Iterator]:
    """Whether an iterator yields namedtuples with one of ``fields``, and an iterator giving every item."""
    first = next(value, None)
    rest = value if first is None else chain([first], value)
    return _record_of(first, fields), rest


def is_score_dict(value: Any) -> bool:
    """A dict in pytrec_eval's shape, ``{topic: {docno: number}}`` (also for qrels)."""
    if not isinstance(value, Mapping) or not value:
        return False
    inner = next(iter(value.values()))
    if not isinstance(inner, Mapping):
        return False
    first = next(iter(inner.values()), 0)  # (a topic without documents is a run's too)
    return not isinstance(first, (Mapping, str, bytes)) and not is_frame(first)


def in_memory_run(value: Any) -> bool:
    """One run (or, a frame with several runtags, several) in one of this module's forms."""
    return is_frame(value) or is_score_dict(value) or is_records(value, RUN_FIELDS["docno"])


# -- qrels --------------------------------------------------------------------------------------------

def qrels_table(qrels: Any, name: str = QRELS_NAME) -> QrelsTable:
    """Intentwise (or ad hoc) judgments from a frame, a pytrec_eval dict or namedtuples."""
    if is_frame(qrels):
        columns, locate = _frame_columns(qrels, QRELS_FIELDS, name, "qrels")
    elif isinstance(qrels, Mapping):
        columns, locate = _dict_columns(qrels, "level"), _dict_locator(qrels)
    else:
        columns, locate = _record_columns(qrels, QRELS_FIELDS, name, "qrels"), _position
    _check_ids(columns, ("topic", "intent", "docno"), name, locate)
    with _rows_named(name, locate):
        return QrelsTable.from_arrays(columns["topic"], columns.get("intent"), columns["docno"], columns["level"],
                                      name)


# -- runs ---------------------------------------------------------------------------------------------

def run_tables(run: Any, name: str | None = None, *, split: bool = True) -> list[RunTable]:
    """The runs of a frame, a pytrec_eval dict or namedtuples: one, or (``split``) one per runtag of a
    ``runid`` column. ``name`` labels a run (default: its runtag, else ``memory``)."""
    if is_frame(run):
        columns, locate = _frame_columns(run, RUN_FIELDS, name or RUN_NAME, "run")
    elif isinstance(run, Mapping):
        columns, locate = _dict_columns(run, "score"), _dict_locator(run)
    else:
        columns, locate = _record_columns(run, RUN_FIELDS, name or RUN_NAME, "run"), _position
    runids = columns.pop("runid", None)
    if runids is None or not split:
        return [_run_table(columns, np.arange(len(columns["docno"])), name or RUN_NAME, name or RUN_NAME, locate)]
    runids = np.asarray([str(r) for r in runids], dtype=object)
    tags, first = np.unique(runids, return_index=True)
    tables = []
    for tag in tags[np.argsort(first)]:  # in the order the runtags first appear
        label = tag if name is None else name if len(tags) == 1 else f"{name}:{tag}"
        tables.append(_run_table(columns, np.flatnonzero(runids == tag), label, tag, locate))
    return tables


def _run_table(columns: dict, rows: np.ndarray, name: str, runid: str, locate: Callable[[int], str]) -> RunTable:
    def located(row: int) -> str:  # a row of this run is a row of the whole input
        return locate(int(rows[row]))

    whole = len(rows) == len(columns["docno"])
    picked = {field: values if whole else np.asarray(values, dtype=object if field in ("topic", "docno") else None)[rows]
              for field, values in columns.items() if values is not None}
    _check_ids(picked, ("topic", "docno"), name, located)
    picked["score"] = _scores(picked["score"], name, located)
    with _rows_named(name, located):
        return RunTable.from_arrays(picked["topic"], picked["docno"], picked["score"], picked.get("rank"),
                                    runid=runid, name=name)


# -- reading the forms ----------------------------------------------------------------------------------

def _scores(values: np.ndarray, name: str, locate: Callable[[int], str]) -> np.ndarray:
    """Scores as float64; the first that is not a number (NaN, None) is an error naming its row. Infinite scores
    rank first or last, as they do in a run file (a ranker's -inf for a document it filters out)."""
    try:
        scores = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        for row, value in enumerate(values):
            try:
                float(value)
            except (TypeError, ValueError):
                raise InputError(name, None, f"{locate(row)}: score {value!r} is not a number") from None
        raise
    bad = np.isnan(scores)
    if bad.any():
        row = int(np.argmax(bad))
        if values[row] is None:
            raise InputError(name, None, f"{locate(row)}: score is missing")
        raise InputError(name, None, f"{locate(row)}: score nan is not a number")
    return scores


def _frame_columns(frame, fields: dict, name: str, what: str) -> tuple[dict, Callable[[int], str]]:
    columns = {}
    for field, candidates in fields.items():
        found = next((c for c in candidates if c in frame.columns), None)
        if found is None:
            if field in REQUIRED:
                raise InputError(name, None, f"the {what} frame has no {' or '.join(candidates)} column "
                                             f"(its columns: {', '.join(map(str, frame.columns))})")
            continue
        columns[field] = frame[found].to_numpy()
    labels = frame.index

    def locate(row: int) -> str:
        label = labels[row]
        return f"row {row + 1} (index {label.item() if isinstance(label, np.generic) else label!r})"

    return columns, locate


def _dict_columns(given: Mapping, value_field: str) -> dict:
    topics, docnos, values = [], [], []
    for topic, documents in given.items():
        if not isinstance(documents, Mapping):
            raise InputError(QRELS_NAME if value_field == "level" else RUN_NAME, None,
                             f"topic {as_written(str(topic))}: {{docno: {value_field}}} expected, "
                             f"not {type(documents).__name__}")
        topics.extend([topic] * len(documents))
        docnos.extend(documents.keys())
        values.extend(documents.values())
    return {"topic": topics, "docno": docnos, value_field: values}


def _dict_locator(given: Mapping) -> Callable[[int], str]:
    def locate(row: int) -> str:  # (only when there is a problem: the dict is walked again)
        for topic, documents in given.items():
            if row < len(documents):
                return f"topic {topic!s}, docno {list(documents)[row]!s}"
            row -= len(documents)
        return f"entry {row + 1}"

    return locate


def _record_columns(records: Iterable, fields: dict, name: str, what: str) -> dict:
    records = list(records)
    if not records:
        raise InputError(name, None, f"{what} holds no {'judgments' if what == 'qrels' else 'results'}")
    first = records[0]
    names = getattr(first, "_fields", None)
    if names is None:
        raise InputError(name, None, f"{what}: namedtuples expected (e.g. ir_measures' "
                                     f"{'Qrel' if what == 'qrels' else 'ScoredDoc'}), not {type(first).__name__}")
    columns = {}
    for field, candidates in fields.items():
        found = next((c for c in candidates if c in names), None)
        if found is None:
            if field in REQUIRED:
                raise InputError(name, None, f"{what}: the namedtuples have no {' or '.join(candidates)} field "
                                             f"(their fields: {', '.join(names)})")
            continue
        try:
            columns[field] = list(map(itemgetter(names.index(found)), records))
        except (IndexError, TypeError):
            raise InputError(name, None, f"{what}: every item must be a namedtuple like the first") from None
    return columns


def _position(row: int) -> str:
    return f"item {row + 1}"


def _check_ids(columns: dict, fields: tuple[str, ...], name: str, locate: Callable[[int], str]) -> None:
    """Ids must be present: None and NaN (a frame's missing value) would become the ids "None" and "nan"."""
    for field in fields:
        values = columns.get(field)
        if values is None:
            continue
        missing = _missing(values)
        if missing.any():
            raise InputError(name, None, f"{locate(int(np.argmax(missing)))}: {field} is missing")


def _missing(values) -> np.ndarray:
    """Which values are missing (None, NaN, pandas' NA)."""
    import pandas as pd  # (pandas is there: ids in memory are factorised by it)

    return np.asarray(pd.isna(values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)),
                      dtype=bool)


class _rows_named:
    """Re-raises a table builder's error about an entry (its 1-based position as the line) naming the row."""

    def __init__(self, name: str, locate: Callable[[int], str]) -> None:
        self.name, self.locate = name, locate

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, traceback) -> bool:
        if isinstance(error, InputError) and error.line is not None and error.source == self.name:
            raise InputError(self.name, None, f"{self.locate(error.line - 1)}: {error.reason}") from None
        return False


def runs_given(runs: Any) -> Any:
    """An evaluation's ``runs`` with every run given in memory read into a :class:`RunTable` (paths and
    tables are left as they are): one run, a list of runs, ``{name: run}``, or an iterable of runs (read as
    it is consumed). A list or an iterator of namedtuples is one run."""
    if isinstance(runs, (str, RunTable)):
        return runs
    if in_memory_run(runs):
        return run_tables(runs)
    if isinstance(runs, Mapping):  # named runs
        return [table for name, run in runs.items() for table in _run_items(run, str(name))]
    if isinstance(runs, (list, tuple)):
        return [table for run in runs for table in _run_items(run)]
    if isinstance(runs, Iterator):
        records, runs = peek_records(runs, RUN_FIELDS["docno"])
        if records:
            return run_tables(runs)
    return (table for run in runs for table in _run_items(run))


def _run_items(run: Any, name: str | None = None) -> list:
    if in_memory_run(run):
        return run_tables(run, name)
    if isinstance(run, Iterator):
        records, run = peek_records(run, RUN_FIELDS["docno"])
        if records:
            return run_tables(run, name)
    return [run]
