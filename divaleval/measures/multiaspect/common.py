"""What TOMA, CAM and MM share: the single-aspect measure ``m`` and how it is scored.

``m`` is any member of the NCU family (nDCG, AP, ERR, RBP, Q, Prec, RR, ...),
with its default parameters and the cutoff given to TOMA, CAM or MM, computed
on one gain per judged document.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...context import RunContext
from ..core import REQUIRED, Param, memoised
from ..ncu.family import BY_NAME, defaults
from ..ncu.lists import RowGains, row_gain_list

if TYPE_CHECKING:  # (annotations only: scoring other judgments leaves this model unloaded)
    from ...model.aspects import AspectQrels

MAISTRO = "Maistro, Lima, Simonsen, Lioma. Principled multi-aspect evaluation measures of rankings. CIKM 2021"

MEASURE = Param("m", str, "nDCG", "the single-aspect measure (an NCU measure: nDCG, AP, ERR, RBP, Q, ...)",
                choices=tuple(BY_NAME))


def cutoff_for_m(params: dict, cutoff: int | None) -> str | None:
    """A member of the family that needs a cutoff needs one from the multi-aspect measure."""
    m = params["m"]
    if BY_NAME[m].cutoff == REQUIRED and cutoff is None:
        return f"m={m} needs a cutoff: give one to the multi-aspect measure, e.g. TOMA(m={m})@10"
    return None


def score_m(ctx: RunContext, m: str, cutoff: int | None, row_gains: RowGains, *args) -> np.ndarray:
    """Measure ``m`` on the gains ``row_gains(qrels, *args)`` of the judged documents."""
    member = BY_NAME[m]
    return member.kernel(row_gain_list(ctx, row_gains, *args), cutoff, **defaults(member))


@memoised
def aspect_row_gains(qrels: AspectQrels, j: int) -> np.ndarray:
    """The gain of each judged document's label on aspect ``j``."""
    aspect = qrels.aspects[j]
    table = np.array([aspect.gain(label) for label in aspect.labels])
    return table[np.searchsorted(aspect.labels, qrels.levels[:, j])]


def per_aspect(ctx: RunContext, m: str, cutoff: int | None) -> np.ndarray:
    """(T, A) measure m on each aspect's own gains."""
    columns = [score_m(ctx, m, cutoff, aspect_row_gains, j) for j in range(len(ctx.qrels.aspects))]
    return np.column_stack(columns) if columns else np.zeros((ctx.n_topics, 0))
