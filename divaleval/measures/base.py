"""Declarative measure definitions and their registry.

A measure family (``alpha-nDCG``) is a :class:`MeasureDef`: a canonical name,
parameters with defaults and validation, whether it takes a cutoff, a citation,
a one-line summary and one vectorised kernel. A concrete measure
(``alpha-nDCG(alpha=0.8)@30``) is a :class:`Measure`: the definition with every
parameter bound. Its canonical name, printed in headers, parses back to it.

A kernel is ``kernel(ctx, *, cutoff, **params) -> np.ndarray`` returning one
score per topic of the :class:`~divaleval.context.RunContext`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

REQUIRED, OPTIONAL, NONE = "required", "optional", "none"


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type, default and a validity check."""

    name: str
    kind: type
    default: Any
    doc: str
    check: Callable[[Any], str | None] = lambda value: None  # returns an error text

    def coerce(self, text_or_value: Any) -> Any:
        value = text_or_value
        if isinstance(value, str):
            try:
                value = self.kind(value)
            except ValueError:
                raise ValueError(f"{self.name}={text_or_value!r} is not a valid {self.kind.__name__}") from None
        else:
            value = self.kind(value)
        if self.kind is float and not np.isfinite(value):  # also refuses nan
            raise ValueError(f"{self.name}={text_or_value!r} is not finite")
        problem = self.check(value)
        if problem:
            raise ValueError(f"{self.name}={text_or_value!r}: {problem}")
        return value


def in_unit_interval(value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must be in [0, 1]"


def non_negative(value: float) -> str | None:
    return None if value >= 0.0 else "must be >= 0"


def positive(value: float) -> str | None:
    return None if value > 0.0 else "must be > 0"


def one_of(options) -> Callable[[Any], str | None]:
    options = tuple(options)
    return lambda value: None if value in options else f"must be one of {', '.join(map(str, options))}"


EFFORT = Param("e", float, 0.01, "effort of inspecting one document", non_negative)


@dataclass(frozen=True)
class MeasureDef:
    """A measure family: what it is, its parameters, and its kernel."""

    name: str
    summary: str
    params: tuple[Param, ...]
    cutoff: str                 # REQUIRED, OPTIONAL or NONE
    citation: str
    kernel: Callable[..., np.ndarray] = field(compare=False)
    doc: str = ""
    judgments: str = "intents"  # "intents" (intentwise or ad hoc qrels) or "aspects" (multi-aspect qrels)

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        known = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"{self.name} has no parameter {name!r} (parameters: {known})")

    def bind(self, params: dict[str, Any] | None = None, cutoff: int | None = None) -> "Measure":
        params = dict(params or {})
        bound = []
        for param in self.params:
            value = params.pop(param.name) if param.name in params else param.default
            bound.append((param.name, param.coerce(value)))
        if params:
            self.param(next(iter(params)))  # raises with the list of known names
        if cutoff is not None:
            if self.cutoff == NONE:
                raise ValueError(f"{self.name} takes no cutoff")
            if cutoff < 1:
                raise ValueError(f"cutoff of {self.name} must be >= 1")
        elif self.cutoff == REQUIRED:
            raise ValueError(f"{self.name} needs a cutoff, e.g. {self.name}@10")
        return Measure(self, tuple(bound), cutoff)


@dataclass(frozen=True)
class Measure:
    """A measure with every parameter bound; hashable, ordered by its name."""

    definition: MeasureDef
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None

    @property
    def name(self) -> str:
        changed = [
            f"{name}={format_value(value)}"
            for (name, value), param in zip(self.params, self.definition.params)
            if value != param.default
        ]
        text = self.definition.name
        if changed:
            text += "(" + ",".join(changed) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def compute(self, ctx) -> np.ndarray:
        return self.definition.kernel(ctx, cutoff=self.cutoff, **dict(self.params))

    def __str__(self) -> str:
        return self.name


def format_value(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


REGISTRY: dict[str, MeasureDef] = {}  # by canonical name


def lookup_key(name: str) -> str:
    return name.lower().replace("_", "-")


def find_definition(name: str) -> MeasureDef | None:
    """The family called ``name``: exactly, or else case-insensitively with ``_`` and
    ``-`` alike (``alpha_ndcg``) when that matches one family only (``nrbp`` is
    ambiguous: ndeval's NRBP or NTCIREVAL's nRBP)."""
    if name in REGISTRY:
        return REGISTRY[name]
    matches = [d for d in REGISTRY.values() if lookup_key(d.name) == lookup_key(name)]
    if len(matches) > 1:
        raise ValueError(f"{name!r} is ambiguous: {' or '.join(d.name for d in matches)} (case matters)")
    return matches[0] if matches else None


def measure(
    *,
    name: str,
    summary: str,
    citation: str,
    params: tuple[Param, ...] | list[Param] = (),
    cutoff: str = NONE,
    judgments: str = "intents",
) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    """Register ``kernel`` as the measure family ``name``."""

    def register(kernel: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        if name in REGISTRY:
            raise RuntimeError(f"measure {name} registered twice")
        REGISTRY[name] = MeasureDef(
            name=name, summary=summary, params=tuple(params), cutoff=cutoff,
            citation=citation, kernel=kernel, doc=(kernel.__doc__ or "").strip(), judgments=judgments,
        )
        return kernel

    return register
