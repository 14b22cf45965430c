"""The reading floor: the time a columnar reader alone takes to read the qrels and the runs.

    python bench/floor.py pyarrow|pandas QRELS RUN [RUN ...]

Reads every file into typed columns (ids as text, ranks as integers, scores as
floats), as divaleval must at the least, and nothing more. The benchmark runs it
in a child process, so interpreter start-up and imports count, as they do for
every tool timed.
"""
from __future__ import annotations

import sys


def read_pyarrow(paths: list[str], widths: list[int]) -> int:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rows = 0
    for path, width in zip(paths, widths):
        names = [f"f{j}" for j in range(width)]
        types = ({"f3": pa.int64(), "f4": pa.float64()} if width == 6 else {"f3": pa.int64()})
        table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names),
                               parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
                               convert_options=pacsv.ConvertOptions(column_types=types))
        rows += table.num_rows
    return rows


def read_pandas(paths: list[str], widths: list[int]) -> int:
    import numpy as np
    import pandas as pd

    rows = 0
    for path, width in zip(paths, widths):
        types = {0: str, 1: str, 2: str, 3: np.int64}
        if width == 6:
            types.update({4: np.float64, 5: str})
        rows += len(pd.read_csv(path, sep=" ", header=None, dtype=types, engine="c", keep_default_na=False))
    return rows


def main() -> None:
    reader, qrels, *runs = sys.argv[1:]
    paths = [qrels, *runs]
    widths = [4] + [6] * len(runs)
    rows = (read_pyarrow if reader == "pyarrow" else read_pandas)(paths, widths)
    print(f"{reader}: {rows} rows")


if __name__ == "__main__":
    main()
