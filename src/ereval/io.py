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
    "Membership",
    "PairList",
    "as_membership",
    "as_pairs",
    "column_ids",
    "column_names",
    "duplicate_error",
    "duplicates_of",
    "key_ids",
    "keyed_frame",
    "locate_pairs",
    "missing_columns_error",
    "pairs_frame",
    "read_membership",
    "read_table",
]

_CLUSTER_CONTAINERS = (list, tuple, set, frozenset, np.ndarray)


class Membership:
    """A validated clustering: ``records[k]`` belongs to cluster ``clusters[k]``.

    Record ids are unique and non-missing; both columns have equal length (at
    least one record). Each column is held as read (:data:`ereval.ids.IdArray`:
    a NumPy array, or Arrow text); ``record_ids`` / ``cluster_ids`` give that
    column, ``records`` / ``clusters`` a NumPy view of it (Python ``str``
    objects for text, made on first use).
    """

    __slots__ = ("_cache", "cluster_ids", "record_ids")

    def __init__(self, records: Any, clusters: Any) -> None:
        self.record_ids: IdArray = to_arrow_ids(records)
        self.cluster_ids: IdArray = to_arrow_ids(clusters)
        self._cache: dict[str, npt.NDArray[Any]] = {}

    def __len__(self) -> int:
        return len(self.record_ids)

    def __repr__(self) -> str:
        return (
            f"Membership({len(self)} records of {id_kind(self.record_ids)} ids, "
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

    __slots__ = ("left_ids", "right_ids")

    def __init__(self, left: Any, right: Any) -> None:
        self.left_ids: IdArray = to_arrow_ids(left)
        self.right_ids: IdArray = to_arrow_ids(right)

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


def _json_part(arr: IdArray, *, name: str, column: str) -> pa.Array:
    kind = id_kind(arr)
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


def key_ids(table: Any, cols: list[str], *, name: str) -> IdArray:
    """The id column ``cols[0]``, or, for several columns, one key per row.

    A key of several columns is written as a JSON array of its parts, e.g.
    ``["source_a",17]`` (text quoted, integers bare), so keys are unambiguous
    and readable in outputs.
    """
    parts = [column_ids(table[c]) for c in cols]
    if len(parts) == 1:
        return parts[0]
    for c, part in zip(cols, parts, strict=True):
        check_no_missing(part, name=name, what=f"values in key column '{c}'")
    pieces = [_json_part(p, name=name, column=c) for c, p in zip(cols, parts, strict=True)]
    joined = pc.binary_join_element_wise(*pieces, _lit(","))
    return pc.binary_join_element_wise(_lit("["), joined, _lit("]"), _lit(""))


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
    table: Any, *, name: str, record_cols: list[str], cluster_cols: list[str]
) -> tuple[IdArray, IdArray]:
    cols = _table_columns(table, name=name)
    wanted = record_cols + cluster_cols
    missing = [c for c in wanted if c not in cols]
    if not missing:
        return (
            key_ids(table, record_cols, name=name),
            key_ids(table, cluster_cols, name=name),
        )
    if len(cols) == 2 and len(wanted) == 2 and not any(c in cols for c in wanted):
        return column_ids(table[cols[0]]), column_ids(table[cols[1]])
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
) -> Membership:
    if len(records) != len(clusters):
        raise InputError(f"'{name}': {len(records)} record ids but {len(clusters)} cluster ids")
    if len(records) == 0:
        raise InputError(f"'{name}' is empty; expected at least one record")
    for arr, what in ((records, "record ids"), (clusters, "cluster ids")):
        if not isinstance(arr, pa.Array) and arr.ndim != 1:
            raise InputError(f"'{name}': {what} must be 1-dimensional; received shape {arr.shape}")
        check_no_missing(arr, name=name, what=what)
    if not unique_records:
        dup, surplus = _duplicates(records)
        if surplus:
            raise duplicate_error(name, dup, surplus)
    return Membership(records, clusters)


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
) -> tuple[Membership, list[str] | None]:
    """:func:`as_membership`, also returning the cluster column(s) read from a table or
    file (``None`` for other forms). With ``check_unique=False`` the caller checks that
    record ids are unique (for example from the union of two clusterings)."""
    if isinstance(data, Membership):
        return data, None
    record_cols = column_names(record_col, name="record_col")
    cluster_cols = column_names(cluster_col, name="cluster_col")
    if isinstance(data, str | os.PathLike):
        spec = file_spec(data, name=name)
        wanted = record_cols + cluster_cols
        present = set(header(spec, name=name))
        table = read_arrow(
            spec,
            name=name,
            text_columns="all",
            columns=wanted if present.issuperset(wanted) else None,
        )
        recs, clus = _pick_membership(
            table, name=name, record_cols=record_cols, cluster_cols=cluster_cols
        )
        return _finalise(recs, clus, name=name, unique_records=not check_unique), cluster_cols
    if instance_of(data, "pandas", "Series"):
        return _finalise(
            column_ids(data.index), column_ids(data), name=name, unique_records=not check_unique
        ), None
    if instance_of(data, "pandas", "DataFrame"):
        recs, clus = _pick_membership(
            data, name=name, record_cols=record_cols, cluster_cols=cluster_cols
        )
        return _finalise(recs, clus, name=name, unique_records=not check_unique), cluster_cols
    module = type(data).__module__
    if module.startswith(("polars", "pyarrow")):
        kind = type(data).__name__
        if kind in ("Series", "Array", "ChunkedArray") or kind.endswith("Array"):
            return _labels(column_ids(data), name=name), None
        recs, clus = _pick_membership(
            data, name=name, record_cols=record_cols, cluster_cols=cluster_cols
        )
        return _finalise(recs, clus, name=name, unique_records=not check_unique), cluster_cols
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


def locate_pairs(
    truth: Membership, pairs: PairList, *, id_type: IdType = "exact"
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], IdArray, IdArray]:
    """Where the two records of every pair stand in ``truth`` (``-1`` where absent).

    Returns ``(left_index, right_index, left_ids, right_ids)``: positions in
    ``truth``'s records, and the pairs' ids as compared (after ``id_type``).
    Record ids of a different kind from the truth's are an error naming both.
    """
    from .contingency import id_type_error

    t_ids = cast_ids(truth.record_ids, id_type, name="truth")
    left = cast_ids(pairs.left_ids, id_type, name="pairs")
    right = cast_ids(pairs.right_ids, id_type, name="pairs")
    if id_kind(t_ids) != id_kind(left):
        raise id_type_error(
            id_kind(t_ids), id_kind(left), to_numpy(t_ids[:2]), to_numpy(left[:2]), other="pairs"
        )
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
        lv = key_ids(data, left_cols, name=name)
        rv = key_ids(data, right_cols, name=name)
    elif isinstance(data, np.ndarray | list | tuple):
        items = list(data)
        if any(not isinstance(p, tuple | list | np.ndarray) or len(p) != 2 for p in items):
            raise InputTypeError(f"'{name}' must hold pairs (2-tuples) of record ids")
        lv = to_arrow_ids(_object_array(p[0] for p in items))
        rv = to_arrow_ids(_object_array(p[1] for p in items))
    else:
        raise InputTypeError(
            f"'{name}' must be a table of pairs, a list of 2-tuples or a CSV/Parquet path; "
            f"received {describe(data)}"
        )
    check_no_missing(lv, name=name, what="record ids (first column)")
    check_no_missing(rv, name=name, what="record ids (second column)")
    if len(lv) == 0:
        return PairList(lv, rv)  # no pair: nothing predicted
    if id_kind(lv) != id_kind(rv):
        raise InputTypeError(
            f"'{name}': the first column holds {id_kind(lv)} ids and the second "
            f"{id_kind(rv)} ids; give both columns the same type"
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
    return PairList(lv, rv)
