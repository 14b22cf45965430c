"""Output formats. Each writer streams: a run's rows are written as soon as it is scored.

* ``ndeval``: ndeval's CSV, one header for all runs, ``%.6f``;
* ``trec``: trec_eval's ``measure<TAB>topic<TAB>value`` lines (``%.4f``), ``all`` for the mean, under
  trec_eval's names where a measure has one (``P_5``, ``map``, ``gm_map``, ``iprec_at_recall_0.10``);
* ``table``: an aligned table (tabulate), written once every run is scored;
* ``json``: one JSON object per line, full precision, with the run's source as ``run``.

ndeval's and trec_eval's layouts print a run's runtag, as those tools do; two
runs with one runtag are still two blocks of rows, in the order of the runs.
"""
from __future__ import annotations

from typing import TextIO

import numpy as np

from ..errors import UsageError
from ..measures.core.aliases import trec_eval_name
from ..results import RunScores
from .formatting import c_fixed, c_fixed_rows

FORMATS = ("ndeval", "trec", "table", "json")
MEAN_TOPIC = "amean"


class Writer:
    def __init__(self, stream: TextIO, measure_names: list[str], means_only: bool = False,
                 run_column: bool = False) -> None:
        self.stream = stream
        self.names = measure_names
        self.means_only = means_only
        self.run_column = run_column  # ndeval's CSV: a first column with the run's file (its key)

    def start(self) -> None:
        pass

    def add_run(self, scores: RunScores) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        pass

    def rows(self, scores: RunScores):
        """(topic, values) pairs to print for a run: the topics, the mean, then any summary rows."""
        if not self.means_only:
            yield from zip(scores.topic_ids, scores.matrix)
        yield MEAN_TOPIC, scores.mean
        yield from scores.summary_rows


def csv_field(text: str) -> str:
    """A CSV field: as it is, or quoted (RFC 4180) when it holds a comma, a quote or a line end, as a
    measure name with two parameters does (``nPrf(p=dcg,f=min)@10``); ndeval's own names never do."""
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


class NdevalWriter(Writer):
    def start(self) -> None:
        key = ["run"] if self.run_column else []
        self.stream.write(",".join(csv_field(name) for name in [*key, "runid", "topic", *self.names]) + "\n")

    def add_run(self, scores: RunScores) -> None:
        runid = csv_field(scores.runid)
        if self.run_column:  # the file tells apart runs whose runtags collide
            runid = csv_field(scores.source) + "," + runid
        rows = list(self.rows(scores))
        matrix = np.array([values for _, values in rows], dtype=np.float64).reshape(len(rows), len(self.names))
        lines = [",".join([runid, csv_field(topic), text]) if text else ",".join([runid, csv_field(topic)])
                 for (topic, _), text in zip(rows, c_fixed_rows(matrix))]
        self.stream.write("\n".join(lines) + "\n")


def trec_eval_printed_name(name: str) -> str:
    """The name trec_eval prints for the measure named ``name`` (``P_5`` for Prec@5, ``map`` for AP),
    where it has one (:func:`~divaleval.measures.core.aliases.trec_eval_name`); else ``name`` itself."""
    from ..measures import parse_measure

    try:
        measure = parse_measure(name)
    except UsageError:  # not one measure's name: kept as it is
        return name
    params = dict(measure.params)
    changed = {param.name for param in measure.definition.params if params[param.name] != param.default}
    return trec_eval_name(measure.definition.name, params, changed, measure.cutoff) or name


TREC_EVAL_COUNTS = frozenset({"num_ret", "num_rel", "num_rel_ret"})


class TrecWriter(Writer):
    """trec_eval's layout; each run opens with its ``runid all NAME`` line, as in trec_eval. A measure
    trec_eval knows goes by trec_eval's name (``P_5``, ``ndcg_cut_10``, ``map``), so that scripts reading
    trec_eval's output read this one."""

    def __init__(self, stream: TextIO, measure_names: list[str], means_only: bool = False,
                 run_column: bool = False) -> None:
        super().__init__(stream, measure_names, means_only, run_column)
        self.printed = [trec_eval_printed_name(name) for name in measure_names]

    @staticmethod
    def number(printed_name: str, value: float) -> str:
        """trec_eval prints its counts as integers, every other value to 4 decimals."""
        return f"{value:.0f}" if printed_name in TREC_EVAL_COUNTS else c_fixed(value, 4)

    def add_run(self, scores: RunScores) -> None:
        lines = [f"{'runid':<22}\tall\t{scores.runid}"]
        for topic, values in self.rows(scores):
            topic = "all" if topic == MEAN_TOPIC else topic
            lines.extend(f"{name:<22}\t{topic}\t{self.number(name, v)}" for name, v in zip(self.printed, values))
        self.stream.write("\n".join(lines) + "\n")


class TableWriter(Writer):
    """Runs named by their labels (labels.py): the runtags where they are unique, else path suffixes."""

    def start(self) -> None:
        self.table: list[list] = []
        self.runs: list[tuple[str, str]] = []

    def add_run(self, scores: RunScores) -> None:
        self.runs.append((scores.source, scores.runid))
        for topic, values in self.rows(scores):
            self.table.append([len(self.runs) - 1, topic, *(c_fixed(v, 4) for v in values)])

    def finish(self) -> None:
        from tabulate import tabulate  # (20 ms to import: only for this format)

        from ..labels import run_labels

        labels = run_labels([key for key, _ in self.runs], [runid for _, runid in self.runs])
        for row in self.table:
            row[0] = labels[row[0]]
        self.stream.write(tabulate(self.table, headers=["runid", "topic", *self.names],
                                   disable_numparse=True, stralign="right") + "\n")


class JsonWriter(Writer):
    def add_run(self, scores: RunScores) -> None:
        import json  # (here: the CSV a grading script reads does not load it)

        lines = []
        for topic, values in self.rows(scores):
            record = {"run": scores.source, "runid": scores.runid, "topic": topic}
            record.update((name, float(v)) for name, v in zip(self.names, values))
            lines.append(json.dumps(record, ensure_ascii=False))
        self.stream.write("\n".join(lines) + "\n")


WRITERS = {"ndeval": NdevalWriter, "trec": TrecWriter, "table": TableWriter, "json": JsonWriter}


def make_writer(fmt: str, stream: TextIO, measure_names: list[str], means_only: bool = False,
                run_column: bool = False) -> Writer:
    return WRITERS[fmt](stream, measure_names, means_only, run_column)

