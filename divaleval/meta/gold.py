"""Agreement of measures with gold preferences between runs (Sakai & Zeng 2019, sec. 6.3).

Each gold line says which of two runs' rankings of a topic is better. A measure
agrees when it scores the winner higher, disagrees when it scores it lower, and
ties otherwise; tau = (agreements - disagreements) / pairs (ties count in the
pairs only), with the Fisher-z interval over L = (1 + sqrt(1 + 8 pairs)) / 2.
The interval is computed from the exact tau (the paper computes it from tau
rounded to three decimals, which can move its third decimal by one).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from ..io.gold import GoldPreferences
from ..stats import fisher_interval, preference_tau, systems_from_pairs
from .cube import ScoreCube

if TYPE_CHECKING:
    import pandas as pd


def resolve_gold(cube: ScoreCube, gold: GoldPreferences) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(topic, run a, run b, +1 if a wins else -1) as indices into the cube, one per gold line."""
    topics = {topic: t for t, topic in enumerate(cube.topics)}
    resolved = np.empty((len(gold), 4), dtype=np.int64)
    for row in range(len(gold)):
        topic = gold.topic[row]
        if topic not in topics:
            raise gold.error(row, f"topic {topic!r} has no scores")
        runs = []
        for name in (gold.run_a[row], gold.run_b[row]):
            try:
                found = cube.find_run(name)
            except UsageError as exc:
                raise gold.error(row, str(exc)) from None
            if found is None:
                raise gold.error(row, f"{name!r} names none of the runs (by file, file name or runtag)")
            runs.append(found)
        if runs[0] == runs[1]:
            raise gold.error(row, f"{gold.run_a[row]!r} and {gold.run_b[row]!r} are one run")
        resolved[row] = (topics[topic], runs[0], runs[1], 1 if gold.winner[row] == gold.run_a[row] else -1)
    return tuple(resolved.T)


def gold_agreement(cube: ScoreCube, gold: GoldPreferences, level: float = 0.95) -> pd.DataFrame:
    """Per measure: agreements, disagreements, ties, pairs, tau and its interval."""
    import pandas as pd

    topic, run_a, run_b, winner = resolve_gold(cube, gold)
    decided = np.sign(cube.values[run_a, topic] - cube.values[run_b, topic])      # (pairs, measures)
    agree = (decided == winner[:, None]).sum(axis=0)
    disagree = (decided == -winner[:, None]).sum(axis=0)
    pairs = len(gold)
    tau = np.array([preference_tau(int(a), int(d), pairs) for a, d in zip(agree, disagree)])
    low, high = fisher_interval(tau, systems_from_pairs(pairs), level)
    return pd.DataFrame({"measure": list(cube.measures), "agree": agree, "disagree": disagree,
                         "ties": pairs - agree - disagree, "pairs": pairs, "tau": tau, "ci_low": low,
                         "ci_high": high})
