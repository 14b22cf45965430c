"""CT@k, the Cube Test (Luo et al. 2013), in the form of Amigó et al. 2018, sec. 4.3."""
from __future__ import annotations

import numpy as np

from ...context import PAST_END, RunContext
from ..core import REQUIRED, Param, measure, positive
from ..core.kernels import masked_row_sums, summed_columns
from .gains import ALPHA
from .graded import graded_novelty_gains


@measure(
    name="CT",
    summary="aspect-weighted novelty gain over the rank, while the aspect is unsaturated (Amigo et al. sec. "
            "4.3 leaves f_Sat open: 1 while the relevance gathered above r is below level, Luo et al.'s height 1)",
    params=[
        ALPHA,
        Param("level", float, 1.0, "saturation level of an aspect (the cube's height)", positive),
    ],
    cutoff=REQUIRED,
    citation="Luo, Wing, Yang, Hearst. The water filling model and the cube test: multi-dimensional "
             "evaluation for professional search. CIKM 2013; as written in Amigo et al., SIGIR 2018, sec. 4.3",
)
def cube_test(ctx: RunContext, *, alpha: float, level: float, cutoff: int) -> np.ndarray:
    """CT@k = sum_{r<=k} (1/r) sum_i P(i) r(d_r,i) (1-alpha)^c(r,i) f_Sat(r,i)

    f_Sat(r, i) = 1 while the relevance already gathered for intent i,
    sum_{t<r} r(d_t, i), is below ``level``, else 0 (the paper defines f_Sat
    only as "0 or 1 depending if the sum of relevance of documents for the
    aspect exceeds a certain saturation level"; this is that test, applied to
    the documents above r, with Luo et al.'s cube height 1 as the default).
    r(d, i) = (2^L - 1)/2^Lmax(i); time is linear in the rank (the 1/r).
    """
    # Only the hits ranked <= k count: the gains of the hits down to the call's deepest cutoff (one set for every
    # cutoff), which are those of the whole ranking's first hits.
    depth = max([c for c in ctx.cutoffs if c is not None] + [cutoff])
    gain = graded_novelty_gains(ctx, alpha, level, depth)
    # Only the leading columns can hold ranks <= k: their sum has the bits of the sum over every column (the
    # columns of the whole ranking's hits: past the first hits', zeros).
    columns = summed_columns(ctx.hits.width, cutoff)
    gain = _leading_columns(gain, columns, 0.0)
    position = _leading_columns(ctx.hits_to(depth).position, columns, PAST_END)
    within = position <= cutoff
    return masked_row_sums(gain / np.where(within, position, 1), within, columns)


def _leading_columns(grid: np.ndarray, columns: int, fill) -> np.ndarray:
    """The first ``columns`` columns of ``grid``, ``fill`` past its own."""
    if grid.shape[1] >= columns:
        return grid[:, :columns]
    return np.concatenate([grid, np.full((len(grid), columns - grid.shape[1]), fill, dtype=grid.dtype)], axis=1)
