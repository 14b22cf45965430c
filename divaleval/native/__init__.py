"""Compiled kernels (optional), each behind a plain function that takes it or its twin.

The C kernels (one file per concern: lines.c, parse.c, match.c, print.c, sums.c) are
built into ``_kernels`` when divaleval is installed where a C compiler is found;
where they are not built, or ``DIVALEVAL_NATIVE=0`` is set, no kernel is taken.
Only this package calls them (tests/test_layers.py says so); the rest of
divaleval calls these functions on plain arrays:

* :func:`masked_row_sums`, :func:`cut_row_sums`, :func:`blended_ratio`, :func:`p_plus_parts`,
  :func:`cut_p_plus_parts`, :func:`err_probability`, :func:`gain_list_sums`, :func:`gap_terms`,
  :func:`inferred_precision_sums`, :func:`bpref_sums` (native/sums.py): the
  compiled kernel where it is taken, else its numpy twin, beside it; each kernel whose bits
  depend on how numpy sums probed once against its twin, bit for bit. (Measures
  reach them through divaleval/arrays.py: a measure reads as its formula.)
* :func:`hit_pairs`, :func:`pair_sums`, :func:`graded_pair_sums`, :func:`pair_layout`,
  :func:`pair_running_sums` (native/hits.py): the (hit, intent) pairs of a ranking's hits, each hit's sum over
  its pairs (its graded novelty gain's among them), the pairs grouped by (topic, intent), and running sums within those
  groups, by the kernel where it is taken, else by its numpy twin beside it.
* :func:`greedy_ranking_gains` (native/greedy.py): the gains of the novelty measures' greedy ideal ranking,
  topic by topic, by the kernel where it is taken (probed once against its twin), else by its numpy twin
  beside it.
* :func:`split_fields`, :func:`split_run`, :func:`split_qrels`, :func:`match_keys`, :func:`fixed_rows`
  (native/text.py): the kernel's answer, or None where it is not taken or
  declines; the caller's own path (io/lines's numpy splitter, io/table's reader,
  model/text_keys.py's numpy table, output's printf) then gives the same, and
  names the line of any problem.

A kernel either gives what its twin gives, value for value, or declines: only
the plain case is taken. Each is looked up by name (native/compiled.py), so any
one can be dropped alone and only its speed is lost. tests/test_native_kernels.py
(split_qrels: tests/test_native_qrels.py) holds every kernel to its twin.
"""
from __future__ import annotations

from .compiled import ENVIRONMENT, built, in_use, kernel, kernels, probe_all
from .greedy import greedy_ranking_gains
from .hits import (PairLayout, Passes, graded_pair_sums, hit_pairs, pair_layout, pair_passes, pair_running_sums,
                   pair_sums)
from .sums import (TERM_KINDS, GainListSums, blended_ratio, bpref_sums, cut_p_plus_parts, cut_row_sums,
                   err_probability, gain_list_sums, gap_terms, inferred_precision_sums, masked_row_sums, p_plus_parts)
from .text import KeyArrays, SplitQrels, SplitRun, fixed_rows, match_keys, split_fields, split_qrels, split_run

__all__ = ["ENVIRONMENT", "GainListSums", "KeyArrays", "TERM_KINDS", "PairLayout", "Passes", "SplitQrels", "SplitRun", "blended_ratio", "bpref_sums", "built", "cut_p_plus_parts", "cut_row_sums", "err_probability", "fixed_rows", "gain_list_sums", "gap_terms", "graded_pair_sums", "greedy_ranking_gains", "hit_pairs", "in_use", "inferred_precision_sums", "kernel", "kernels", "masked_row_sums",
           "match_keys", "p_plus_parts", "pair_layout", "pair_passes", "pair_running_sums", "pair_sums", "split_fields", "split_qrels", "split_run"]
