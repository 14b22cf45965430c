"""trec_eval's output lines: the measure name padded to 22 columns, a tab, the topic (or ``all``), a tab,
the value (``%.4f`` for reals, whole numbers for counts, strings as they are).

A run's per-topic lines are printed a topic at a time by one ``%`` of a template holding every line of
a topic (:func:`topic_template`), not value by value: the same conversions (``%6.4f`` is what the format
``6.4f`` gives), done in one call. A topic with a NaN value (C's printf prints ``-nan`` for 0/0, where
Python prints ``nan``) goes line by line.
"""
from __future__ import annotations

from .measures import Measure

FORMATS = {"float": "%6.4f", "int": "%d", "str": "%s"}


def label(measure: Measure, param) -> str:
    if param is None:
        return measure.name
    return f"{measure.name}_{param:3.2f}" if measure.float_params else f"{measure.name}_{param}"


def line(name: str, topic: str, value, kind: str) -> str:
    if kind == "float":
        text = f"{value:6.4f}" if value == value else f"{'-nan':>6}"  # C's printf of 0.0/0.0
    elif kind == "int":
        text = str(int(value))
    else:
        text = value if isinstance(value, str) else value.decode("utf-8", "surrogateescape")
    return f"{name:<22}\t{topic}\t{text}\n"


def labels(measure: Measure, params: tuple) -> list[str]:
    return [label(measure, p) for p in params] if params else [label(measure, None)]


def topic_template(columns: list[tuple[str, str]]) -> str:
    """The lines of one topic, for ``template % (topic, value, topic, value...)``, from its columns'
    (label, kind)."""
    return "".join(f"{name:<22}\t%s\t{FORMATS[kind]}\n" for name, kind in columns)


def topic_lines(template: str, columns: list[tuple[str, str]], topic: str, values: list, nan: bool) -> str:
    """One topic's lines: its values, in the order of ``columns`` (``nan``: some value is NaN)."""
    if nan:  # C's -nan, line by line
        return "".join(line(name, topic, value, kind) for (name, kind), value in zip(columns, values))
    arguments = [topic] * (2 * len(values))
    arguments[1::2] = values
    return template % tuple(arguments)
