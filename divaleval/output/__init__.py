"""Output formats: ndeval CSV, trec_eval lines, tables, JSON lines."""
from .formatting import c_fixed
from .writers import FORMATS, make_writer

__all__ = ["FORMATS", "c_fixed", "make_writer"]
