"""evalIR's conventions (Chandar's R package for preference-based evaluation), as a :class:`Conventions` object.

What evalIR (github semanticpc/evalIR, the version whose C++ modules load,
function ``eval.utility``) does differently from the paper (Chandar &
Carterette, SIGIR 2013) and from divaleval's own nPrf, first in how it reads
and scores preference judgments (:data:`EVALIR_PREFERENCES`):

* a utility is preferred / (shown + 2), never undefined (0 when nothing was shown);
* a file holds triplets only, and every triplet also counts as a pairwise
  judgment (U(d) from all triplets): divaleval does so natively for a topic
  without pairwise judgments, which is every topic of such a file;
* from rank 2 on, F ranges over U(d_i) and U(d_i | d_j), j < i; the average
  divides by all of them (a document never seen as given counts 0), the
  minimum leaves out the documents never seen as given;
* Prf@K = sum_{k<=K} sum_{i<=k} P(i) U_i;
* the "ideal" is the K largest entries of the (given document, document)
  utility table, sorted, not a ranking;
* its C++ reader repeats the judgment above for every blank line (the last
  line of the package's own toy file is read three times);
* simulated conditional preferences (``divaleval simulate-preferences``)
  count an intent the given document covers 0.5, not 0 (``alpha = 0.5``);

then in how it reads runs (:data:`EVALIR`):

* a run is read as its first 1000 lines of each topic, in file order; lines with
  a score <= 0 are left out; the rest is ordered by score, then docno, descending.

Its P(k) are the paper's, with theta = 0.5 for RBP (divaleval's default too).
"""
from __future__ import annotations

from ..io.lines import REPEAT_BLANK
from ..model.conventions import Conventions
from ..model.preference_rules import PreferenceRules

EVALIR_PREFERENCES = PreferenceRules(
    blank_lines=REPEAT_BLANK,
    smoothing=2.0,
    utility_with_unconditional=True,
    minimum_skips_unseen_given=True,
    cumulate_weighted_utility=True,
    ideal="largest",
    simulated_covered_weight=0.5,
)

EVALIR = Conventions(
    name="evalir",
    summary="evalIR (nPrf): utilities preferred/(shown+2), F also over U(d), ideal = the K largest utilities, "
            "sum_k sum_{i<=k} P(i) U_i, a blank judgment line repeats the one above, run lines with score <= 0 "
            "dropped",
    order="score",
    drop_scores_at_most=0.0,
    lines_per_topic=1000,
    preference_rules=EVALIR_PREFERENCES,
)
