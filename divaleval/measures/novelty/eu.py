"""EU, Expected Utility (Yang & Lad 2009), in the form of Amigó et al. 2018, sec. 4.3."""
from __future__ import annotations

import numpy as np

from ...context import PAST_END, RunContext
from ..core import EFFORT, OPTIONAL, measure
from ..core.kernels import masked_row_sums, summed_columns
from .gains import ALPHA
from .graded import graded_novelty_gains


@measure(
    name="EU",
    summary="aspect-weighted novelty gain over 1 + log2(r), minus e per document (Amigo et al. sec. 4.3 "
            "leaves the log base and e's place open: base 2 as in alpha-nDCG, e at every rank as Conf needs)",
    params=[ALPHA, EFFORT],
    cutoff=OPTIONAL,
    citation="Yang, Lad. Modeling expected utility of multi-session information distillation. ICTIR 2009; "
             "as written in Amigo, Spina, Carrillo-de-Albornoz, SIGIR 2018, sec. 4.3",
)
def expected_utility(ctx: RunContext, *, alpha: float, e: float, cutoff: int | None) -> np.ndarray:
    """EU = sum_{r <= |d|} ( [sum_i P(i) r(d_r,i) (1-alpha)^c(r,i)] / (1 + log2 r) - e )

    r(d, i) = (2^L - 1)/2^Lmax(i); c(r, i) the documents above r relevant to i;
    P(i) from --iprob, else uniform. The effort is paid at every rank (up to k
    with a cutoff). The paper's extracted formula leaves the log base and the
    place of e open; this reading takes base 2 (as alpha-nDCG, which the paper
    says EU extends) and e per document (the cost that makes EU satisfy Conf).
    """
    gain = graded_novelty_gains(ctx, alpha)
    # Only the leading columns can hold ranks <= k: their sum has the bits of the sum over every column.
    columns = summed_columns(gain.shape[1], cutoff)
    position = ctx.hits.position[:, :columns]
    within = position <= (PAST_END - 1 if cutoff is None else cutoff)
    discount = 1.0 + np.log2(np.where(within, position, 1))
    utility = masked_row_sums(gain[:, :columns] / discount, within, columns)
    depth = ctx.ranking_lengths
    if cutoff is not None:
        depth = np.minimum(depth, cutoff)
    return utility - e * depth
