"""Option values as plain ASCII numbers: Python's int() and float() would also take ``1_000``, other
scripts' digits (``٣``) and, for reals, ``nan``; an option refuses them as a file's field is refused."""
from __future__ import annotations

import re
from functools import cache

import click


@cache
def _form(kind: str) -> re.Pattern:
    """The form a file's integer or real field may take (from io/table.py, which loads numpy and pyarrow:
    imported when an option is first read, not to print --help or --version)."""
    from ..io.table import INTEGER_PATTERN, REAL_PATTERN

    return re.compile(INTEGER_PATTERN if kind == "integer" else REAL_PATTERN, re.ASCII)


class _Bounds:
    """The bounds of a range in option help, where it has one (click would print ``[x<=None]`` for none)."""

    def _describe_range(self) -> str:
        return super()._describe_range() if self.min is not None or self.max is not None else ""


class PlainInt(_Bounds, click.IntRange):
    """An integer option (optionally within a range) written with ASCII digits."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not _form("integer").fullmatch(value):
            self.fail(f"{value!r} is not an integer (ASCII digits, an optional sign)", param, ctx)
        return super().convert(value, param, ctx)


class PlainFloat(_Bounds, click.FloatRange):
    """A real option (optionally within a range) written as C writes numbers; NaN refused."""

    name = "number"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not _form("real").fullmatch(value):
            self.fail(f"{value!r} is not a number (ASCII digits, sign, point, exponent)", param, ctx)
        return super().convert(value, param, ctx)
