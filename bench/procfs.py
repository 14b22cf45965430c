"""The benchmark's reading of /proc (Linux): every process's status fields, for the memory and CPU time of
process trees (bench.py's peaks, pinned.py's idle cluster)."""
from __future__ import annotations

import os


def process_fields() -> dict[int, list[str]]:
    """By pid, the fields of /proc/PID/stat after the command's name: state, ppid, pgrp, session, ... (utime
    and stime are [11] and [12])."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                found[int(entry)] = handle.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
    return found
