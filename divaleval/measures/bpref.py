"""bpref, binary preference (Buckley & Voorhees 2004), as trec_eval computes it.

For one topic with R relevant and N judged non-relevant documents:

    bpref = (1/R) sum over the relevant documents d of the ranking of
            1 - min(n_d, R) / min(N, R)     (1 when n_d = 0)

with n_d the judged non-relevant documents ranked above d. Unjudged documents
count for nothing, so bpref is the same on a condensed list (``-J``). A document
is relevant when its topicwise level (ad hoc qrels: its level; intentwise
qrels: the ``--topicwise`` level) reaches 1, or the ``--rel-min`` threshold; a
judged document below it is non-relevant. As in trec_eval, a document judged
only negatively (TREC's -2) is "pooled but not judged": in neither count.
"""
from __future__ import annotations

import numpy as np

from ..arrays import bpref_sums
from ..context import RunContext
from ..model.qrels import Qrels
from .core import measure, memoised
from .core.kernels import divide_or_zero
from .ncu.lists import topicwise_row_levels


@memoised
def judged_classes(qrels: Qrels, topicwise: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(relevant row?, judged non-relevant row?, R per topic, N per topic) of these qrels."""
    level = topicwise_row_levels(qrels, topicwise)
    relevant = qrels.row_judged & (level >= 1)
    nonrelevant = qrels.row_judged & (level < 1)
    return (relevant, nonrelevant, np.bincount(qrels.row_topic[relevant], minlength=qrels.n_topics),
            np.bincount(qrels.row_topic[nonrelevant], minlength=qrels.n_topics))


@measure(
    name="bpref",
    summary="share of the judged non-relevant documents (the first R) ranked below each relevant one "
            "(trec_eval's bpref)",
    citation="Buckley, Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004 (trec_eval's bpref)",
    binary=True,
)
def bpref(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """bpref = (1/R) sum_{relevant d ranked} (1 - min(n_d, R) / min(N, R)), n_d the judged non-relevant above d"""
    relevant_row, nonrelevant_row, rel_total, nonrel_total = judged_classes(ctx.qrels, ctx.settings.topicwise)
    topic, row, _ = ctx.judged_lines  # judged documents of the scored topics, in rank order
    # Each topic's terms are added in rank order, as trec_eval adds them.
    total = bpref_sums(topic, relevant_row[row], nonrelevant_row[row], rel_total[ctx.topics], nonrel_total[ctx.topics])
    return divide_or_zero(total, rel_total[ctx.topics])
