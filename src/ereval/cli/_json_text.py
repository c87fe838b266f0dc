"""A table written as JSON text: the list of its rows, an object each, a chunk at a time.

The text is that of :func:`~ereval.cli._common.dumps_json` of the list of the rows
as mappings (``frame.to_dict("records")``), built :data:`CHUNK_ROWS` rows at a time:
a table of 10^7 rows would otherwise be held as 10^7 dictionaries before its first
line is written.

>>> import io, pandas as pd
>>> out = io.StringIO()
>>> write_json(pd.DataFrame({"a": [1, 2], "b": [0.5, float("nan")]}), out)
>>> out.getvalue() == dumps_json([{"a": 1, "b": 0.5}, {"a": 2, "b": None}]) + "\\n"
True
"""

from __future__ import annotations

from typing import IO

import pandas as pd

from ._common import dumps_json

__all__ = ["CHUNK_ROWS", "write_json"]

#: Rows turned into text at a time.
CHUNK_ROWS = 1 << 14


def write_json(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write the rows of ``frame`` (without its index) to the open text ``handle`` as
    :func:`~ereval.cli._common.dumps_json` writes their list, and a newline."""
    handle.write("[")
    for start in range(0, frame.shape[0], CHUNK_ROWS):
        text = dumps_json(frame.iloc[start : start + CHUNK_ROWS].to_dict("records"))
        # a list's text, indented: "[\n" + its items + "\n]"; the items joined as one list's
        handle.write(("\n" if start == 0 else ",\n") + text[2:-2])
    handle.write("\n]\n" if frame.shape[0] else "]\n")
