"""The values the default command's options offer, as plain data, so that defining the command imports no numpy.

Click builds a command's options (their choices and help) when its module is imported, and every call
imports the default command's, ``divaleval --version`` and ``--help`` included. The modules that define
these values (ranking.py, output/writers.py, compat/) load numpy and pyarrow, a quarter of a second that
printing a version or the help does not need; so the command line keeps a copy here, and
tests/test_startup.py holds each copy equal to the value it copies (a new order, format or mode fails
that test until it is added here).
"""
from __future__ import annotations

ORDERS = ("score", "rank", "file")                    # divaleval.ranking.ORDERS
FORMATS = ("ndeval", "trec", "table", "json")         # divaleval.output.writers.FORMATS
# divaleval.compat.MODES: each mode's name and summary (Conventions.summary), for --compat's help.
MODE_SUMMARIES = {
    "evalir": "evalIR (nPrf): utilities preferred/(shown+2), F also over U(d), ideal = the K largest utilities, "
              "sum_k sum_{i<=k} P(i) U_i, a blank judgment line repeats the one above, run lines with score <= 0 "
              "dropped",
    "ntcireval": "NTCIREVAL: file order, the first 1000 documents, repeated docnos kept, values and D#/IA "
                 "components rounded to 4 decimals, global gains to 6 digits (a run's to 4 decimals)",
}

# The commands' names (divaleval/cli/group.py): a first argument that names none is the default command's first
# (``divaleval QRELS RUN...``), which a call with no option runs without click (divaleval/cli/__init__.py).
DEFAULT_COMMAND = "evaluate"
# Commands imported only when named: command name -> module of this package.
LAZY_COMMANDS = {"axioms": "axioms", "compare": "compare", "gdeval": "gdeval", "meta": "meta",
                 "simulate-preferences": "simulate_preferences", "topics-needed": "topics_needed",
                 "report": "report", "server": "server", "trec_eval": "trec_eval", "validate": "validate"}
COMMANDS = frozenset({DEFAULT_COMMAND, "ndeval", *LAZY_COMMANDS})
