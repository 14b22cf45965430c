"""gdeval.pl's CSV: a header, a row per topic, then the mean, printed as its Perl prints them
(output/streams.write_text writes it with the runids' bytes as they were in the run files).

Each row is printed with a format that holds the runid (and, against a
baseline, the baseline's runid and the -riskAlpha text): a ``%`` in them is a
conversion to Perl's printf, so :func:`perl_sprintf` reads the row's format as
Perl does, the numbers shifting along when the runid takes some of them.
"""
from __future__ import annotations

import math
import re
from ...output.formatting import c_fixed
from .options import Number, Options, perl_string
from .scoring import Scored

DIGITS = 5
# A conversion of Perl's sprintf: flags, width, precision, a size (ignored), the letter.
_CONVERSION = re.compile(r"%([-+ 0#]*)([0-9]*)(?:\.([0-9]*))?(?:hh|h|ll|l|q|L|V|z|t|j)?([csdiuoxXeEfFgGbB%])")


def perl_fixed(value: Number, digits: int = DIGITS) -> str:
    """``printf("%.5f")`` as Perl prints it (glibc's digits; Inf, -Inf and NaN in Perl's words)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Inf" if value > 0 else "-Inf")
    return c_fixed(value, digits)


def perl_sprintf(template: str, values: list[Number]) -> str:
    """Perl's sprintf of ``template`` with number arguments: a conversion past the last argument gets
    undef (0, or ""), one Perl does not know is copied as it is."""
    pieces = template.split("%.5f")
    if len(pieces) == len(values) + 1 and "%" not in "".join(pieces):  # the usual row: no other conversion
        return pieces[0] + "".join(perl_fixed(value) + piece for value, piece in zip(values, pieces[1:]))
    pieces, at, remaining = [], 0, list(values)
    for match in _CONVERSION.finditer(template):
        pieces.append(template[at:match.start()])
        at = match.end()
        flags, width, precision, letter = match.groups()
        if letter == "%":
            pieces.append("%")
            continue
        value = remaining.pop(0) if remaining else None
        pieces.append(_convert(flags, width, precision, letter, value))
    pieces.append(template[at:])
    return "".join(pieces)


def _convert(flags: str, width: str, precision: str | None, letter: str, value: Number | None) -> str:
    spec = f"%{flags}{width}" + (f".{precision or 0}" if precision is not None else "")
    if letter == "s":
        return (spec + "s") % ("" if value is None else perl_string(value))
    number = 0 if value is None else value
    if letter in "cdiuoxXbB":
        if isinstance(number, float) and not math.isfinite(number):
            return (spec.split(".")[0] + "s") % perl_string(number)  # Perl prints Inf / NaN as words
        number = int(number)
        if letter == "c":
            return (spec.split(".")[0] + "s") % chr(number % 0x110000)
        if letter in "uoxXbB":
            number &= (1 << 64) - 1  # unsigned conversions see a negative integer's 64 bits
        if letter in "bB":
            return (spec + "s") % format(number, "b")
        return (spec + {"i": "d", "u": "d"}.get(letter, letter)) % number
    if isinstance(number, float) and not math.isfinite(number):
        return (spec.split(".")[0] + "s") % perl_string(number)
    return (spec + letter) % number


def csv_text(scored: Scored, opts: Options, baseline: Scored | None) -> str:
    """gdeval.pl's CSV of a scored run (rows, then the mean unless it stopped)."""
    label = scored.runid
    if baseline is not None:
        label = f"{label} (rel to. {baseline.runid}; rs=1+a; a={opts.risk_alpha_text})"
    depth = perl_string(opts.depth)
    lines = [f"runid,topic,ndcg@{depth},err@{depth}\n"]
    lines += [perl_sprintf(f"{label},{topic},%.5f,%.5f\n", [ndcg, err]) for topic, ndcg, err in scored.rows]
    if not scored.stopped:
        lines.append(perl_sprintf(f"{label},amean,%.5f,%.5f\n", list(scored.mean())))
    return "".join(lines)
