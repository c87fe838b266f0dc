"""A table written as CSV text, the text of :meth:`pandas.DataFrame.to_csv` and faster.

pandas turns every float into text through NumPy's ``astype(str)``, which is several
times slower than Python's own shortest round-trip ``repr`` of a float; both give the
same digits (the shortest text that reads back to the same double, in the same
notation), so this writer turns each column into text with ``repr`` and lets the
:mod:`csv` module quote what needs quoting. Missing values (``NaN``, ``None``,
``NaT``, ``pd.NA``) are empty, as in pandas.

>>> import io, pandas as pd
>>> out = io.StringIO()
>>> write_csv(pd.DataFrame({"a": [0.1, float("nan")], "b": ["x,y", None]}), out)
>>> out.getvalue()
'a,b\\n0.1,"x,y"\\n,\\n'
"""

from __future__ import annotations

import csv
from typing import IO, Any

import numpy as np
import pandas as pd

__all__ = ["write_csv"]


def _column_text(column: pd.Series) -> list[Any]:
    dtype = column.dtype
    if dtype == np.float64:
        values = column.to_numpy()
        text: list[Any] = list(map(float.__repr__, values.tolist()))
        for i in np.flatnonzero(np.isnan(values)).tolist():
            text[i] = ""
        return text
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return list(column.to_numpy().tolist())
    if isinstance(dtype, np.dtype) and dtype.kind == "f":  # float32, float16: their own digits
        values = column.to_numpy()
        return ["" if v != v else str(v) for v in values]
    missing = pd.isna(column).to_numpy()
    out = [v if isinstance(v, str) else str(v) for v in column.astype(object).tolist()]
    for i in np.flatnonzero(missing).tolist():
        out[i] = ""
    return out


def write_csv(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write ``frame`` (without its index) to the open text ``handle`` as CSV."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow([str(c) for c in frame.columns])
    columns = [_column_text(frame.iloc[:, j]) for j in range(frame.shape[1])]
    writer.writerows(zip(*columns, strict=True))
