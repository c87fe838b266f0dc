"""Id columns and record keys: a column, or several whose values together form one key.

A key of several columns (e.g. ``["source", "unique_id"]`` for a link job) is
written as the JSON array of its parts (``["source_a",17]``: text quoted,
integers bare), so keys are unambiguous and readable in outputs; its parts keep
their kinds (:class:`KeyParts`), so that two sides' keys can be compared part
by part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, InputTypeError
from .._optional import instance_of
from .._validation import describe
from ._ids import IdArray, IdType, cast_ids, check_no_missing, id_kind, to_arrow_ids, to_numpy

__all__ = [
    "Columns",
    "KeyParts",
    "column_ids",
    "column_names",
    "comparable_ids",
    "describe_kinds",
    "id_kinds",
    "key_ids",
    "key_parts",
    "keyed_frame",
    "kinds_clash",
    "missing_columns_error",
    "read_key",
    "record_kind",
    "table_columns",
    "text_would_match",
]

#: A column name, or several whose values together form the key.
Columns = str | Sequence[str]


def column_names(value: Columns, *, name: str) -> list[str]:
    """``value`` as a non-empty list of column names."""
    cols = [value] if isinstance(value, str) else list(value)
    if not cols or not all(isinstance(c, str) and c for c in cols):
        raise InputTypeError(
            f"'{name}' must be a column name or a list of column names; received {value!r}"
        )
    return cols


def column_ids(values: Any) -> IdArray:
    """A column (pandas / polars / pyarrow / NumPy / list) as an id array.

    Typed columns keep their type; text stays text (as Arrow strings, never
    Python objects when the column is Arrow-backed).
    """
    if instance_of(values, "pandas", "Index"):
        values = values.to_series()
    if instance_of(values, "pandas", "Series"):
        import pandas as pd  # already imported: ``values`` is a Series

        dtype = values.dtype
        if isinstance(dtype, pd.StringDtype | pd.CategoricalDtype | pd.ArrowDtype):
            return to_arrow_ids(pa.array(values, from_pandas=True))
        if isinstance(dtype, pd.api.extensions.ExtensionDtype):
            kind = getattr(dtype, "kind", "O")
            if values.hasnans:
                return values.astype(object).to_numpy()
            if kind in "iub":
                return values.to_numpy(dtype=getattr(dtype, "numpy_dtype", None))
            if kind == "f":
                return values.to_numpy(dtype=np.float64)
            return to_arrow_ids(values.to_numpy(dtype=object))
        return to_arrow_ids(values.to_numpy())
    module = type(values).__module__
    if module.startswith("polars"):
        return to_arrow_ids(values.to_arrow())
    return to_arrow_ids(values)


def _part_kind(arr: IdArray, *, name: str, column: str) -> str:
    """The kind of a key's part, ``"integer"`` or ``"text"``; any other is refused."""
    kind = id_kind(arr)
    if kind not in ("integer", "text"):
        raise InputTypeError(
            f"'{name}': column '{column}' of a key made of several columns must hold "
            f"integers or text; it holds {kind} values"
        )
    return kind


def _json_part(arr: IdArray, *, name: str, column: str, as_text: bool = False) -> pa.Array:
    kind = _part_kind(arr, name=name, column=column)
    if kind == "integer" and as_text:
        arr, kind = pc.cast(pa.array(np.asarray(arr, dtype=np.int64)), pa.large_string()), "text"
    if kind == "text":
        text = pc.replace_substring(pc.cast(arr, pa.large_string()), "\\", "\\\\")
        text = pc.replace_substring(text, '"', '\\"')
        return pc.binary_join_element_wise(_lit('"'), text, _lit('"'), _lit(""))
    return pc.cast(pa.array(np.asarray(arr, dtype=np.int64)), pa.large_string())


def _lit(text: str) -> pa.Scalar:
    return pa.scalar(text, type=pa.large_string())


@dataclass(frozen=True, eq=False)
class KeyParts:
    """The columns of a record key of several columns, as read (integers stay integers,
    text stays text), so that the kinds of two sides' keys can be compared part by part
    and integer parts written as text on request (``id_type="string"``)."""

    columns: tuple[str, ...]
    parts: tuple[IdArray, ...]

    def __len__(self) -> int:
        return len(self.parts[0])

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kind of each part (``"integer"``, ``"text"``, ...)."""
        return tuple(id_kind(p) for p in self.parts)

    def joined(self, *, name: str, as_text: bool = False) -> IdArray:
        """One key per row: the JSON array text of its parts (see :func:`key_ids`); with
        ``as_text``, integer parts are written as their decimal text, quoted."""
        pieces = [
            _json_part(p, name=name, column=c, as_text=as_text)
            for c, p in zip(self.columns, self.parts, strict=True)
        ]
        joined = pc.binary_join_element_wise(*pieces, _lit(","))
        return pc.binary_join_element_wise(_lit("["), joined, _lit("]"), _lit(""))


def key_parts(table: Any, cols: list[str], *, name: str) -> KeyParts:
    """The parts of a record key of several columns ``cols``, checked: no value missing,
    each part of integers or text."""
    parts = [column_ids(table[c]) for c in cols]
    for c, part in zip(cols, parts, strict=True):
        check_no_missing(part, name=name, what=f"values in key column '{c}'")
    for c, part in zip(cols, parts, strict=True):
        _part_kind(part, name=name, column=c)
    return KeyParts(tuple(cols), tuple(parts))


def read_key(table: Any, cols: list[str], *, name: str) -> tuple[IdArray, KeyParts | None]:
    """The key of :func:`key_ids`, and its parts when it has several columns."""
    if len(cols) == 1:
        return column_ids(table[cols[0]]), None
    key = key_parts(table, cols, name=name)
    return key.joined(name=name), key


def key_ids(table: Any, cols: list[str], *, name: str) -> IdArray:
    """The id column ``cols[0]``, or, for several columns, one key per row.

    A key of several columns is written as a JSON array of its parts, e.g.
    ``["source_a",17]`` (text quoted, integers bare), so keys are unambiguous
    and readable in outputs.
    """
    return read_key(table, cols, name=name)[0]


def id_kinds(ids: IdArray, key: KeyParts | None) -> tuple[str, ...]:
    """The kinds of an id column: one for a column, one per part for a key of several."""
    return (id_kind(ids),) if key is None else key.kinds


def describe_kinds(kinds: tuple[str, ...]) -> str:
    """``"integer"`` for one column; ``"keys of (text, integer)"`` for several."""
    return kinds[0] if len(kinds) == 1 else "keys of (" + ", ".join(kinds) + ")"


def record_kind(ids: IdArray, key: KeyParts | None) -> str:
    """The readable kind of a record id column (see :func:`describe_kinds`)."""
    return describe_kinds(id_kinds(ids, key))


def text_would_match(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether ids of the kinds ``a`` and ``b`` become comparable when integers are
    compared as their decimal text (``id_type="string"``): the same number of
    columns, each of one kind or integers against text."""
    ok = {"integer", "text"}
    return len(a) == len(b) and all(x == y or {x, y} == ok for x, y in zip(a, b, strict=True))


def kinds_clash(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether ids of the kinds ``a`` and ``b`` can never be equal: kinds that differ,
    except a column of text against a key of several columns of text, which such a
    column may hold (a key read elsewhere, as its JSON text)."""
    if a == b:
        return False
    single, several = (a, b) if len(a) == 1 else (b, a)
    return not (
        len(single) == 1 < len(several) and single == ("text",) and set(several) == {"text"}
    )


def comparable_ids(
    ids: IdArray, key: KeyParts | None, id_type: IdType, *, name: str
) -> tuple[IdArray, tuple[str, ...]]:
    """The ids as compared under ``id_type`` (integers as decimal text for
    ``"string"``, in every part of a key of several columns), and their kinds."""
    if key is None:
        out = cast_ids(ids, id_type, name=name)
        return out, (id_kind(out),)
    kinds = key.kinds
    if id_type == "string" and "integer" in kinds:
        return key.joined(name=name, as_text=True), tuple(
            "text" if k == "integer" else k for k in kinds
        )
    return ids, kinds


def keyed_frame(frame: Any, record_col: Columns, *, name: str) -> tuple[Any, str]:
    """``frame`` with its record key in one column, and that column's name.

    For one key column, ``frame`` and the column are returned unchanged; for
    several, a pandas copy of ``frame`` gains a column named by joining them
    with ``+`` that holds the key of :func:`key_ids`.
    """
    cols = column_names(record_col, name="record_col")
    if len(cols) == 1:
        return frame, cols[0]
    table = frame if instance_of(frame, "pandas", "DataFrame") else frame.to_pandas()
    present = table_columns(table, name=name)
    missing = [c for c in cols if c not in present]
    if missing:
        raise missing_columns_error(name, missing, present, "'record_col'")
    joined = "+".join(cols)
    keys = key_ids(table, cols, name=name)
    import pandas as pd  # imported by to_pandas if not before

    return table.assign(**{joined: pd.Series(to_numpy(keys), index=table.index)}), joined


def table_columns(table: Any, *, name: str) -> list[str]:
    cols = getattr(table, "column_names", None)  # pyarrow (its .columns are the data)
    if cols is None:
        cols = getattr(table, "columns", None)
    if cols is None:
        raise InputTypeError(
            f"'{name}' is not a table with named columns; received {describe(table)}"
        )
    return [str(c) for c in cols]


def missing_columns_error(
    name: str, missing: list[str], cols: list[str], options: str
) -> InputError:
    """The error for columns ``missing`` from the input ``name`` whose columns are ``cols``
    (``options`` names the options that choose others)."""
    return InputError(
        f"'{name}' has no column(s) {', '.join(repr(m) for m in missing)}; "
        f"its columns are {cols[:10]!r}{' ...' if len(cols) > 10 else ''} "
        f"(set {options} to choose others)"
    )
