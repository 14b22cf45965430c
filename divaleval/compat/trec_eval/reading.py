"""Qrels and results read as trec_eval reads them (facts of its behaviour, reimplemented).

* Fields are separated by runs of C ``isspace`` (io/lines.py's splitter); a qrels
  line has four (topic, iteration, docno, grade), a results line six (topic,
  iteration, docno, rank, score, run name); a line with another count is an
  error naming FILE:LINE. 10.0 skips lines starting with ``#``.
* Topic ids and docnos are strings: topics are taken in ``strcmp`` order
  (``"100"`` before ``"51"``), not as numbers.
* A grade is a whole number (negative ones allowed: judged, never relevant);
  the rank column is ignored: documents are ranked by score descending, ties
  by docno descending (trec_eval's sort), scores read as C's ``atof``.
* A qrels pair given twice keeps its last grade.

Speed: with numpy alone (no Arrow, whose import costs more than reading a run),
and no Python work a line. A plain run (one space or one tab between six
fields, plain numbers: what runs are) is split by the compiled run splitter
(native.split_run, which parses its scores correctly rounded, as ``float``
does); anything else, or without the compiled kernels, by io/lines, its
scores of the plain decimal form converted by numpy's cast (which parses as
``float`` does), any other score (``2.5abc``, ``inf``, ``nan``, hex) by
:func:`_atof`. Fields become fixed-width numpy byte strings
(:func:`fixed_width`: numpy compares them byte by byte, unsigned, a prefix
first, as ``strcmp`` and Python's ``bytes`` do; they hold no NUL, which is
refused). A run already in rank order (as runs are written) is not sorted;
else by two stable sorts (score descending, then topic); then only its ties
of score are ordered by docno. A run with a NaN score is ranked by the Python
sort instead: NaN compares false with everything, so where it lands depends on
the sorting algorithm itself. A document's grade is found by one search of
64-bit keys (the topic, a hash of the docno) over the qrels', then the docno
compared whole where the key matched: no hash is taken for a docno.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ...errors import InputError
from ...io.lines import C_DIALECT, split
from ...io.source import BOM, InputFile
from ...native import split_run

DIALECT = replace(C_DIALECT, nul="a NUL byte")


class Qrels:
    """The qrels: topic -> its grades (``qrels[topic]``, topics in byte order by ``sorted``), and the
    grade of any (topic, docno), found by one search of a key a pair: the topic's number in the high
    bits, the docno's :func:`docno_hashes` in the others (the docno then compared whole)."""

    def __init__(self, topic: np.ndarray, docno: np.ndarray, grade: np.ndarray) -> None:
        # (topic, docno, grade): distinct pairs, sorted by topic
        cuts = [0, *(np.flatnonzero(topic[1:] != topic[:-1]) + 1).tolist(), len(topic)]
        self.topics = [topic[a].tobytes().rstrip(b"\0") for a in cuts[:-1]]
        self.index = {name: k for k, name in enumerate(self.topics)}
        self._grades = {name: grade[a:b] for name, a, b in zip(self.topics, cuts, cuts[1:])}
        topic_index = np.repeat(np.arange(len(self.topics), dtype=np.uint64), np.diff(cuts))
        self._topic_grades = (topic_index.astype(np.int64), grade, len(self.topics))
        self._judged: dict[int, Judged] = {}
        keys = self._keys(topic_index, docno_hashes(docno))
        order = np.argsort(keys)  # (equal keys, never seen, go to the dict of grades_of: their order is moot)
        self._sorted_keys, self._docno, self._grade = keys[order], docno[order], grade[order]
        self._topic_index = topic_index[order]
        self._by_key = not (self._sorted_keys[1:] == self._sorted_keys[:-1]).any()  # else (never seen) a dict

    def _keys(self, topic_index: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        bits = max(len(self.topics).bit_length(), 1)
        return (topic_index.astype(np.uint64) << np.uint64(64 - bits)) | (hashes >> np.uint64(bits))

    def judged(self, level: int) -> "Judged":
        """What the measures read of each topic's judgments at a relevance level (made once a level)."""
        if level not in self._judged:
            self._judged[level] = Judged.of(self._topic_grades, level)
        return self._judged[level]

    def __contains__(self, topic: bytes) -> bool:
        return topic in self._grades

    def __iter__(self):
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    def __getitem__(self, topic: bytes) -> np.ndarray:
        return self._grades[topic]

    def grades_of(self, topic_index: np.ndarray, docnos: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """The grade of each (topic's number, docno) (the docnos' hashes given; NaN where the qrels do not
        have the pair)."""
        if not len(self._sorted_keys):
            return np.full(len(docnos), np.nan)
        if not self._by_key:
            grade = dict(zip(zip(self._topic_index.tolist(), self._docno.tolist()), self._grade.tolist()))
            return np.array([grade.get(pair, np.nan) for pair in zip(topic_index.tolist(), docnos.tolist())],
                            dtype=np.float64)
        keys = self._keys(topic_index, hashes)
        at = np.minimum(np.searchsorted(self._sorted_keys, keys), len(self._sorted_keys) - 1)
        candidates = np.flatnonzero(self._sorted_keys[at] == keys)  # (then compared whole: those alone)
        found = candidates[self._docno[at[candidates]] == docnos[candidates]]
        grades = np.full(len(docnos), np.nan)
        grades[found] = self._grade[at[found]]
        return grades


@dataclass
class Judged:
    """Each qrels topic's (a row's) counts at a relevance level, and its grades as the gain measures'
    ideal ordering: best first (negative grades as 0), padded with 0."""

    num_rel: np.ndarray     # R: grades >= the level
    num_nonrel: np.ndarray  # judged grades below the level
    ideal: np.ndarray       # (topics, most judgments of a topic)

    @classmethod
    def of(cls, topic_grades: tuple[np.ndarray, np.ndarray, int], level: int) -> "Judged":
        topic, grade, count = topic_grades
        num_rel = np.bincount(topic, weights=grade >= level, minlength=count).astype(np.int64)
        num_nonrel = np.bincount(topic, weights=(grade >= 0) & (grade < level), minlength=count).astype(np.int64)
        gain = np.maximum(grade, 0.0)
        order = np.lexsort((-gain, topic))
        sizes = np.bincount(topic, minlength=count)
        firsts = np.cumsum(sizes) - sizes
        ideal = np.zeros((count, int(sizes.max(initial=0))))
        ideal[topic[order], np.arange(len(order)) - firsts[topic[order]]] = gain[order]
        return cls(num_rel, num_nonrel, ideal)

    def take(self, rows: np.ndarray) -> "Judged":
        return Judged(self.num_rel[rows], self.num_nonrel[rows], self.ideal[rows])


def words(texts: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings as rows of big-endian 64-bit words (zero-padded): compared word by word
    they order as the strings do."""
    width = texts.dtype.itemsize
    padded = np.zeros((len(texts), 8 * -(-width // 8)), np.uint8)
    padded[:, :width] = texts.view(np.uint8).reshape(len(texts), width)
    return padded.view(">u8").astype(np.uint64)


def docno_hashes(docnos: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each docno (fixed-width bytes), whatever the width they are held at: their bytes
    as 64-bit words, each times its own odd constant, added (modulo 2**64; the zero words of a wider array
    add nothing). Equal docnos hash alike; a hash is never taken for the docno (compared whole)."""
    width = docnos.dtype.itemsize
    padded = np.zeros((len(docnos), 8 * -(-width // 8)), np.uint8)
    padded[:, :width] = docnos.view(np.uint8).reshape(len(docnos), width)
    rows = padded.view("<u8")
    hashes = np.zeros(len(docnos), dtype=np.uint64)
    for k in range(rows.shape[1]):
        hashes += rows[:, k] * np.uint64((0x9E3779B97F4A7C15 * (k + 1) | 1) % 2**64)
    return hashes


@dataclass
class Run:
    """A run ranked as trec_eval ranks it: its topics in byte order, the docnos of topic k being
    ``docnos[bounds[k]:bounds[k + 1]]``, best first (with their :func:`docno_hashes`)."""

    name: bytes
    topics: list[bytes]
    bounds: np.ndarray
    docnos: np.ndarray  # fixed-width bytes

    def __post_init__(self) -> None:
        self.index = {topic: k for k, topic in enumerate(self.topics)}
        self.hashes = docno_hashes(self.docnos)

    def ranking(self, topic: bytes) -> list[bytes] | None:
        """The ranked docnos of a topic (None: the run has none)."""
        k = self.index.get(topic)
        return None if k is None else self.docnos[self.bounds[k]:self.bounds[k + 1]].tolist()


def fixed_width(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The fields ``data[start:end]`` as a numpy array of fixed-width byte strings (``S`` dtype): each
    field's window of the widest field's width, the bytes past its end zeroed."""
    lengths = ends - starts
    width = max(int(lengths.max(initial=0)), 1)
    shortest = int(lengths.min(initial=width))
    if len(starts) and int(starts.max()) + width > len(data):  # (a window past the end of the block)
        data = np.concatenate((data, np.zeros(width, np.uint8)))
    windows = np.lib.stride_tricks.sliding_window_view(data, width)[starts]
    if shortest < width:  # the bytes past each field's end (none where every field is as wide)
        windows[:, shortest:] *= np.arange(shortest, width) < lengths[:, None]
    return windows.view(f"S{width}").ravel()


def _lines(source: InputFile, width: int, what: str, comments: bool):
    """Each block's first line number, the numbers (within it) of the lines kept, and their columns as
    (data, starts, ends) of each field."""
    for fields in split(source, DIALECT):
        counts = fields.per_line
        keep = np.ones(fields.n_lines, dtype=bool)
        if comments and fields.n_lines:
            first_starts, _ = fields.bounds(np.flatnonzero(counts > 0), 0)
            hashed = fields.data[first_starts] == ord("#")
            keep[np.flatnonzero(counts > 0)[hashed]] = False
        bad = np.flatnonzero(keep & (counts != width))
        if len(bad):
            row = int(bad[0])
            raise InputError(source.name, fields.first_line + row,
                             f"malformed {what} line: {int(counts[row])} fields, expected {width}")
        rows = None if keep.all() else np.flatnonzero(keep)
        yield fields.first_line, rows, fields, [fields.bounds(rows, j) for j in range(width)]


def read_qrels(source: InputFile, comments: bool) -> Qrels:
    """The qrels (a pair given twice: its last grade)."""
    topics, docnos, grades = [], [], []
    for first_line, rows, fields, (topic, _, docno, grade) in _lines(source, 4, "qrels", comments):
        topics.append(fixed_width(fields.data, *topic))
        docnos.append(fixed_width(fields.data, *docno))
        lines = first_line + (np.arange(fields.n_lines) if rows is None else rows)
        grades.append(_grades(source, fields.data, *grade, lines))
    if not topics or not sum(map(len, topics)):
        return Qrels(np.zeros(0, "S1"), np.zeros(0, "S1"), np.zeros(0))
    topic, docno, grade = np.concatenate(topics), np.concatenate(docnos), np.concatenate(grades)
    # Sorted by topic, docno (their words: integers sort faster than strings), then line: a pair given
    # twice has its lines in turn.
    order = np.lexsort((np.arange(len(topic)), *words(docno).T[::-1], *words(topic).T[::-1]))
    topic, docno, grade = topic[order], docno[order], grade[order]
    last = np.append((topic[1:] != topic[:-1]) | (docno[1:] != docno[:-1]), True)  # of its pair
    return Qrels(topic[last], docno[last], grade[last])


C_INTEGER = re.compile(rb"[+-]?\d+")  # the prefix C's atol reads (a grade with none is refused here)
# The prefix C's atof reads (decimal forms, inf, nan; hex floats are not expected in runs).
C_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)
DIGITS = np.zeros(256, dtype=bool)
DIGITS[list(b"0123456789")] = True
DIGIT_OR_PAD = DIGITS.copy()  # (fixed_width pads with NUL; fields hold none)
DIGIT_OR_PAD[0] = True
DECIMAL_BYTES = DIGITS.copy()  # what a plain decimal is made of (with the NUL padding of fixed_width)
DECIMAL_BYTES[list(b"+-.eE\0")] = True


def _grades(source: InputFile, data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
            lines: np.ndarray) -> np.ndarray:
    """The grades as float64: numpy's cast where every one is digits after an optional sign (at most 18:
    no overflow), else the prefix :data:`C_INTEGER` reads, a grade without one refused naming its line."""
    texts = fixed_width(data, starts, ends)
    chars = texts.view(np.uint8).reshape(len(texts), -1)
    signed = (chars[:, 0] == ord("+")) | (chars[:, 0] == ord("-"))
    body = np.where(signed[:, None], np.pad(chars[:, 1:], ((0, 0), (0, 1))), chars)  # the bytes past a sign
    if DIGITS[body[:, 0]].all() and DIGIT_OR_PAD[body].all() and chars.shape[1] <= 18:
        return texts.astype(np.int64).astype(np.float64)
    values = np.empty(len(texts))
    for k, text in enumerate(texts.tolist()):
        match = C_INTEGER.match(text)
        if not match:
            raise InputError(source.name, int(lines[k]),
                             f"grade {text.decode('utf-8', 'replace')!r} is not a whole number")
        values[k] = int(match.group())
    return values


def _atof(text: bytes) -> float:
    """C's atof: the longest leading number (``2.5abc`` is 2.5), 0 where there is none."""
    match = C_NUMBER.match(text)
    return float(match.group()) if match else 0.0


def scores_of(texts: np.ndarray) -> np.ndarray:
    """C's atof of each of ``texts`` (fixed-width bytes), as :func:`_atof` reads it: numpy's cast where
    every value is made of a plain decimal's bytes and the cast takes them all (the only strings of those
    bytes ``float`` reads are plain decimals), else :func:`_atof` a value."""
    if DECIMAL_BYTES[texts.view(np.uint8)].all():
        try:
            return texts.astype(np.float64)
        except ValueError:  # a form the cast refuses (``1e``, ``-``): _atof's
            pass
    return np.array([_atof(text) for text in texts.tolist()], dtype=np.float64)


def read_results(source: InputFile, comments: bool) -> Run:
    """The run, ranked; its name is its first line's."""
    columns = _plain_columns(source, comments) or _columns(source, comments)
    run_name, topic_codes, labels, docno, score = columns
    if not len(docno):
        return Run(run_name, [], np.zeros(1, np.intp), np.zeros(0, "S1"))
    # Topic codes in byte order.
    ranked_labels = np.argsort(np.array(labels, dtype=object), kind="stable")
    codes = np.empty(len(labels), dtype=np.int64)
    codes[ranked_labels] = np.arange(len(labels))
    codes = codes[topic_codes]
    order = _python_order(codes, score, docno) if np.isnan(score).any() else _order(codes, score, docno)
    if order is not None:
        codes, docno = codes[order], docno[order]
    bounds = np.searchsorted(codes, np.arange(len(labels) + 1))
    return Run(run_name, [labels[k] for k in ranked_labels.tolist()], bounds, docno)


def _plain_columns(source: InputFile, comments: bool):
    """The run's columns as the compiled splitter reads a plain file (one space or one tab between six
    fields, plain numbers), or None where it is not taken or declines, or where the file holds what only
    :func:`_columns` reads as trec_eval does (a NUL byte, a byte order mark, comment lines, a seventh field)."""
    with source.mapped() as data:
        content = np.frombuffer(data, dtype=np.uint8)
        refused = not len(content) or not content.all() or data[:3] == BOM  # (all(): no NUL byte)
        del content  # (before the mapping closes)
    split = None if refused else split_run(source.mapped)
    if split is None or split.extra_fields or comments and any(label[:1] == b"#" for label in split.labels):
        return None
    offsets = np.frombuffer(split.docno_offsets, dtype=np.int32)
    split.docno_bytes.extend(bytes(int(np.diff(offsets).max(initial=0))))  # (fixed_width's windows: no copy)
    docno = fixed_width(np.frombuffer(split.docno_bytes, dtype=np.uint8), offsets[:-1], offsets[1:])
    return split.runtag, split.topic_codes, split.labels, docno, split.score


def _columns(source: InputFile, comments: bool):
    """The run's columns as io/lines splits it (any whitespace between fields; a malformed line named):
    its name, each line's topic (a code), the topics, the docnos and the scores."""
    topics, docnos, scores = [], [], []
    run_name = b""
    for _, _, fields, (topic, _, docno, _, score, names) in _lines(source, 6, "results", comments):
        if not run_name and len(names[0]):
            run_name = fields.data[names[0][0]:names[1][0]].tobytes()
        topics.append(fixed_width(fields.data, *topic))
        docnos.append(fixed_width(fields.data, *docno))
        scores.append(scores_of(fixed_width(fields.data, *score)))
    if not topics or not sum(map(len, topics)):
        return run_name, np.zeros(0, np.int64), [], np.zeros(0, "S1"), np.zeros(0)
    topic = np.concatenate(topics)
    changes = np.flatnonzero(topic[1:] != topic[:-1]) + 1  # by the runs of lines of one topic (few)
    labels, codes = np.unique(topic[np.append(0, changes)], return_inverse=True)
    codes = np.repeat(codes, np.diff(np.concatenate(([0], changes, [len(topic)]))))
    return run_name, codes, labels.tolist(), np.concatenate(docnos), np.concatenate(scores)


def _order(codes: np.ndarray, score: np.ndarray, docno: np.ndarray) -> np.ndarray | None:
    """Topic ascending, score descending (0 and -0 equal), docno descending (None: the order given)."""
    if ((codes[1:] >= codes[:-1]) & ((codes[1:] != codes[:-1]) | (score[1:] <= score[:-1]))).all():
        order = None  # already in order but for ties (runs are written in rank order)
        ranked_codes, ranked_scores = codes, score
    else:
        order = np.argsort(-score, kind="stable")
        small = codes.astype(np.uint16) if len(codes) and codes.max() < 2**16 else codes  # (radix sorted)
        order = order[np.argsort(small[order], kind="stable")]
        ranked_codes, ranked_scores = codes[order], score[order]
    tied = (ranked_codes[1:] == ranked_codes[:-1]) & (ranked_scores[1:] == ranked_scores[:-1])
    if tied.any():  # each run of equal scores of a topic by docno descending (equal docnos: one document)
        member = np.append(tied, False) | np.append(False, tied)
        at = np.flatnonzero(member)
        group = np.cumsum(~np.append(False, tied)[at])
        order = np.arange(len(codes)) if order is None else order
        descending = ~words(docno[order[at]])  # (each word's complement: its order reversed)
        order[at] = order[at][np.lexsort((*descending.T[::-1], group))]
    return order


def _python_order(codes: np.ndarray, score: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """Python's sort of (score, docno), descending, topic by topic: where a NaN score lands is that
    sort's own."""
    scores, docnos = score.tolist(), docno.tolist()
    order: list[int] = []
    by_topic: dict[int, list[int]] = {}
    for k, code in enumerate(codes.tolist()):
        by_topic.setdefault(code, []).append(k)
    for code in sorted(by_topic):
        order.extend(sorted(by_topic[code], key=lambda i: (scores[i], docnos[i]), reverse=True))
    return np.array(order, dtype=np.intp)
