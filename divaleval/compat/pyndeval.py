"""pyndeval's order: how pyndeval (ndeval's C code behind a Python API) and ir_measures' provider of
its diversity measures rank a run.

They order each topic's documents by score, descending, and break ties by docno, ascending in byte
order, where ndeval (and ``divaleval ndeval``) breaks them by docno descending. divaleval's
ir_measures provider ranks runs this way, so that its values are the ones pyndeval's provider gives.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..arrays import group_positions
from ..io import RunTable

ORDER = "rank"  # the evaluation's order once the ranks below are set


def in_pyndeval_order(run: RunTable) -> RunTable:
    """The run with its ranks set to pyndeval's order (score descending, ties by docno ascending)."""
    keys = pa.table({"topic": run.topic.codes, "score": run.score, "docno": run.docno})
    order = pc.sort_indices(keys, sort_keys=[("topic", "ascending"), ("score", "descending"),
                                             ("docno", "ascending")]).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = group_positions(run.topic.codes[order])
    return RunTable(run.name, run.runid, run.topic, run.docno, rank, run.score, run.line,
                    extra_fields=run.extra_fields)
