"""Writing a command's text to a stream byte for byte.

Apart from output/writers (whose tables import the measure catalogue) so that the drop-in commands,
which print their own text (compat/gdeval, compat/ndeval), import nothing they do not use.
"""
from __future__ import annotations

from typing import TextIO


def write_text(out: TextIO, text: str) -> None:
    """``text`` to ``out``, byte for byte: through its binary buffer where it has one, so that bytes read
    as surrogate escapes (a runid's, from a file in no encoding) are written back as they were."""
    raw = getattr(out, "buffer", None)
    if raw is None:
        out.write(text)
        return
    out.flush()
    raw.write(text.encode("utf-8", "surrogateescape"))
    raw.flush()
