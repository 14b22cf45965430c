"""NTCIREVAL's conventions (Sakai's NTCIR evaluation package), as a :class:`Conventions` object.

What NTCIREVAL does differently from divaleval's own defaults:

* runs are read in file order, the first 1000 documents of each topic, and a
  repeated docno is evaluated at each of its ranks;
* it prints values with 4 decimals, combines D# and IA measures from components
  it has already printed so, and averages the printed values (NEV2mean);
* global gains come from its Grelv files, written with awk's %.6g: the ideal
  lists keep those 6 digits, but a run's documents are labelled with their
  gains printed with 4 decimals (its glabel step), and the D-measures read the
  run's gains from those labels (so 0.035322 in the ideal list is 0.0353 in the
  run);
* its ad hoc measures take hg from the -g gain table.
"""
from __future__ import annotations

from ..model.conventions import Conventions

NTCIREVAL = Conventions(
    name="ntcireval",
    summary="NTCIREVAL: file order, the first 1000 documents, repeated docnos kept, values and D#/IA components "
            "rounded to 4 decimals, global gains to 6 digits (a run's to 4 decimals)",
    order="file",
    depth=1000,
    duplicates="keep",
    value_decimals=4,
    component_decimals=4,
    mean_decimals=4,
    global_gain_digits=6,
    run_gain_decimals=4,
    top_gain_from_table=True,
)
