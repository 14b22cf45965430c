"""trec_eval's output lines: the measure name padded to 22 columns, a tab, the topic (or ``all``), a tab,
the value (``%.4f`` for reals, whole numbers for counts, strings as they are)."""
from __future__ import annotations

from .measures import Measure


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
