"""Simulated preference judgments from intentwise qrels (Chandar & Carterette 2013, sec. 4).

A user profile is a set of intents of a topic; the "TREC profile" holds every
intent with a relevant document. For each profile, the documents relevant to
at least one of its intents are judged (optionally only those of a pool):

* pairwise: of two documents, the one relevant to more profile intents is preferred;
* conditional (given g): the one relevant to more profile intents that g is not
  relevant to (an intent g covers counts ``covered_weight``, 0 in the paper);

every pair once (docA before docB in byte order), every such document given in
turn. Ties go to a fair coin drawn from a generator seeded by (seed, topic,
profile, given document), so the output depends on nothing but the inputs and
the seed; or, with ``ties="alphabetical"``, to docA.

Of n documents judged for a profile, that is n(n-1)/2 pairs and n (n-1)(n-2)/2
triplets: cubic in the judged documents, 65 million lines for TREC 2012's qrels.
So :func:`simulate` works out the :class:`SimulationSize` (lines exactly, bytes
about) before making any, and a caller can refuse a size it was not asked for.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import UsageError, WarningSink, describe_ids, emit_warning
from ..ids import natural_key
from ..io.preferences import PREFER_A, PREFER_B, PreferenceTable, Profiles
from .qrels import Qrels

KINDS = ("both", "pairs", "triplets")
TIE_RULES = ("random", "alphabetical")
TREC_PROFILE = "TREC"


@dataclass(frozen=True)
class Profile:
    """One simulated user of one topic: a name and the intent columns (of the qrels) it cares about."""

    topic: int
    name: str
    columns: tuple[int, ...]


def profiles_of(qrels: Qrels, profiles: Profiles | None, warn: WarningSink = emit_warning) -> list[Profile]:
    """The profiles to simulate, by topic (natural order) then profile name; the TREC profile without a file."""
    if profiles is None:
        return [Profile(t, TREC_PROFILE, tuple(range(int(qrels.n_intents[t])))) for t in range(qrels.n_topics)
                if qrels.n_intents[t] > 0]
    topic_of = {tid: t for t, tid in enumerate(qrels.topic_ids)}
    intents: dict[tuple[int, str], set[int]] = {}
    unknown_topics, unknown_intents = set(), []
    for tid, name, intent in zip(profiles.topic, profiles.profile, profiles.intent):
        t = topic_of.get(tid)
        if t is None:
            unknown_topics.add(tid)
            continue
        chosen = intents.setdefault((t, name), set())
        if intent in qrels.intent_ids[t]:
            chosen.add(qrels.intent_ids[t].index(intent))
        else:
            unknown_intents.append(f"{tid}/{name}/{intent}")
    if unknown_topics:
        warn(f"{profiles.name}: topics not in the qrels are ignored: "
             f"{describe_ids(sorted(unknown_topics, key=natural_key))}")
    if unknown_intents:
        warn(f"{profiles.name}: intents without a relevant document in the qrels are ignored (topic/profile/intent): "
             f"{describe_ids(unknown_intents)}")
    without = [tid for t, tid in enumerate(qrels.topic_ids)
               if qrels.n_intents[t] > 0 and not any(key[0] == t for key in intents)]
    if without:
        warn(f"{profiles.name}: topics without a profile get no judgments: {describe_ids(without)}")
    return [Profile(t, name, tuple(sorted(columns)))
            for (t, name), columns in sorted(intents.items(), key=lambda item: (item[0][0], natural_key(item[0][1])))]


@dataclass(frozen=True)
class SimulationSize:
    """What a simulation will write, known before it starts: judgments (lines) exactly, bytes about
    (each winner counted as the mean length of its two documents), and its largest profile."""

    lines: int
    bytes: int
    largest: tuple[str, str, int] | None   # (topic, profile, documents judged) of the profile judged most


class Simulation(Iterator[PreferenceTable]):
    """The simulated judgments of each profile in turn (pairwise first, then each given document in docno
    order), made as they are iterated; :attr:`size` says before the first what they will amount to."""

    def __init__(self, qrels: Qrels, profiles: list[Profile], *, kind: str = "both", ties: str = "random",
                 seed: int = 0, covered_weight: float = 0.0, pool: np.ndarray | None = None) -> None:
        if kind not in KINDS or ties not in TIE_RULES:
            raise ValueError(f"unknown kind {kind!r} or tie rule {ties!r}")
        if seed < 0:  # numpy's generators take no negative seed
            raise UsageError(f"the seed must be at least 0, not {seed}")
        self.size = _size(qrels, profiles, kind, pool)
        self._tables = _simulated(qrels, profiles, kind, ties, seed, covered_weight, pool)

    def __next__(self) -> PreferenceTable:
        return next(self._tables)


def simulate(qrels: Qrels, profiles: list[Profile], *, kind: str = "both", ties: str = "random", seed: int = 0,
             covered_weight: float = 0.0, pool: np.ndarray | None = None) -> Simulation:
    """The simulated judgments of each profile in turn, with their :class:`SimulationSize` as ``.size``.

    pool: (rows,) bool, the judged rows that may be judged (None: all).
    The arguments are checked now, the judgments made as they are taken.
    """
    return Simulation(qrels, profiles, kind=kind, ties=ties, seed=seed, covered_weight=covered_weight, pool=pool)


def _judged_rows(qrels: Qrels, profile: Profile, pool: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``profile``'s topic it judges (relevant to one of its intents, and pooled), and their
    (rows, profile intents) relevance."""
    start, stop = qrels.row_start[profile.topic], qrels.row_start[profile.topic + 1]
    relevant = qrels.levels[start:stop][:, list(profile.columns)] >= 1   # (documents, profile intents)
    judged = relevant.any(axis=1)
    if pool is not None:
        judged &= pool[start:stop]
    rows = np.flatnonzero(judged)
    return start + rows, relevant[rows]


def _size(qrels: Qrels, profiles: list[Profile], kind: str, pool: np.ndarray | None) -> SimulationSize:
    """Of n judged documents (byte lengths summing to S), a profile writes n(n-1)/2 pairs and n times
    (n-1)(n-2)/2 triplets; every document is in n-1 pairs, and, given each other one, in n-2 triplets."""
    import pyarrow.compute as pc

    docno_bytes = np.asarray(pc.binary_length(qrels.docnos), dtype=np.int64)
    n_docnos = len(docno_bytes)
    lines = size = 0
    largest, most = None, 0
    for profile in profiles:
        rows, _ = _judged_rows(qrels, profile, pool)
        n = len(rows)
        if n < 2:
            continue
        total = int(docno_bytes[qrels.row_key[rows] % n_docnos].sum())
        prefix = sum(len(text.encode("utf-8", "surrogateescape")) + 1
                     for text in (qrels.topic_ids[profile.topic], profile.name))
        pairs, triplets = n * (n - 1) // 2, n * ((n - 1) * (n - 2) // 2)
        written = 0
        if kind != "triplets":   # 'topic profile a b winner': the winner as long as the mean of a and b
            written += pairs
            size += pairs * (prefix + 3) + 1.5 * (n - 1) * total
        if kind != "pairs":      # 'topic profile given a b winner'
            written += triplets
            size += triplets * (prefix + 4) + (triplets // n) * total + 1.5 * (n - 1) * (n - 2) * total
        lines += written
        if written > most:
            largest, most = (qrels.topic_ids[profile.topic], profile.name, n), written
    return SimulationSize(lines, int(round(size)), largest)


def _simulated(qrels: Qrels, profiles: list[Profile], kind: str, ties: str, seed: int, covered_weight: float,
               pool: np.ndarray | None) -> Iterator[PreferenceTable]:
    docno_text = [d.decode("utf-8", "surrogateescape") for d in qrels.docnos.to_pylist()]
    n_docnos = len(docno_text)
    profile_index: dict[int, int] = {}
    for profile in profiles:
        t = profile.topic
        number = profile_index[t] = profile_index.get(t, -1) + 1
        rows, relevant = _judged_rows(qrels, profile, pool)
        if len(rows) < 2:
            continue
        names = np.array([docno_text[int(key % n_docnos)] for key in qrels.row_key[rows]], dtype=object)
        first, second = np.triu_indices(len(rows), 1)
        tables = []
        if kind != "triplets":
            counts = relevant.sum(axis=1).astype(np.float64)
            generator = np.random.default_rng([seed, t, number, 0])
            tables.append(_judged(qrels.topic_ids[t], profile.name, "", names, first, second, counts, ties, generator))
        if kind != "pairs":
            for g in range(len(rows)):
                covered = relevant[g]
                scores = (relevant & ~covered).sum(axis=1) + covered_weight * (relevant & covered).sum(axis=1)
                keep = (first != g) & (second != g)
                generator = np.random.default_rng([seed, t, number, g + 1])
                tables.append(_judged(qrels.topic_ids[t], profile.name, names[g], names, first[keep], second[keep],
                                      scores.astype(np.float64), ties, generator))
        yield _concatenated(tables)


def _judged(topic: str, assessor: str, given: str, names: np.ndarray, first: np.ndarray, second: np.ndarray,
            scores: np.ndarray, ties: str, generator: np.random.Generator) -> PreferenceTable:
    """Judgments of the pairs (first, second): the higher score is preferred; ties by the rule."""
    outcome = np.where(scores[first] > scores[second], PREFER_A, PREFER_B).astype(np.int8)
    tied = scores[first] == scores[second]
    if ties == "alphabetical":
        outcome[tied] = PREFER_A
    else:
        outcome[tied] = np.where(generator.random(int(tied.sum())) < 0.5, PREFER_A, PREFER_B)
    count = len(first)
    return PreferenceTable("<simulated>", np.full(count, topic, dtype=object), np.full(count, assessor, dtype=object),
                           np.full(count, given, dtype=object), names[first], names[second], outcome,
                           np.arange(1, count + 1, dtype=np.int64))


def _concatenated(tables: list[PreferenceTable]) -> PreferenceTable:
    parts = [np.concatenate([getattr(t, name) for t in tables])
             for name in ("topic", "assessor", "given", "doc_a", "doc_b", "outcome")]
    return PreferenceTable("<simulated>", *parts, np.arange(1, len(parts[0]) + 1, dtype=np.int64))
