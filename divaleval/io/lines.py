"""Lines and fields of a text input: the one splitter every reader goes through.

An input is read as a stream of blocks of whole lines (about :data:`BLOCK`
bytes each, a line of any length fitting in one), each numbered by its first
line so that a message can name any line. A block is split into the bounds of
its fields: field ``k`` is ``data[starts[k]:ends[k]]``, in file order, and
``per_line[i]`` fields lie on line i. Nothing is copied: readers take the
columns they keep (:func:`binary_column`) and check their values. The split is
the compiled kernel's where it is built (native.split_fields, two to three
times as fast), else numpy's below: the same arrays either way, and nothing in a block
can make them differ (no line is refused while splitting).

What separates fields, and what is refused, is the :class:`Dialect`'s: by
default (and for every reader here) runs of C's ``isspace`` bytes, a line
ending at ``\\n`` (so a CRLF file reads as an LF one), a UTF-8 byte order mark
at the start of the input skipped. A reference tool's dialect may refuse a NUL
byte (C strings end there), naming its line.

numpy's split works on the bytes that can separate fields (C's space bytes
are all at most 32), not on every byte: a field ends where a separator follows
a byte that is not one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..native import split_fields
from .source import BOM, InputFile

if TYPE_CHECKING:
    import pyarrow as pa

C_SPACE = b" \t\n\v\f\r"  # isspace() in the "C" locale; the newline also ends a line
NEWLINE = ord("\n")
BLOCK = 1 << 23           # bytes split at a time
# What a blank line of a file of preference judgments is: skipped, or a repeat of the judgment above it
# (io/preferences reads either; here, in the splitter every evaluation imports, so that the rules naming
# them, which every evaluation's conventions carry, do not load that reader).
SKIP_BLANK, REPEAT_BLANK = "skip", "repeat"


@dataclass(frozen=True)
class Dialect:
    """How an input's bytes are lines and fields.

    space: the bytes that separate fields (the newline, which ends a line, is always one).
    nul: the reason a NUL byte is refused with (its line named), or None: a byte like any other.
    skip_bom: a UTF-8 byte order mark at the start of the input is not part of its first line.
    """

    space: bytes = C_SPACE
    nul: str | None = None
    skip_bom: bool = True
    is_space: np.ndarray = field(init=False, repr=False, compare=False)
    _other_ranges: tuple = field(init=False, repr=False, compare=False)  # (low, high): bytes that are not

    def __post_init__(self) -> None:
        table = np.zeros(256, dtype=bool)
        table[list(set(self.space) | {NEWLINE})] = True
        object.__setattr__(self, "is_space", table)
        ranges, low = [], None
        for byte in range(self.highest_space + 2):
            other = byte <= self.highest_space and not table[byte]
            if other and low is None:
                low = byte
            elif not other and low is not None:
                ranges.append((low, byte - 1))
                low = None
        object.__setattr__(self, "_other_ranges", tuple(ranges))

    @property
    def highest_space(self) -> int:
        return int(np.flatnonzero(self.is_space)[-1])

    def others_below(self, values: np.ndarray) -> bool:
        """Whether some of ``values`` (bytes up to the highest space) is not a space: checked range by range
        of the other bytes below it (two comparisons a range, where a table lookup costs more)."""
        return any(bool(((values - np.uint8(low)) <= np.uint8(high - low)).any()) for low, high in
                   self._other_ranges)


C_DIALECT = Dialect()


@dataclass
class Fields:
    """A block of whole lines split into fields.

    ``data`` ends with a newline; its lines are numbered from ``first_line``;
    field k is ``data[starts[k]:ends[k]]`` and the fields of line i are those
    from ``first_field[i]``, ``per_line[i]`` of them.
    """

    data: np.ndarray
    first_line: int
    starts: np.ndarray
    ends: np.ndarray
    per_line: np.ndarray

    @property
    def n_lines(self) -> int:
        return len(self.per_line)

    @property
    def first_field(self) -> np.ndarray:
        return np.cumsum(self.per_line) - self.per_line

    def bounds(self, rows: np.ndarray | None, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Where field j (0-based) of each line in ``rows`` (None: every line) lies; each of those lines
        has more than j fields."""
        width = int(self.per_line[0]) if self.n_lines else 0
        if rows is None and width and len(self.starts) == width * self.n_lines and \
                (self.per_line == width).all():  # as many fields on every line: no index needed
            return self.starts[j::width], self.ends[j::width]
        index = self.first_field[rows if rows is not None else slice(None)] + j
        return self.starts[index], self.ends[index]

    def column(self, rows: np.ndarray | None, j: int) -> pa.Array:
        """Field j of the lines ``rows`` (None: every line), as an Arrow binary array."""
        return binary_column(self.data, *self.bounds(rows, j))

    def text(self, row: int, j: int) -> bytes:
        """Field j of line ``row`` (0-based within the block)."""
        k = int(self.first_field[row]) + j
        return self.data[self.starts[k]:self.ends[k]].tobytes()


def blocks(source: InputFile, dialect: Dialect = C_DIALECT, block_bytes: int = BLOCK) -> Iterator[tuple[bytes, int]]:
    """The input in blocks of whole lines, each ending with a newline (one is added to a last line
    without it), with the number of its first line."""
    line, pending, first = 1, [], True
    with source.open() as handle:
        while True:
            chunk = handle.read(block_bytes)
            if first:
                first = False
                if dialect.skip_bom and chunk.startswith(BOM):
                    chunk = chunk[len(BOM):]
            if not chunk:
                break
            cut = chunk.rfind(b"\n") + 1
            if not cut:
                pending.append(chunk)
                continue
            block = b"".join([*pending, chunk[:cut]]) if pending else chunk[:cut]
            pending = [chunk[cut:]] if cut < len(chunk) else []
            _check(source, block, line, dialect)
            yield block, line
            line += newlines(block)
    if pending:
        block = b"".join(pending) + b"\n"
        _check(source, block, line, dialect)
        yield block, line


def newlines(block: bytes) -> int:
    """How many newlines a block holds (numpy counts them several times faster than ``bytes.count``)."""
    return int(np.count_nonzero(np.frombuffer(block, dtype=np.uint8) == NEWLINE))


def _check(source: InputFile, block: bytes, first_line: int, dialect: Dialect) -> None:
    if dialect.nul is not None:
        at = block.find(b"\0")
        if at >= 0:
            raise InputError(source.name, first_line + block.count(b"\n", 0, at), dialect.nul)


def split_block(block: bytes, first_line: int, dialect: Dialect = C_DIALECT) -> Fields:
    """The fields of a block of whole lines (it ends with a newline): by the compiled kernel where it is
    taken (divaleval/native), else by numpy; both give the same arrays."""
    data = np.frombuffer(block, dtype=np.uint8)
    compiled = split_fields(block, dialect.space)
    if compiled is not None:
        return Fields(data, first_line, *compiled)
    at = np.flatnonzero(data <= dialect.highest_space)   # bytes that may separate fields
    value = data[at]
    if dialect.others_below(value):                      # some of them do not
        space = dialect.is_space.take(value)
        at, value = at[space], value[space]
        del space
    starts = np.empty_like(at)                           # where a field would start: after each separator
    starts[0] = 0
    np.add(at[:-1], 1, out=starts[1:])
    newline = np.flatnonzero(value == NEWLINE)           # positions in ``at``
    ends_field = at > starts                             # a field lies between a separator and the one before
    if ends_field.all():                                 # single separators, no blank line: the usual case
        per_line = _steps(newline + 1)
        return Fields(data, first_line, starts, at, per_line)
    per_line = _steps(np.cumsum(ends_field)[newline])
    return Fields(data, first_line, starts[ends_field], at[ends_field], per_line)


def _steps(totals: np.ndarray) -> np.ndarray:
    """What each running total adds to the one before (the first to 0): ``np.diff(totals, prepend=0)``,
    without its copy."""
    steps = np.empty_like(totals)
    if len(totals):
        steps[0] = totals[0]
        np.subtract(totals[1:], totals[:-1], out=steps[1:])
    return steps


def split(source: InputFile, dialect: Dialect = C_DIALECT, block_bytes: int = BLOCK) -> Iterator[Fields]:
    """The input split into fields, a block of whole lines at a time."""
    for block, first_line in blocks(source, dialect, block_bytes):
        yield split_block(block, first_line, dialect)


def binary_column(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The fields ``data[start:end]`` as an Arrow binary array.

    The block is seen, without a copy, as alternating values (what precedes a
    field, the field); Arrow's take gathers the fields. (Arrow is imported here: splitting alone, as
    compat/trec_eval does, does not load it.)
    """
    import pyarrow as pa

    from ..arrays import arrow_cast, arrow_of, arrow_take

    large = len(data) >= 2**31  # a block holding a line longer than 2 GiB
    bounds = np.empty(2 * len(starts) + 1, dtype=np.int64 if large else np.int32)
    bounds[0] = 0
    bounds[1::2] = starts
    bounds[2::2] = ends
    spans = pa.Array.from_buffers(pa.large_binary() if large else pa.binary(), 2 * len(starts),
                                  [None, pa.py_buffer(bounds), pa.py_buffer(data)])
    fields = arrow_take(spans, arrow_of(np.arange(1, 2 * len(starts), 2, dtype=np.int64 if large else np.int32)))
    return arrow_cast(fields, pa.binary()) if large else fields
