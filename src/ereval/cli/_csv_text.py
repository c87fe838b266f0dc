"""A table written as CSV text, the text of :meth:`pandas.DataFrame.to_csv` and faster.

pandas turns every float into text through NumPy's ``astype(str)``, which is several
times slower than Python's own shortest round-trip ``repr`` of a float; both give the
same digits (the shortest text that reads back to the same double, in the same
notation), so this writer turns each column into text with ``repr``. Missing values
(``NaN``, ``None``, ``NaT``, ``pd.NA``) are empty, as in pandas; booleans are
``true`` and ``false``, as DuckDB and Spark write them (pandas writes ``True``).

Only a field holding a comma, a quote or a line break may need quotes: those
fields, found in the text columns alone, are quoted by the :mod:`csv` module
itself, and the lines joined as text (some six times faster than the module's
writer, which looks at every field of every row). A row of one empty field is
``""``, as the module writes it.

The rows are turned into text :data:`CHUNK_ROWS` at a time: a table of 10^7 rows
and a dozen columns would otherwise be held as 1.2 * 10^8 Python strings (some
6 GB) before its first line is written.

>>> import io, pandas as pd
>>> out = io.StringIO()
>>> write_csv(pd.DataFrame({"a": [0.1, float("nan")], "b": ["x,y", None]}), out)
>>> out.getvalue()
'a,b\\n0.1,"x,y"\\n,\\n'
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from typing import IO, Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..results import bytes_text

__all__ = ["CHUNK_ROWS", "each_once", "write_csv", "write_csv_chunks"]

#: Rows turned into text at a time.
CHUNK_ROWS = 1 << 16
#: A character that may make the csv module quote a field (its delimiter, its quote
#: and the line breaks).
_SPECIAL = re.compile(r'[,"\r\n]')


def _column_text(column: pd.Series) -> list[str]:
    """The fields of ``column`` as they are written, quoted where needed."""
    dtype = column.dtype
    if dtype == np.float64:  # each bit pattern once: -0.0 is not 0.0, a NaN is empty
        bits = column.to_numpy().view(np.int64)
        return each_once(bits, lambda b: "" if b != b else repr(b), np.float64)
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return each_once(column.to_numpy(), _bool_text, None)
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return each_once(column.to_numpy(), str, None)
    if isinstance(dtype, np.dtype) and dtype.kind == "f":  # float32, float16: their own digits
        values = column.to_numpy()
        return ["" if v != v else str(v) for v in values]
    missing = pd.isna(column).to_numpy()
    out = [_value_text(v) for v in column.astype(object).tolist()]
    for i in np.flatnonzero(missing).tolist():
        out[i] = ""
    return _quoted(out)


def _bool_text(value: bool) -> str:
    """A boolean as SQL engines write it (and JSON): ``true``, ``false``."""
    return "true" if value else "false"


def _value_text(value: Any) -> str:
    """A value of a column of objects as written: bytes as DuckDB writes a BLOB,
    booleans as :func:`_bool_text`."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return bytes_text(value)
    return _bool_text(value) if isinstance(value, bool) else str(value)


def each_once(values: npt.NDArray[Any], text: Callable[[Any], str], view: Any) -> list[str]:
    """``text`` of each of ``values`` (seen as ``view``, if given), made once for each
    distinct value: the columns of an error table hold few (sizes, counts, ratios).
    Floats are given as their bits (``view`` ``np.float64``), so that ``-0.0`` and
    ``0.0`` stay two values."""
    codes, distinct = pd.factorize(values)
    if view is not None:
        distinct = distinct.view(view)
    made = np.array(list(map(text, distinct.tolist())), dtype=object)
    return cast("list[str]", made[codes].tolist())


def _quoted(fields: list[str]) -> list[str]:
    """``fields`` in place, each holding a character of :data:`_SPECIAL` as the csv
    module writes it (quoted, its quotes doubled), the others as they are."""
    if not _SPECIAL.search("".join(fields)):
        return fields
    line = io.StringIO()
    writer = csv.writer(line, lineterminator="\n")
    for k, field in enumerate(fields):
        if _SPECIAL.search(field):
            line.seek(0)
            line.truncate()
            writer.writerow([field, ""])  # two fields: the text of the first, then ",\n"
            fields[k] = line.getvalue()[:-2]
    return fields


def write_csv_chunks(frames: Iterable[pd.DataFrame], handle: IO[str]) -> None:
    """Write the rows of the frames (of the same columns, one after the other) to the
    open text ``handle`` as one CSV table, as :func:`write_csv` writes one frame; the
    header is the first frame's."""
    header = False
    for frame in frames:
        if not header:
            csv.writer(handle, lineterminator="\n").writerow([str(c) for c in frame.columns])
            header = True
        for start in range(0, frame.shape[0], CHUNK_ROWS):
            rows = frame.iloc[start : start + CHUNK_ROWS]
            columns = [_column_text(rows.iloc[:, j]) for j in range(rows.shape[1])]
            if len(columns) == 1:  # a lone empty field is quoted: the line is not blank
                columns = [[field or '""' for field in columns[0]]]
            handle.write("\n".join(map(",".join, zip(*columns, strict=True))) + "\n")


def write_csv(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write ``frame`` (without its index) to the open text ``handle`` as CSV."""
    write_csv_chunks([frame], handle)
