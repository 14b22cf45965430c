"""The ad hoc NCU measures (nDCG, Q, AP, Prec, RR, ERR, ...), on topicwise gains.

The topicwise gain of a document is the gain of its level in ad hoc qrels, or,
from intentwise qrels, of one level derived from its intentwise levels
(``--topicwise``). Definitions: :mod:`.kernels`.
"""
from __future__ import annotations

import numpy as np

from ...context import RunContext
from ..core import measure
from .family import ADHOC, Member, members
from .lists import topicwise_gain_list

SAKAI_ZENG = ("Sakai, Zeng. Which diversity evaluation measures are \"good\"? SIGIR 2019 (sec. 3.1); "
              "NTCIREVAL (Sakai)")


def _register(member: Member) -> None:
    def kernel(ctx: RunContext, *, cutoff: int | None, **params) -> np.ndarray:
        return member.kernel(topicwise_gain_list(ctx), cutoff, **params)

    kernel.__doc__ = (f"{member.name}: {member.summary}, on topicwise gains.\n\n"
                      "Definitions: see :mod:`divaleval.measures.ncu.kernels` "
                      "(e.g. Q@k = (1/min(k,R)) sum I(r) BR(r)).")
    measure(name=member.name, summary=member.summary + " (topicwise gains)", params=member.params,
            cutoff=member.cutoff, citation=SAKAI_ZENG, binary=member.binary)(kernel)


for _member in members(ADHOC):
    _register(_member)
