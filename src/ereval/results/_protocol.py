"""The one way every result leaves ereval: :class:`Result` (``to_dict``, ``to_frame``).

Each result class of the package — an :class:`~ereval.Estimate`, a threshold
curve, a summary, a monitoring, an OASIS or PAULA run, an error analysis, a
simulation — offers the same three things:

* ``to_dict()``: every number in plain JSON types (``dict``, ``list``, ``str``,
  ``int``, ``float``, ``bool``, ``None``), NaN and infinities as ``None``, so
  ``json.dumps(result.to_dict(), allow_nan=False)`` always works;
* ``to_frame()``: a :class:`pandas.DataFrame` with one row per meaningful unit
  (a threshold, a rank, a release, a group, an estimator, a record...);
* ``_repr_html_()``: a small table of ``to_frame()`` for notebooks
  (:class:`FrameRepr`), with no dependency beyond pandas.

The report (:mod:`ereval.report`) and the figures (:mod:`ereval.plots`) read
results; they compute nothing.

>>> import json
>>> json_ready({"a": float("nan"), "b": (1, 2.5)})
{'a': None, 'b': [1, 2.5]}
>>> json.dumps(json_ready([float("inf")]))
'[null]'
"""

from __future__ import annotations

import datetime
import decimal
import html
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FrameRepr", "Result", "bytes_text", "html_table", "json_ready"]

#: Most rows :func:`html_table` shows (the first ones; a last row counts the rest).
HTML_ROWS = 20


#: Each byte's text in :func:`bytes_text`.
_BYTE_TEXT = {
    b: chr(b) if 32 <= b <= 126 and chr(b) not in "\"'\\" else f"\\x{b:02X}" for b in range(256)
}


def bytes_text(value: bytes) -> str:
    r"""A binary value (an id of a Parquet column of bytes) as text, as DuckDB writes a
    BLOB: printable ASCII as it is, but for the quotes and the backslash, and every
    other byte as ``\xHH``.

    >>> print(bytes_text(b"id-7"), bytes_text(b"\xff\\x\x00"))
    id-7 \xFF\x5Cx\x00
    """
    return value.decode("latin-1").translate(_BYTE_TEXT)


@runtime_checkable
class Result(Protocol):
    """What every result class of ereval offers (see the module docstring)."""

    def to_dict(self) -> dict[str, Any]:
        """Every number in plain JSON types (NaN as ``None``)."""
        ...

    def to_frame(self) -> pd.DataFrame:
        """One row per meaningful unit."""
        ...


def json_ready(value: Any) -> Any:
    """Plain JSON types: NaN and infinities become None, NumPy scalars and arrays Python
    numbers and lists, tuples lists; mapping keys become text; dates, times and
    decimals their text (JSON has no type for them: the text a CSV file holds).

    >>> import numpy as np
    >>> json_ready({1: np.float64("nan"), "x": np.arange(2)})
    {'1': None, 'x': [0, 1]}
    """
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if hasattr(value, "tolist") and getattr(value, "ndim", 0) >= 1:
        return json_ready(value.tolist())
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, datetime.date | decimal.Decimal):  # ids of dates or decimals: as in CSV
        return str(value)
    if isinstance(value, bytes):
        return bytes_text(value)
    return value


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    import pandas as pd

    if pd.api.types.is_scalar(value) and pd.isna(value):  # pandas NA and NaT
        return ""
    return bytes_text(value) if isinstance(value, bytes) else str(value)


def html_table(frame: pd.DataFrame, *, title: str) -> str:
    """A small HTML table of ``frame``: its first :data:`HTML_ROWS` rows under ``title``.

    Numbers show 6 significant digits, missing values an empty cell; every text is
    escaped. Used by the results' ``_repr_html_`` (notebook display).

    >>> import pandas as pd
    >>> html_table(pd.DataFrame({"a": [0.5]}), title="T")  # doctest: +NORMALIZE_WHITESPACE
    '<table class="ereval-result"><caption>T</caption><thead><tr><th>a</th></tr></thead><tbody><tr><td>0.5</td></tr></tbody></table>'
    """
    columns = [str(c) for c in frame.columns]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = []
    for row in frame.head(HTML_ROWS).itertuples(index=False):
        rows.append("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>")
    more = len(frame) - HTML_ROWS
    if more > 0:
        span = max(len(columns), 1)
        rows.append(
            f'<tr><td colspan="{span}">… {more:,} more rows (to_frame() has them all)</td></tr>'
        )
    return (
        f'<table class="ereval-result"><caption>{html.escape(title)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


class _Framed(Protocol):
    def to_frame(self) -> pd.DataFrame: ...


class FrameRepr:
    """Mixin: notebook display as a small table of ``to_frame()`` (:func:`html_table`)."""

    def _repr_html_(self: _Framed) -> str:
        return html_table(self.to_frame(), title=type(self).__name__)
