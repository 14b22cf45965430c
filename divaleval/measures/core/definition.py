"""Declarative measure definitions.

A measure family (``alpha-nDCG``) is a :class:`MeasureDef`: a canonical name,
parameters with defaults and validation, whether it takes a cutoff, the
judgments it needs, a citation, a one-line summary and one vectorised kernel. A
concrete measure (``alpha-nDCG(alpha=0.8)@30``) is a :class:`Measure`: the
definition with every parameter parsed and bound. Its canonical name, printed in
headers, parses back to it.

A kernel is ``kernel(ctx, *, cutoff, **params) -> np.ndarray`` returning one
score per topic of the :class:`~divaleval.context.RunContext`. Every usage check
happens before a kernel runs: parameters when a measure is bound, the fit of a
measure to the qrels when an evaluation starts (:meth:`Measure.check`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ...errors import UsageError
from .table import registered

REQUIRED, OPTIONAL, NONE = "required", "optional", "none"
MAX_CUTOFF = 10 ** 9  # deeper than any ranking; a cutoff past a ranking's end costs nothing more
INTENTS, ASPECTS = "intents", "aspects"  # the judgments a measure needs
PREFERENCES = "preferences"  # (preference judgments: nPrf)
# How a measure's values over topics make its summary (divaleval.aggregate computes each).
MEAN, GEOMETRIC_MEAN, SUM = "mean", "geometric mean", "sum"


def _no_problem(value: Any) -> str | None:
    return None


@dataclass(frozen=True)
class Param:
    """A measure parameter: its name, type, default, and how text becomes a valid value.

    kind: the type of the value (``float``, ``int``, ``str``, or ``tuple`` for a
        structured one, with ``parse`` and ``show``).
    choices: the values a ``str`` parameter accepts.
    check: a further test of a parsed value; returns the problem, or None.
    parse: text to value for a structured parameter (raises ValueError saying why not).
    show: value to text, so that a canonical name parses back; default repr for
        floats, str otherwise.
    """

    name: str
    kind: type
    default: Any
    doc: str
    check: Callable[[Any], str | None] = _no_problem
    choices: tuple[str, ...] = ()
    parse: Callable[[str], Any] | None = None
    show: Callable[[Any], str] | None = None

    def coerce(self, given: Any) -> Any:
        """The value of ``given`` (text, or a value): parsed once, then checked."""
        try:
            if self.parse is not None:
                value = self.parse(given if isinstance(given, str) else self.text(given))
            else:
                value = self.kind(given)
        except (TypeError, ValueError) as exc:
            reason = str(exc) if self.parse is not None else f"is not a valid {self.kind.__name__}"
            raise UsageError(f"{self.name}={given!r}: {reason}") from None
        if isinstance(value, float) and not np.isfinite(value):  # also refuses nan
            raise UsageError(f"{self.name}={given!r} is not finite")
        if self.choices and value not in self.choices:
            raise UsageError(f"{self.name}={given!r}: must be one of {', '.join(self.choices)}")
        problem = self.check(value)
        if problem:
            raise UsageError(f"{self.name}={given!r}: {problem}")
        return value

    def text(self, value: Any) -> str:
        """``value`` as a canonical name writes it."""
        if self.show is not None:
            return self.show(value)
        return repr(value) if isinstance(value, float) else str(value)

    def describe(self) -> str:
        """``name=default``, with the choices where there are some (for the catalogue)."""
        text = f"{self.name}={self.text(self.default)}"
        return text + f" [{'|'.join(self.choices)}]" if self.choices else text


# Checks shared by parameters of several measures.
def in_unit_interval(value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must be in [0, 1]"


def in_open_unit_interval(value: float) -> str | None:
    return None if 0.0 < value < 1.0 else "must be in (0, 1)"


def non_negative(value: float) -> str | None:
    return None if value >= 0.0 else "must be >= 0"


def positive(value: float) -> str | None:
    return None if value > 0.0 else "must be > 0"


EFFORT = Param("e", float, 0.01, "effort of inspecting one document", non_negative)

BindingCheck = Callable[[dict, "int | None"], "str | None"]   # (params, cutoff) -> problem
QrelsCheck = Callable[[dict, Any], "str | None"]               # (params, qrels) -> problem


@dataclass(frozen=True)
class MeasureDef:
    """A measure family: what it is, its parameters, and its kernel.

    check_binding: a test of the bound parameters and cutoff together (run when
        a measure is parsed); check_qrels: a test of the measure against the
        judgments (run before the first run is read). Each returns the problem, or None.
    binary: the measure sees a document only as relevant (a level >= 1, or >= the threshold
        ``--rel-min`` sets) or not; graded measures see the levels themselves.
    aggregation: how its per-topic values make the run's summary: :data:`MEAN` (the arithmetic
        mean, most measures'), :data:`GEOMETRIC_MEAN` (trec_eval's gm_map) or :data:`SUM` (the counts
        trec_eval and ir_measures sum over topics: num_ret, num_rel, num_rel_ret).
    separable: a topic's value is made from that topic's ranking and judgments alone, every sum in an order
        the other topics scored beside it cannot change (no numpy sum along a row padded to the widest
        topic's length, whose pairwise grouping follows that length). Runs scored only with such measures
        are scored a block of topics at a time (:func:`divaleval.engine.score_matrix`), the same bits in
        less memory; tests/test_topic_blocks.py holds every family that says so to it.
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    cutoff: str                 # REQUIRED, OPTIONAL or NONE
    citation: str
    kernel: Callable[..., np.ndarray] = field(compare=False)
    doc: str = ""
    judgments: str = INTENTS
    check_binding: BindingCheck | None = field(default=None, compare=False)
    check_qrels: QrelsCheck | None = field(default=None, compare=False)
    binary: bool = False        # sees only whether a level reaches the relevance threshold (--rel-min)
    aggregation: str = MEAN     # MEAN, GEOMETRIC_MEAN or SUM over topics
    separable: bool = False     # a topic's value, to the bit, whatever topics are scored with it

    def __reduce__(self):
        # A definition travels (to a worker process) by name: its kernel may be a closure.
        return registered, (self.name,)

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        known = ", ".join(p.name for p in self.params) or "none"
        raise UsageError(f"{self.name} has no parameter {name!r} (parameters: {known})")

    def bind(self, params: dict[str, Any] | None = None, cutoff: int | None = None) -> "Measure":
        """The measure with these parameters (text or values; the rest default) and cutoff."""
        params = dict(params or {})
        for name in params:
            self.param(name)  # an unknown name fails with the list of known ones
        bound = tuple((p.name, p.coerce(params[p.name]) if p.name in params else p.default) for p in self.params)
        if cutoff is not None:
            if self.cutoff == NONE:
                raise UsageError(f"{self.name} takes no cutoff")
            if not 1 <= cutoff <= MAX_CUTOFF:
                raise UsageError(f"cutoff of {self.name} must be between 1 and {MAX_CUTOFF}")
        elif self.cutoff == REQUIRED:
            raise UsageError(f"{self.name} needs a cutoff, e.g. {self.name}@10")
        problem = self.check_binding(dict(bound), cutoff) if self.check_binding else None
        if problem:
            raise UsageError(problem)
        return Measure(self, bound, cutoff)

    def catalogue_row(self) -> tuple[str, str, str]:
        """(name with its cutoff, parameters with defaults, summary): one line of ``--list-measures``."""
        name = self.name + {REQUIRED: "@k", OPTIONAL: "[@k]"}.get(self.cutoff, "")
        return name, ", ".join(p.describe() for p in self.params) or "-", self.summary


@dataclass(frozen=True)
class Measure:
    """A measure with every parameter bound; hashable, named canonically."""

    definition: MeasureDef
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None

    @property
    def name(self) -> str:
        changed = [
            f"{name}={param.text(value)}"
            for (name, value), param in zip(self.params, self.definition.params)
            if value != param.default
        ]
        text = self.definition.name
        if changed:
            text += "(" + ",".join(changed) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def check(self, qrels) -> None:
        """Raise :class:`UsageError` if these judgments cannot give this measure: each kind of judgments
        is its own class (:mod:`divaleval.model.judged`), and the measure's kind must be the judgments' type
        (multi-aspect qrels are intentwise qrels too)."""
        from ... import model  # (the class of this kind only: the others' models and readers stay unloaded)

        definition = self.definition
        needed = getattr(model, {INTENTS: "Qrels", ASPECTS: "AspectQrels", PREFERENCES: "PreferenceQrels"}[
            definition.judgments])
        if not isinstance(qrels, needed):
            raise UsageError(f"{self.name} " + {
                INTENTS: "needs intentwise qrels, not preference judgments (--prefs)",
                ASPECTS: "needs multi-aspect qrels: give them with --aspect NAME=FILE",
                PREFERENCES: "needs preference judgments: give them with --prefs FILE",
            }[definition.judgments])
        problem = definition.check_qrels(dict(self.params), qrels) if definition.check_qrels else None
        if problem:
            raise UsageError(f"{self.name}: {problem}")

    def compute(self, ctx) -> np.ndarray:
        return self.definition.kernel(ctx, cutoff=self.cutoff, **dict(self.params))

    def __str__(self) -> str:
        return self.name
