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
  Parquet file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import InputError, InputTypeError
from ._validation import describe, examples

__all__ = [
    "Membership",
    "PairList",
    "as_membership",
    "as_pairs",
    "read_table",
]

_CLUSTER_CONTAINERS = (list, tuple, set, frozenset, np.ndarray)


@dataclass(frozen=True, eq=False)
class Membership:
    """A validated clustering: ``records[k]`` belongs to cluster ``clusters[k]``.

    Record ids are unique and non-missing; both arrays are 1-D of equal length
    (at least one record).
    """

    records: npt.NDArray[Any]
    clusters: npt.NDArray[Any]

    def __len__(self) -> int:
        return int(self.records.shape[0])

    @property
    def n_clusters(self) -> int:
        """Number of distinct cluster ids."""
        return int(pd.unique(self.clusters).shape[0])

    def to_frame(
        self, *, record_col: str = "record_id", cluster_col: str = "cluster_id"
    ) -> pd.DataFrame:
        """The clustering as a two-column pandas DataFrame."""
        return pd.DataFrame({record_col: self.records, cluster_col: self.clusters})


@dataclass(frozen=True, eq=False)
class PairList:
    """Predicted matching record pairs, not necessarily transitive.

    ``left[k]`` and ``right[k]`` are predicted to refer to the same entity.
    Self-pairs and repeated pairs (in either order) are rejected on input.
    """

    left: npt.NDArray[Any]
    right: npt.NDArray[Any]

    def __len__(self) -> int:
        return int(self.left.shape[0])


# ---------------------------------------------------------------------------
# files


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"] and len(suffixes) >= 2:
        return suffixes[-2] + ".gz"
    return suffixes[-1] if suffixes else ""


def read_table(path: str | os.PathLike[str], *, name: str = "file") -> pd.DataFrame:
    """Read a CSV (``.csv``, ``.csv.gz``, ``.tsv``) or Parquet (``.parquet``, ``.pq``) file.

    Identifier columns keep the types the file gives them: integers stay
    integers, anything else is read as text. Unreadable or malformed files raise
    :class:`~ereval.InputError` naming ``name`` and the path.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"'{name}': file not found: '{p}'")
    if p.is_dir():
        raise InputError(f"'{name}': expected a CSV or Parquet file; received a directory '{p}'")
    kind = _suffix(p)
    try:
        if kind in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            return pq.read_table(p).to_pandas()
        if kind in (".csv", ".csv.gz", ".txt", ".txt.gz"):
            return pd.read_csv(
                p, dtype_backend="numpy_nullable", keep_default_na=False, na_values=[""]
            )
        if kind in (".tsv", ".tsv.gz"):
            return pd.read_csv(
                p, sep="\t", dtype_backend="numpy_nullable", keep_default_na=False, na_values=[""]
            )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"'{name}': cannot read '{p}' as {kind.lstrip('.')} ({exc})") from exc
    except Exception as exc:  # parser-specific errors of pyarrow / pandas
        raise InputError(f"'{name}': cannot read '{p}' ({type(exc).__name__}: {exc})") from exc
    raise InputError(
        f"'{name}': expected a file ending in .csv, .csv.gz, .tsv or .parquet; received '{p}'"
    )


# ---------------------------------------------------------------------------
# column helpers


def _column_values(values: Any) -> npt.NDArray[Any]:
    """A column (pandas / polars / pyarrow) as a NumPy array, missing values as None/NaN."""
    if isinstance(values, pd.Series):
        out: npt.NDArray[Any]
        if isinstance(values.dtype, pd.api.extensions.ExtensionDtype):
            kind = getattr(values.dtype, "kind", "O")
            if values.hasnans:
                out = values.astype(object).to_numpy()
            elif kind in "iub":
                out = values.to_numpy(dtype=getattr(values.dtype, "numpy_dtype", None))
            elif kind == "f":
                out = values.to_numpy(dtype=np.float64)
            else:
                out = values.to_numpy(dtype=object)
        else:
            out = values.to_numpy()
        return out
    module = type(values).__module__
    if module.startswith("pyarrow"):
        return _column_values(values.to_pandas())
    if module.startswith("polars"):
        return _column_values(values.to_pandas())
    return np.asarray(values)


def _table_columns(table: Any, *, name: str) -> list[str]:
    cols = getattr(table, "column_names", None)  # pyarrow (its .columns are the data)
    if cols is None:
        cols = getattr(table, "columns", None)
    if cols is None:
        raise InputTypeError(
            f"'{name}' is not a table with named columns; received {describe(table)}"
        )
    return [str(c) for c in cols]


def _pick_columns(table: Any, *, name: str, record_col: str, cluster_col: str) -> tuple[Any, Any]:
    cols = _table_columns(table, name=name)
    if record_col in cols and cluster_col in cols:
        return table[record_col], table[cluster_col]
    missing = [c for c in (record_col, cluster_col) if c not in cols]
    if len(cols) == 2 and not any(c in cols for c in (record_col, cluster_col)):
        return table[cols[0]], table[cols[1]]
    raise InputError(
        f"'{name}' has no column(s) {', '.join(repr(m) for m in missing)}; "
        f"its columns are {cols[:10]!r}{' ...' if len(cols) > 10 else ''} "
        "(set record_col / cluster_col to choose others)"
    )


# ---------------------------------------------------------------------------
# validation


def _missing_mask(arr: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    if arr.dtype.kind in "iub":
        return np.zeros(arr.shape[0], dtype=bool)
    if arr.dtype.kind in "fc":
        return np.asarray(np.isnan(arr), dtype=bool)
    if arr.dtype.kind in "mM":
        return np.asarray(np.isnat(arr), dtype=bool)
    return np.asarray(pd.isna(arr), dtype=bool)


def _check_ids(arr: npt.NDArray[Any], *, name: str, what: str) -> npt.NDArray[Any]:
    if arr.ndim != 1:
        raise InputError(f"'{name}': {what} must be 1-dimensional; received shape {arr.shape}")
    missing = _missing_mask(arr)
    if missing.any():
        pos = np.flatnonzero(missing)
        raise InputError(
            f"'{name}' has {pos.size} missing {what} (None/NaN/empty), first at row {int(pos[0])}"
        )
    return arr


def _dense_int_span(*arrays: npt.NDArray[Any]) -> tuple[int, int] | None:
    """``(min, span)`` over integer arrays whose joint range is at most a few times
    their total size; ``None`` otherwise."""
    if any(a.dtype.kind not in "iu" or a.size == 0 for a in arrays):
        return None
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    span = hi - lo + 1
    if span > 4 * sum(a.size for a in arrays) + 1024:
        return None
    return lo, span


def _offsets(values: npt.NDArray[Any], lo: int) -> npt.NDArray[np.int64]:
    """``values - lo`` as int64, with a single pass over the data."""
    if values.dtype == np.int64:
        return values - lo if lo else values
    out = values.astype(np.int64)
    if lo:
        out -= lo
    return out


def _duplicates(records: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], int]:
    """The record ids that occur more than once, and the number of surplus copies."""
    dense = _dense_int_span(records)
    if dense is not None:
        lo, span = dense
        offsets = _offsets(records, lo)
        seen = np.zeros(span, dtype=bool)  # a byte per id: far cheaper to scatter than counts
        seen[offsets] = True
        if np.count_nonzero(seen) == records.shape[0]:
            return records[:0], 0
        counts = np.bincount(offsets, minlength=span)
        dup = np.flatnonzero(counts > 1)
        return dup + lo, int((counts[dup] - 1).sum())
    codes, uniques = pd.factorize(records)
    if uniques.shape[0] == records.shape[0]:
        return records[:0], 0
    counts = np.bincount(codes)
    dup = np.flatnonzero(counts > 1)
    return np.asarray(uniques)[dup], int((counts[dup] - 1).sum())


def _finalise(
    records: npt.NDArray[Any],
    clusters: npt.NDArray[Any],
    *,
    name: str,
    unique_records: bool = False,
) -> Membership:
    if records.shape[0] != clusters.shape[0]:
        raise InputError(
            f"'{name}': {records.shape[0]} record ids but {clusters.shape[0]} cluster ids"
        )
    if records.shape[0] == 0:
        raise InputError(f"'{name}' is empty; expected at least one record")
    _check_ids(records, name=name, what="record ids")
    _check_ids(clusters, name=name, what="cluster ids")
    if not unique_records:
        dup, surplus = _duplicates(records)
        if surplus:
            raise InputError(
                f"'{name}' has {surplus} duplicate record ids (e.g. {examples(dup)}); "
                "each record must belong to exactly one cluster"
            )
    return Membership(records=records, clusters=clusters)


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
    return _finalise(_tighten(records), np.asarray(labels, dtype=np.int64), name=name)


def _tighten(arr: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Give an object array of plain ints or strs a native dtype (faster hashing)."""
    if arr.dtype != object or arr.shape[0] == 0:
        return arr
    first = arr[0]
    if isinstance(first, int | np.integer) and not isinstance(first, bool):
        if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in arr):
            try:
                return arr.astype(np.int64)
            except OverflowError:
                return arr
    return arr


def _labels(values: npt.NDArray[Any], *, name: str) -> Membership:
    if values.ndim != 1:
        raise InputError(
            f"'{name}': a label array must be 1-dimensional; received shape {values.shape}"
        )
    return _finalise(
        np.arange(values.shape[0], dtype=np.int64), values, name=name, unique_records=True
    )


# ---------------------------------------------------------------------------
# public entry points


def as_membership(
    data: Any,
    *,
    name: str = "clustering",
    record_col: str = "record_id",
    cluster_col: str = "cluster_id",
) -> Membership:
    """Validate a clustering given in any supported form (see module docstring).

    Parameters
    ----------
    data : object
        The clustering.
    name : str, default "clustering"
        The argument name used in error messages (e.g. ``"truth"``).
    record_col, cluster_col : str, default "record_id", "cluster_id"
        Column names for tables and files.

    Returns
    -------
    Membership

    Examples
    --------
    >>> m = as_membership([["a", "b"], ["c"]], name="truth")
    >>> list(m.records), list(m.clusters)
    (['a', 'b', 'c'], [0, 0, 1])
    """
    if isinstance(data, Membership):
        return data
    if isinstance(data, str | os.PathLike):
        table = read_table(data, name=name)
        recs, clus = _pick_columns(table, name=name, record_col=record_col, cluster_col=cluster_col)
        return _finalise(_column_values(recs), _column_values(clus), name=name)
    if isinstance(data, pd.Series):
        return _finalise(_column_values(data.index.to_series()), _column_values(data), name=name)
    if isinstance(data, pd.DataFrame):
        recs, clus = _pick_columns(data, name=name, record_col=record_col, cluster_col=cluster_col)
        return _finalise(_column_values(recs), _column_values(clus), name=name)
    module = type(data).__module__
    if module.startswith(("polars", "pyarrow")):
        kind = type(data).__name__
        if kind in ("Series", "Array", "ChunkedArray"):
            return _labels(_column_values(data), name=name)
        recs, clus = _pick_columns(data, name=name, record_col=record_col, cluster_col=cluster_col)
        return _finalise(_column_values(recs), _column_values(clus), name=name)
    if isinstance(data, Mapping):
        keys = np.empty(len(data), dtype=object)
        keys[:] = list(data.keys())
        vals = np.empty(len(data), dtype=object)
        vals[:] = list(data.values())
        return _finalise(_tighten(keys), _tighten(vals), name=name)
    if isinstance(data, np.ndarray):
        return _labels(data, name=name)
    if isinstance(data, list | tuple | set | frozenset):
        items = list(data)
        if not items:
            raise InputError(f"'{name}' is empty; expected at least one record")
        nested = [isinstance(x, _CLUSTER_CONTAINERS) for x in items]
        if all(nested):
            return _from_clusters(items, name=name)
        if any(nested):
            raise InputTypeError(
                f"'{name}' mixes clusters (iterables) and scalar labels; give either a list of "
                "clusters or a list of labels"
            )
        if isinstance(data, set | frozenset):
            raise InputTypeError(f"'{name}': a set of scalars has no order; give a list of labels")
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
        return _labels(_tighten(arr), name=name)
    raise InputTypeError(
        f"'{name}' must be a clustering (DataFrame, Series, dict, list of clusters, label array "
        f"or a CSV/Parquet path); received {describe(data)}"
    )


def as_pairs(
    data: Any,
    *,
    name: str = "pairs",
    left_col: str = "record_id_1",
    right_col: str = "record_id_2",
) -> PairList:
    """Validate predicted matching pairs.

    Accepts a :class:`PairList`, a two-column table (pandas, polars, pyarrow;
    columns ``left_col``/``right_col`` or any two columns positionally), a CSV or
    Parquet path, a list of 2-tuples, or an ``(n, 2)`` array. Self-pairs, missing
    ids and pairs repeated in either order are errors.
    """
    if isinstance(data, PairList):
        return data
    if isinstance(data, str | os.PathLike):
        data = read_table(data, name=name)
    module = type(data).__module__
    if isinstance(data, pd.DataFrame) or module.startswith(("polars", "pyarrow")):
        left, right = _pick_columns(data, name=name, record_col=left_col, cluster_col=right_col)
        lv, rv = _column_values(left), _column_values(right)
    elif isinstance(data, np.ndarray | list | tuple):
        items = list(data)
        if any(not isinstance(p, tuple | list | np.ndarray) or len(p) != 2 for p in items):
            raise InputTypeError(f"'{name}' must hold pairs (2-tuples) of record ids")
        lv = np.empty(len(items), dtype=object)
        rv = np.empty(len(items), dtype=object)
        lv[:] = [p[0] for p in items]
        rv[:] = [p[1] for p in items]
        lv, rv = _tighten(lv), _tighten(rv)
    else:
        raise InputTypeError(
            f"'{name}' must be a table of pairs, a list of 2-tuples or a CSV/Parquet path; "
            f"received {describe(data)}"
        )
    _check_ids(lv, name=name, what="record ids (first column)")
    _check_ids(rv, name=name, what="record ids (second column)")
    codes, uniques = pd.factorize(
        np.concatenate([lv, rv])
        if lv.dtype == rv.dtype
        else np.concatenate([lv.astype(object), rv.astype(object)])
    )
    n = lv.shape[0]
    a, b = codes[:n].astype(np.int64), codes[n:].astype(np.int64)
    if (a == b).any():
        k = int(np.flatnonzero(a == b)[0])
        raise InputError(f"'{name}' pairs a record with itself (e.g. {lv[k]!r} at row {k})")
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = lo * np.int64(uniques.shape[0]) + hi
    uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
    if uniq.shape[0] != n:
        k = int(first[np.flatnonzero(counts > 1)[0]])
        raise InputError(
            f"'{name}' has {n - uniq.shape[0]} repeated pair(s) (in either order), "
            f"e.g. ({lv[k]!r}, {rv[k]!r}); give each predicted pair once"
        )
    return PairList(left=lv, right=rv)
