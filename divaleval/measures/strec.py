"""strec@k: subtopic recall (NTCIREVAL's I-rec@k is the same kernel under its own name)."""
from __future__ import annotations

from .core import REQUIRED, measure
from .core.kernels import covered_intent_share

ZHAI = ("Zhai, Cohen, Lafferty. Beyond independent relevance: methods and evaluation metrics "
        "for subtopic retrieval. SIGIR 2003")

strec = measure(
    name="strec",
    binary=True,
    separable=True,
    summary="share of the intents covered by the top k",
    cutoff=REQUIRED,
    citation=ZHAI,
    formula="strec@k = |{i: some d_r with r <= k is relevant to i}| / N",
)(covered_intent_share)
