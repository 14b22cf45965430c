"""infAP, inferred average precision (Yilmaz & Aslam 2006), as trec_eval computes it.

AP estimated from judgments that cover a random sample of the pool. A
document in the qrels is *pooled*; it is *judged* (sampled) when some level is
0 or more; a document judged only negatively (TREC's -1 or -2) is pooled but
not judged. For the relevant document at rank k, with, among the k - 1
documents above it, p pooled, r relevant and n judged non-relevant, the
expected precision at k is

    E[prec@k] = 1                                                     (k = 1)
    E[prec@k] = 1/k + ((k-1)/k) (p/(k-1)) (r + eps) / (r + n + 2 eps)  (k > 1), eps = 0.00001

(the chance a document above is pooled, times the share of relevant ones among
the judged ones, smoothed by eps where none is judged), and

    infAP = (1/R) sum over the relevant ranked documents of E[prec@k]

with R the relevant documents of the qrels. Where every pooled document is
judged it is close to AP (eps keeps it a little below). Relevance is
binary: a topicwise level reaching 1, or ``--rel-min``.
"""
from __future__ import annotations

import numpy as np

from ..arrays import inferred_precision_sums
from ..context import RunContext
from .bpref import judged_classes
from .core import measure
from .core.kernels import divide_or_zero

SMOOTHING = 0.00001  # eps: keeps the estimate defined where nothing above is judged


@measure(
    name="infAP",
    summary="inferred AP: AP estimated where only a sample of the pool is judged (trec_eval's infAP)",
    citation="Yilmaz, Aslam. Estimating average precision with incomplete and imperfect judgments. "
             "CIKM 2006 (trec_eval's infAP)",
    binary=True,
)
def inferred_average_precision(ctx: RunContext, *, cutoff: None = None) -> np.ndarray:
    """infAP = (1/R) sum_{relevant d ranked} E[prec@k_d],  E[prec@1] = 1,
    E[prec@k] = 1/k + ((k-1)/k) (p/(k-1)) (r + eps) / (r + n + 2 eps): p pooled, r relevant and n judged
    non-relevant documents above rank k; eps = 0.00001"""
    relevant_row, nonrelevant_row, rel_total, _ = judged_classes(ctx.qrels, ctx.settings.topicwise)
    # The pooled documents of the scored topics, in rank order: only they add terms or count above one;
    # an unpooled document counts only in the ranks. Each topic's terms are added in rank order, as trec_eval.
    topic, row, rank = ctx.judged_lines
    total = inferred_precision_sums(topic, rank, relevant_row[row], nonrelevant_row[row], ctx.n_topics, SMOOTHING)
    return divide_or_zero(total, rel_total[ctx.topics])
