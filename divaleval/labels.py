"""Short, unique names for runs: what every report prints, the full key kept beside it.

A run is keyed by its file (results.py), which is unique but long, and carries a
runtag, which is short but often shared: the eight baseline runs of the TREC 2012
Web track all say ``indri``. A run's label is

* its runtag, when the runtags of the runs shown together are all different;
* else the shortest suffix of its key's path (whole components) that no other
  run's key ends with: ``rm/results-cata.txt`` beside ``ql/results-cata.txt``.

Each run gets the same number of components, the fewest that make every label
different, so that labels read alike in a column; a key that is a suffix of
another (``a/run`` and ``run``) keeps its whole path. Reports print the label and
keep the key in a legend or a tooltip (:func:`legend`).
"""
from __future__ import annotations

import os
from typing import Sequence


def _components(key: str) -> list[str]:
    parts = [part for part in key.replace(os.sep, "/").split("/") if part not in ("", ".")]
    return parts or [key]


def path_labels(keys: Sequence[str]) -> list[str]:
    """The shortest path suffixes (in whole components, the same number for every key) that tell the keys apart;
    a key left ambiguous at every length (one a suffix of another) is given whole."""
    split = [_components(key) for key in keys]
    longest = max((len(parts) for parts in split), default=0)
    for depth in range(1, longest + 1):
        labels = ["/".join(parts[-depth:]) for parts in split]
        if len(set(labels)) == len(labels):
            return labels
    counts: dict[str, int] = {}
    shortest = ["/".join(parts[-1:]) for parts in split]
    for label in shortest:
        counts[label] = counts.get(label, 0) + 1
    return [label if counts[label] == 1 else key for label, key in zip(shortest, keys)]


def run_labels(keys: Sequence[str], runids: Sequence[str] | None = None) -> list[str]:
    """One short, unique label per run (see the module): the runtags if they are unique, else path suffixes."""
    keys = [str(key) for key in keys]
    if runids is not None and len(runids) == len(keys):
        tags = [str(runid) for runid in runids]
        if all(tags) and len(set(tags)) == len(tags):
            return tags
    return path_labels(keys)


def legend(keys: Sequence[str], labels: Sequence[str]) -> list[tuple[str, str]]:
    """(label, key) of every run whose label is not its key: what a report lists under its tables."""
    return [(label, key) for key, label in zip(keys, labels) if label != key]
