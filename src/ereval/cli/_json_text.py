"""A table written as JSON text: the list of its rows, an object each, a chunk at a time.

The text is that of :func:`~ereval.cli._common.dumps_json` of the list of the rows
as mappings (``frame.to_dict("records")``), but built a column at a time: each value
of a column is turned into its JSON text (a number once for each distinct value,
text by the :mod:`json` module's own encoder), and the rows are filled into one
template of their object. Python's :mod:`json` writes indented text through its
pure-Python encoder, some 30 microseconds a row of a dozen fields: 10^7 rows took
five minutes.

A missing value (``None``, ``NaN``, ``pd.NA``, ``NaT``) is ``null``. The rows are
turned into text :data:`CHUNK_ROWS` at a time, so that a table of 10^7 rows is never
held as 10^7 dictionaries or its whole text.

>>> import io, pandas as pd
>>> out = io.StringIO()
>>> write_json(pd.DataFrame({"a": [1, 2], "b": [0.5, float("nan")]}), out)
>>> out.getvalue() == dumps_json([{"a": 1, "b": 0.5}, {"a": 2, "b": None}]) + "\\n"
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import IO, Any

import numpy as np
import pandas as pd

from ..results import json_ready
from ._common import dumps_json
from ._csv_text import each_once

__all__ = ["CHUNK_ROWS", "write_json", "write_json_chunks"]

#: Rows turned into text at a time.
CHUNK_ROWS = 1 << 14
#: The text of a string, as :mod:`json` writes it (``ensure_ascii``).
_TEXT: Callable[[str], str] = json.encoder.encode_basestring_ascii
#: What a value inside a row's object is indented by, past its own first line.
_NESTED = "\n    "


def _float_text(value: float) -> str:
    return float.__repr__(value) if math.isfinite(value) else "null"


def _value_text(value: Any) -> str:
    """The JSON text of one value of a column of Python objects."""
    if type(value) is str:
        return _TEXT(value)
    if type(value) is int:  # not a bool
        return int.__repr__(value)
    if value is None or value is pd.NA or value is pd.NaT:
        return "null"
    if isinstance(value, float):  # NaN is a missing value
        return _float_text(value)
    return dumps_json(json_ready(value)).replace("\n", _NESTED)


def _column_text(column: pd.Series) -> list[str]:
    """The JSON text of each value of ``column``."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return each_once(column.to_numpy(), lambda b: "true" if b else "false", None)
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return each_once(column.to_numpy(), str, None)
    if isinstance(dtype, np.dtype) and dtype.kind == "f":  # float32 as the double it is
        bits = column.to_numpy().astype(np.float64, copy=False).view(np.int64)
        return each_once(bits, _float_text, np.float64)  # by bits: -0.0 is not 0.0
    return [_value_text(v) for v in column.astype(object).tolist()]


def _template(columns: Iterable[Any]) -> str:
    """The text of one row's object, a ``%s`` where each value goes."""
    fields = [
        "    " + _TEXT(str(c)).replace("%", "%%") + ": %s"  # a key's '%' is no placeholder
        for c in columns
    ]
    return "  {\n" + ",\n".join(fields) + "\n  }" if fields else "  {}"


def write_json_chunks(frames: Iterable[pd.DataFrame], handle: IO[str]) -> None:
    """Write the rows of the frames (of the same columns, one after the other) to the
    open text ``handle`` as one list, as :func:`write_json` writes one frame."""
    handle.write("[")
    first = True
    for frame in frames:
        template = _template(frame.columns)
        for start in range(0, frame.shape[0], CHUNK_ROWS):
            rows = frame.iloc[start : start + CHUNK_ROWS]
            if rows.shape[1]:
                columns = [_column_text(rows.iloc[:, j]) for j in range(rows.shape[1])]
                text = ",\n".join(map(template.__mod__, zip(*columns, strict=True)))
            else:
                text = ",\n".join([template] * rows.shape[0])
            handle.write(("\n" if first else ",\n") + text)
            first = False
    handle.write("]\n" if first else "\n]\n")


def write_json(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write the rows of ``frame`` (without its index) to the open text ``handle`` as
    :func:`~ereval.cli._common.dumps_json` writes their list, and a newline."""
    write_json_chunks([frame], handle)
