"""Preference judgments and user profiles: reading them, and writing judgments.

Preference judgments (no standard format exists; FORMATS.md):

* pairwise, ``topic assessor docA docB winner``: the assessor preferred ``winner``;
* conditional (a triplet), ``topic assessor given docA docB winner``: having read
  ``given``, the assessor would rather read ``winner`` next.

``winner`` is ``docA`` or ``docB`` written out, or ``-2`` (neither: both
non-relevant) or, for a triplet, ``-3`` (all three non-relevant): the dialect
of the first author's R package, whose files are triplets ``topic assessor top
left right pref``. One file may hold both kinds. Blank lines are skipped;
:data:`REPEAT_BLANK` reads a blank line as a repeat of the judgment above it
(what a C++ ``>>`` loop that ignores failed reads does).

User profiles (for simulated preferences): ``topic profile intent [intent ...]``,
one or more lines per profile, whose intents add up.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import InputError
from .lines import REPEAT_BLANK, SKIP_BLANK
from .source import InputFile, read_input
from .table import ID, Lines, memory_lines, read_columns, split_columns

PREFERENCE_LAYOUT = "topic assessor docA docB winner, or topic assessor given docA docB winner"
PROFILE_LAYOUT = "topic profile intent [intent ...]"

# Outcome codes of a judgment.
PREFER_A, PREFER_B, NEITHER, NONE_OF_THREE = 0, 1, 2, 3
NEITHER_TEXT = {"-2": NEITHER, "-3": NONE_OF_THREE}
OUTCOME_TEXT = {NEITHER: "-2", NONE_OF_THREE: "-3"}


@dataclass
class PreferenceTable(Lines):
    """Preference judgments, one entry per judgment (ids as object arrays of str).

    given: the given document of a triplet, ``""`` for a pairwise judgment.
    outcome: PREFER_A, PREFER_B, NEITHER (-2) or NONE_OF_THREE (-3).
    """

    name: str
    topic: np.ndarray
    assessor: np.ndarray
    given: np.ndarray
    doc_a: np.ndarray
    doc_b: np.ndarray
    outcome: np.ndarray   # int8
    line: np.ndarray      # int64, 1-based

    @classmethod
    def from_arrays(cls, topic, assessor, given, doc_a, doc_b, winner, name: str = "<memory>") -> "PreferenceTable":
        """Judgments given in memory, one per entry; ``given`` None (or ``""`` entries) for pairwise ones.

        ``winner`` holds docnos, ``-2`` or ``-3`` as a file does; a bad entry
        is an error naming its (1-based) position as the line.
        """
        columns = [_texts(values) for values in (topic, assessor, doc_a, doc_b, winner)]
        count = len(columns[0])
        given_texts = np.full(count, "", dtype=object) if given is None else _texts(given)
        if any(len(c) != count for c in (*columns, given_texts)):
            raise InputError(name, None, "every field needs one entry per judgment")
        topic, assessor, doc_a, doc_b, winner = columns
        return _validated(name, topic, assessor, given_texts, doc_a, doc_b, winner, memory_lines(count))

    def rows(self, keep: np.ndarray) -> "PreferenceTable":
        """The judgments where ``keep`` (a mask or indices) holds."""
        return PreferenceTable(self.name, self.topic[keep], self.assessor[keep], self.given[keep], self.doc_a[keep],
                               self.doc_b[keep], self.outcome[keep], self.line[keep])


def _texts(values) -> np.ndarray:
    return np.array([str(v) for v in values], dtype=object)


def read_preferences(source: str | InputFile, *, blank_lines: str = SKIP_BLANK) -> PreferenceTable:
    """Read pairwise and conditional preference judgments (see the module docstring)."""
    if isinstance(source, str):
        source = read_input(source)
    split = _fields_by_width(source)
    if split is None:
        columns = split_columns(source, 5, 6, hint=f" (expected: {PREFERENCE_LAYOUT})")
        fields, lines = columns.fields, columns.lines
    else:
        fields, lines = split
    if not len(lines):
        raise InputError(source.name, None, "preference file holds no judgments")
    if blank_lines == REPEAT_BLANK:
        repeated = _repeats_of_blank_lines(source.data, lines)
        fields = [f[repeated] for f in fields]
        lines = lines[repeated]
    triplet = fields[5] != ""
    given = np.where(triplet, fields[2], "").astype(object)
    doc_a = np.where(triplet, fields[3], fields[2]).astype(object)
    doc_b = np.where(triplet, fields[4], fields[3]).astype(object)
    winner = np.where(triplet, fields[5], fields[4]).astype(object)
    return _validated(source.name, fields[0], fields[1], given, doc_a, doc_b, winner, lines)


# Whitespace other than " " and "\n" sends a file to the careful reader (as do leading, trailing or double spaces).
_OTHER_WHITESPACE = (b"\t", b"\r", b"\x0b", b"\x0c")


def _fields_by_width(source: InputFile) -> tuple[list[np.ndarray], np.ndarray] | None:
    """(6 fields, the 6th "" on pairwise lines; line numbers), the file's 5- and 6-field lines each read
    by the fast reader; None for a file not plainly single-space separated, or with a line of another width."""
    data = source.data
    if any(mark in data for mark in _OTHER_WHITESPACE):
        return None
    raw = np.frombuffer(data, dtype=np.uint8)
    space = np.flatnonzero(raw == ord(" "))
    if len(space) and (space[0] == 0 or space[-1] == len(raw) - 1 or (np.diff(space) == 1).any()
                       or (raw[space - 1] == ord("\n")).any() or (raw[space + 1] == ord("\n")).any()):
        return None
    ends = np.flatnonzero(raw == ord("\n"))
    if not len(ends) or ends[-1] != len(raw) - 1:
        ends = np.append(ends, len(raw))  # a last line without its newline
    starts = np.r_[0, ends[:-1] + 1]
    spaces = np.bincount(np.searchsorted(ends, space), minlength=len(ends))
    widths = np.where(ends > starts, spaces + 1, 0)
    if not np.isin(widths, (0, 5, 6)).all():
        return None  # the careful reader names the line
    parts = []
    for width in (5, 6):
        rows = np.flatnonzero(widths == width)
        if not len(rows):
            continue
        keep = np.repeat(widths == width, np.minimum(ends + 1, len(raw)) - starts)  # each line with its newline
        part = InputFile(source.name, data=raw[keep].tobytes())
        try:
            columns = read_columns(part, [ID] * width, names=[f"field {j}" for j in range(1, width + 1)],
                                   layout=PREFERENCE_LAYOUT)
        except InputError as exc:  # located in the part: name the line of the file
            raise InputError(source.name, None if exc.line is None else int(rows[exc.line - 1]) + 1,
                             exc.reason) from None
        values = [field.values() for field in columns.fields]
        if width == 5:
            values.append(np.full(len(rows), "", dtype=object))
        parts.append((values, rows[np.asarray(columns.lines) - 1] + 1))
    if not parts:
        return [np.zeros(0, dtype=object)] * 6, np.zeros(0, dtype=np.int64)
    lines = np.concatenate([line for _, line in parts])
    order = np.argsort(lines, kind="stable")
    fields = [np.concatenate([values[j] for values, _ in parts])[order] for j in range(6)]
    return fields, lines[order]


def _repeats_of_blank_lines(data: bytes, lines: np.ndarray) -> np.ndarray:
    """Rows to read when a blank line repeats the judgment above it (blank lines before any judgment are skipped)."""
    text_lines = data.split(b"\n")
    if text_lines and text_lines[-1] == b"":
        text_lines.pop()  # the newline that ends the last line starts no line
    blank = np.flatnonzero(np.array([not raw.strip() for raw in text_lines], dtype=bool)) + 1
    if not len(blank):
        return np.arange(len(lines))
    above = np.searchsorted(lines, blank) - 1   # the judgment row each blank line follows
    above = above[above >= 0]
    return np.sort(np.concatenate([np.arange(len(lines)), above]), kind="stable")


def _validated(name: str, topic, assessor, given, doc_a, doc_b, winner, lines: np.ndarray) -> PreferenceTable:
    """The table, with every judgment checked; the first bad one is an error naming its line."""
    topic, assessor, given, doc_a, doc_b, winner = (np.asarray(a, dtype=object)
                                                    for a in (topic, assessor, given, doc_a, doc_b, winner))
    triplet = given != ""
    outcome = np.full(len(winner), -1, dtype=np.int8)
    outcome[winner == doc_a] = PREFER_A
    outcome[winner == doc_b] = PREFER_B
    for text, code in NEITHER_TEXT.items():
        outcome[winner == text] = code
    problems = [
        (doc_a == doc_b, lambda r: f"docA and docB are the same document {doc_a[r]}"),
        (triplet & ((given == doc_a) | (given == doc_b)),
         lambda r: f"the given document {given[r]} is also one of the two compared"),
        (outcome < 0, lambda r: f"winner {winner[r]!r} is neither docA ({doc_a[r]}) nor docB ({doc_b[r]}) "
                                f"nor -2 (neither)" + (" nor -3 (none of the three)" if triplet[r] else "")),
        (~triplet & (outcome == NONE_OF_THREE),
         lambda r: "winner -3 (none of the three) needs a triplet (topic assessor given docA docB winner)"),
    ]
    bad = np.zeros(len(winner), dtype=bool)
    for mask, _ in problems:
        bad |= mask
    if bad.any():
        row = int(np.argmax(bad))
        reason = next(describe(row) for mask, describe in problems if mask[row])
        raise InputError(name, int(lines[row]), reason)
    return PreferenceTable(name, topic, assessor, given, doc_a, doc_b, outcome, np.asarray(lines, dtype=np.int64))


def format_preferences(table: PreferenceTable, chunk: int = 1 << 16) -> Iterator[str]:
    """The judgments as file text (pairwise: 5 fields, triplets: 6; winners written out), in chunks of lines."""
    winner = np.where(table.outcome == PREFER_A, table.doc_a,
                      np.where(table.outcome == PREFER_B, table.doc_b,
                               np.where(table.outcome == NEITHER, OUTCOME_TEXT[NEITHER],
                                        OUTCOME_TEXT[NONE_OF_THREE])))
    for start in range(0, len(table), chunk):
        stop = start + chunk
        yield "".join(
            f"{t} {a} {g} {x} {y} {w}\n" if g else f"{t} {a} {x} {y} {w}\n"
            for t, a, g, x, y, w in zip(table.topic[start:stop], table.assessor[start:stop], table.given[start:stop],
                                        table.doc_a[start:stop], table.doc_b[start:stop], winner[start:stop]))


@dataclass
class Profiles(Lines):
    """User profiles: one entry per (topic, profile, intent) as given, with its line."""

    name: str
    topic: np.ndarray     # object arrays of str
    profile: np.ndarray
    intent: np.ndarray
    line: np.ndarray      # int64, 1-based


def read_profiles(source: str | InputFile) -> Profiles:
    """Read user profiles, ``topic profile intent [intent ...]`` (a profile's lines add up)."""
    if isinstance(source, str):
        source = read_input(source)
    topic, profile, intent, line = [], [], [], []
    for number, raw in enumerate(source.data.split(b"\n"), start=1):
        fields = raw.decode("utf-8", "surrogateescape").split()
        if not fields:
            continue
        if len(fields) < 3:
            raise InputError(source.name, number, f"expected at least 3 fields, found {len(fields)} "
                                                  f"(expected: {PROFILE_LAYOUT})")
        for value in fields[2:]:
            topic.append(fields[0])
            profile.append(fields[1])
            intent.append(value)
            line.append(number)
    if not topic:
        raise InputError(source.name, None, "profile file holds no profiles")
    return Profiles(source.name, *(np.array(v, dtype=object) for v in (topic, profile, intent)),
                    np.array(line, dtype=np.int64))
