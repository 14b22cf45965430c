"""The two trec_eval versions this drop-in follows, and what differs between them, as data.

9.0.7 (tag v9.0.8; what pytrec_eval and ir_measures embed) and 10.0 (the
repository's head) differ, per 10.0's change log and the reference outputs in
../shared/oracle, in: how a cutoff derived from a fraction (a recall level of
iprec_at_recall, a multiple of R in Rprec_mult) becomes a whole number of
documents (truncated by 9.0, rounded by 10.0); the measures of all_trec (10.0
adds rbp, rbp_resid, unj_5/10/20); '#' comment lines (accepted by 10.0); and a
qrels topic without results (skipped by 9.0, an error with exit 4 in 10.0
unless -c).
"""
from __future__ import annotations

import numpy as np
from dataclasses import dataclass


@dataclass(frozen=True)
class Version:
    name: str
    rounds_fraction_cutoffs: bool  # iprec_at_recall's cutoffs: 10.0 rounds x * R; 9.0 see tenth_ceiling
    extra_all_trec: tuple[str, ...]  # measures all_trec holds in this version beyond 9.0's
    comment_lines: bool            # lines starting with '#' are skipped
    stdin_results: bool            # '-' reads the results from standard input
    missing_topic_stops: bool      # a qrels topic with no results stops with exit 4 (unless -c)

    def recall_cutoffs(self, level: float, num_rel: np.ndarray) -> np.ndarray:
        """The relevant documents a recall level of iprec_at_recall stands for, topic by topic."""
        value = level * num_rel
        return np.floor(value + 0.5).astype(np.int64) if self.rounds_fraction_cutoffs else tenth_ceilings(value)


def tenth_ceilings(values: np.ndarray) -> np.ndarray:
    """9.0's whole number for a fraction of a count (the reference outputs' rule): the ceiling, except
    that a part of at most a tenth above a whole number (0.3 * 67 = 20.099999999999998) is dropped."""
    return np.floor(values + 0.9).astype(np.int64)  # (C's truncation: the values are not negative)


TREC_EVAL_9 = Version("9.0.7", False, (), False, False, False)
TREC_EVAL_10 = Version("10.0", True, ("rbp", "rbp_resid", "unj"), True, True, True)
VERSIONS = {"9": TREC_EVAL_9, "10": TREC_EVAL_10}
