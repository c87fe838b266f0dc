"""Summary statistics of a clustering (Binette et al. 2024, §3.1, Definitions 1 and 2).

For a clustering ``C`` of the records ``R``, with a label (a name) ``s_r`` per
record where one is given:

=========================  ==============================================================
``n_records``              ``|R|``
``n_clusters``             ``|C|``
``average_cluster_size``   ``R_size = |R| / |C|``
``matching_rate``          ``R_m = |{r : |c(r)| > 1}| / |R|``, the share of records linked
                           to another record
``hill_<q>``               ``H_q = (sum_i P(|c| = i)^q)^(1 / (1 - q))`` of the cluster-size
                           distribution (eq. 1): ``H_0`` the number of distinct sizes,
                           ``H_1 = exp(Shannon entropy)``, ``H_2 = 1 / sum_i p_i^2``,
                           ``H_inf = 1 / max_i p_i``
``homonymy_rate``          ``R_h``: the share of clusters holding a record whose name is
                           also carried by a record of another cluster (eq. 2)
``name_variation_rate``    ``R_v``: the share of clusters whose records carry more than
                           one name (eq. 3)
=========================  ==============================================================

Counts stay exact integers until the final division. The same per-cluster
indicators serve the estimators of these statistics for the unknown true
clustering (:mod:`ereval.estimators`), which reproduce them on a census.

>>> s = summarize({1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4})
>>> s.n_clusters, s.average_cluster_size, s.matching_rate
(4, 2.0, 0.875)
>>> [round(s.hill(q), 4) for q in (0, 1, 2, float("inf"))]
[3.0, 2.8284, 2.6667, 2.0]
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import describe, examples
from ..contingency import count_cells
from ..engines import Engine, EngineName
from ..io import (
    Columns,
    Membership,
    column_names,
    encode,
    key_ids,
    missing_mask,
    read_membership,
    read_table,
    to_arrow_ids,
    to_numpy,
)
from ..results import FrameRepr, json_ready

__all__ = [
    "DEFAULT_HILL_ORDERS",
    "Summary",
    "cluster_sizes",
    "entropy_curve",
    "hill_key",
    "hill_number",
    "hill_numbers",
    "name_codes",
    "name_indicators",
    "size_distribution",
    "summarize",
    "summary_from_codes",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The Hill numbers a :class:`Summary` reports by default (``hill_0``, ``hill_1``,
#: ``hill_2``, ``hill_inf``).
DEFAULT_HILL_ORDERS: tuple[float, ...] = (0.0, 1.0, 2.0, math.inf)


# --------------------------------------------------------------------------- size distribution
def size_distribution(sizes: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """The distinct cluster sizes and how many clusters have each (``np.bincount``).

    Parameters
    ----------
    sizes : array of int
        The size of every cluster (each at least 1).

    Returns
    -------
    (size, count) : two int64 arrays, ``size`` increasing.

    Examples
    --------
    >>> size, count = size_distribution([2, 2, 1, 3])
    >>> size.tolist(), count.tolist()
    ([1, 2, 3], [1, 2, 1])
    """
    arr = _check_sizes(sizes)
    counts = np.bincount(arr)
    size = np.flatnonzero(counts).astype(np.int64)
    return size, counts[size].astype(np.int64)


def _check_sizes(sizes: npt.ArrayLike) -> IntArray:
    arr = np.asarray(sizes)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InputTypeError(f"'sizes' must be a 1-D array of integers; received {describe(sizes)}")
    if arr.size == 0:
        raise InputError("'sizes' is empty; a clustering has at least one cluster")
    if int(arr.min()) < 1:
        raise InputError(f"'sizes' must be at least 1; received {int(arr.min())}")
    return arr.astype(np.int64, copy=False)


def _check_order(q: Any) -> float:
    if isinstance(q, bool) or not isinstance(q, numbers.Real):
        raise InputTypeError(f"'q' must be a real number >= 0 (or inf); received {describe(q)}")
    value = float(q)
    if math.isnan(value) or value < 0:
        raise InputError(f"'q' must be a number >= 0 (or inf); received {q!r}")
    return value


def _log_hill(counts: IntArray, qs: FloatArray) -> FloatArray:
    """``log H_q`` for each order of ``qs`` from the counts of each distinct size."""
    total = float(counts.sum())
    p = counts / total
    logp = np.log(p)
    out = np.empty(qs.shape[0], dtype=np.float64)
    for k, q in enumerate(qs):
        if q == 0.0:
            out[k] = math.log(counts.shape[0])
        elif math.isinf(q):
            out[k] = math.log(total / float(counts.max()))
        elif abs(q - 1.0) < 0.5:
            # log sum p^q = log1p(sum p (p^(q-1) - 1)): exact as q -> 1, whose limit is Shannon's
            if q == 1.0:
                out[k] = -float((p * logp).sum())
            else:
                s = float((p * np.expm1((q - 1.0) * logp)).sum())
                out[k] = math.log1p(s) / (1.0 - q)
        else:
            top = float(logp.max())
            s = float(np.exp(q * (logp - top)).sum())
            out[k] = (q * top + math.log(s)) / (1.0 - q)
    return out


def _hill(counts: IntArray, qs: FloatArray) -> FloatArray:
    """``H_q`` for each order; ``H_0``, ``H_2`` and ``H_inf`` from exact integer counts."""
    out = np.exp(_log_hill(counts, qs))
    total = int(counts.sum())
    for k, q in enumerate(qs):
        if q == 0.0:
            out[k] = float(counts.shape[0])
        elif q == 2.0:
            out[k] = total * total / int((counts * counts).sum())
        elif math.isinf(q):
            out[k] = total / int(counts.max())
    return out


def hill_numbers(sizes: npt.ArrayLike, qs: Iterable[float]) -> FloatArray:
    """Hill numbers ``H_q`` of the cluster-size distribution for each order in ``qs``.

    ``H_q = (sum_i p_i^q)^(1/(1-q))`` with ``p_i`` the share of clusters of size
    ``i`` (Binette et al. 2024, eq. 1), extended continuously at ``q = 1``
    (``exp(-sum p log p)``) and ``q = inf`` (``1 / max p``).

    Parameters
    ----------
    sizes : array of int
        The size of every cluster.
    qs : iterable of float
        Orders, each ``>= 0`` (``inf`` allowed).

    Examples
    --------
    >>> hill_numbers([2, 2, 1, 3], [0, 1, 2, float("inf")]).round(4).tolist()
    [3.0, 2.8284, 2.6667, 2.0]
    """
    orders = np.array([_check_order(q) for q in qs], dtype=np.float64)
    _, counts = size_distribution(sizes)
    return _hill(counts, orders)


def hill_number(sizes: npt.ArrayLike, q: float) -> float:
    """The Hill number of order ``q`` of the cluster-size distribution (see :func:`hill_numbers`)."""
    return float(hill_numbers(sizes, [q])[0])


def entropy_curve(
    sizes: npt.ArrayLike, qs: npt.ArrayLike | None = None
) -> tuple[FloatArray, FloatArray]:
    """The entropy curve: ``H_q`` against ``q`` (default 81 orders from 0 to 4).

    The curve is non-increasing in ``q``, from the number of distinct sizes
    ``H_0`` towards ``H_inf = 1 / max p``; it determines the ordered size
    distribution (Binette et al. 2024, §3.1).

    Returns
    -------
    (q, H) : two float arrays.
    """
    orders = np.linspace(0.0, 4.0, 81) if qs is None else np.asarray(qs, dtype=np.float64)
    if orders.ndim != 1:
        raise InputTypeError(f"'qs' must be a 1-D array of orders; received {describe(qs)}")
    return orders, hill_numbers(sizes, orders.tolist())


# --------------------------------------------------------------------------- names
def name_codes(
    names: Any, membership: Membership, *, table: Any = None, source: str = "clustering"
) -> IntArray:
    """A code per record of ``membership`` for its name: equal codes, equal names.

    Parameters
    ----------
    names : str, list of str, mapping or Series
        A column (or several, taken together) of ``table``, or a mapping from
        record id to name covering every record.
    membership : Membership
        The clustering the names belong to.
    table : DataFrame, optional
        The table ``membership`` was read from, when ``names`` names columns.
    source : str, default "clustering"
        The clustering's argument name, used in error messages.

    Raises
    ------
    InputError
        A named column is absent, a record has no name, or a name is missing.
    """
    if isinstance(names, str | list | tuple):
        cols = column_names(names if isinstance(names, str) else list(names), name="names")
        if table is None or not hasattr(table, "columns"):
            raise InputError(
                f"'names' names a column ({cols[0]!r}) but '{source}' is not a table; "
                "give a mapping from record id to name instead"
            )
        frame = table if isinstance(table, pd.DataFrame) else table.to_pandas()
        absent = [c for c in cols if c not in frame.columns]
        if absent:
            raise InputError(
                f"'names': '{source}' has no column {absent[0]!r}; its columns are "
                f"{[str(c) for c in frame.columns]}"
            )
        for c in cols:
            gaps = np.asarray(frame[c].isna())
            if gaps.any():
                raise InputError(
                    f"'names' is missing (empty, None or NaN) for {int(gaps.sum())} record(s) "
                    f"in column {c!r}, e.g. {examples(membership.records[gaps])}"
                )
        values: Any = to_numpy(key_ids(frame, cols, name="names"))
    elif isinstance(names, Mapping | pd.Series):
        series = names if isinstance(names, pd.Series) else pd.Series(dict(names), dtype=object)
        if not series.index.is_unique:
            raise InputError("'names' has repeated record ids")
        pos = series.index.get_indexer(membership.records)
        if (pos < 0).any():
            raise InputError(
                f"'names' has no name for {int((pos < 0).sum())} record(s) of '{source}' (e.g. "
                f"{examples(membership.records[pos < 0])}); homonymy needs the name of every "
                "record"
            )
        if series.shape[0] != membership.records.shape[0]:
            extra = series.shape[0] - membership.records.shape[0]
            raise InputError(
                f"'names' covers {extra} record(s) that are not in '{source}'; it must cover "
                "exactly the population whose names are counted"
            )
        native = series.to_numpy()
        values = (native if native.dtype.kind in "iufb" else native.astype(object))[pos]
    else:
        raise InputTypeError(
            f"'names' must be a column of '{source}' or a mapping from record id to name; "
            f"received {describe(names)}"
        )
    missing = np.asarray(pd.isna(values)) if values.dtype == object else missing_mask(values)
    if missing.any():
        raise InputError(
            f"'names' is missing (None/NaN) for {int(missing.sum())} record(s), e.g. "
            f"{examples(membership.records[missing])}"
        )
    ids = values if values.dtype.kind in "iub" else to_arrow_ids(values)
    codes, _ = encode(ids, sort=False)  # integer names in a dense range: by offset
    return codes.astype(np.int64, copy=False)


def name_indicators(
    rows: IntArray, names: IntArray, counts: IntArray, name_totals: IntArray, n_clusters: int
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per cluster: does it hold a homonym (eq. 2), does it vary in names (eq. 3)?

    Parameters
    ----------
    rows, names, counts : int arrays
        The non-zero cells ``(cluster, name, count)`` of the cluster-by-name table
        (from :func:`ereval.contingency.count_cells`).
    name_totals : int array
        How many records of the whole population carry each name.
    n_clusters : int
        Number of clusters (rows).

    Returns
    -------
    (homonym, variation) : two boolean arrays of length ``n_clusters``.
        ``homonym[c]``: some name in ``c`` is also carried outside ``c``
        (``n(r) ⊄ c``); ``variation[c]``: ``c`` holds more than one name
        (``c ⊄ n(r)``).
    """
    shared = name_totals[names] > counts
    homonym = np.bincount(rows, weights=shared, minlength=n_clusters) > 0
    variation = np.bincount(rows, minlength=n_clusters) > 1
    return homonym, variation


# --------------------------------------------------------------------------- the summary
@dataclass(frozen=True, eq=False)
class Summary(FrameRepr):
    """Summary statistics of one clustering (see the module docstring).

    Attributes
    ----------
    n_records, n_clusters : int
    n_matched : int
        Records in clusters of size at least 2 (the numerator of the matching rate).
    sizes, counts : int arrays
        The distinct cluster sizes and the number of clusters of each.
    n_homonym, n_variation : int or None
        Clusters holding a homonym / a name variation (``None`` without names).
    """

    n_records: int
    n_clusters: int
    n_matched: int
    sizes: IntArray = field(repr=False)
    counts: IntArray = field(repr=False)
    n_homonym: int | None = None
    n_variation: int | None = None

    @property
    def average_cluster_size(self) -> float:
        """``|R| / |C|``."""
        return self.n_records / self.n_clusters

    @property
    def matching_rate(self) -> float:
        """Share of records in clusters of at least two records."""
        return self.n_matched / self.n_records

    @property
    def homonymy_rate(self) -> float:
        """Share of clusters holding a record whose name another cluster also has (NaN
        without names)."""
        return math.nan if self.n_homonym is None else self.n_homonym / self.n_clusters

    @property
    def name_variation_rate(self) -> float:
        """Share of clusters with more than one name (NaN without names)."""
        return math.nan if self.n_variation is None else self.n_variation / self.n_clusters

    @property
    def has_names(self) -> bool:
        """Whether names were given (homonymy and name variation are defined)."""
        return self.n_homonym is not None

    def hill(self, q: float) -> float:
        """The Hill number of order ``q`` of the cluster-size distribution."""
        return float(_hill(self.counts, np.array([_check_order(q)]))[0])

    def entropy_curve(self, qs: npt.ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """``(q, H_q)`` (see :func:`entropy_curve`)."""
        orders = np.linspace(0.0, 4.0, 81) if qs is None else np.asarray(qs, dtype=np.float64)
        checked = np.array([_check_order(q) for q in orders.tolist()], dtype=np.float64)
        return checked, _hill(self.counts, checked)

    def statistics(self, hill_orders: Sequence[float] = DEFAULT_HILL_ORDERS) -> dict[str, float]:
        """The statistics by name (``hill_<q>`` for each order; NaN without names).

        Counts are integers, rates and Hill numbers floats.
        """
        out: dict[str, float] = {
            "n_records": self.n_records,
            "n_clusters": self.n_clusters,
            "average_cluster_size": self.average_cluster_size,
            "matching_rate": self.matching_rate,
        }
        for q in hill_orders:
            out[hill_key(q)] = self.hill(q)
        out["homonymy_rate"] = self.homonymy_rate
        out["name_variation_rate"] = self.name_variation_rate
        return out

    def to_dict(self) -> dict[str, Any]:
        """:meth:`statistics` (default Hill orders), ``n_matched``, the clusters with a
        homonym / a name variation and the size distribution (``sizes``, ``counts``), in
        plain JSON types (NaN as ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                **self.statistics(),
                "n_matched": self.n_matched,
                "n_homonym": self.n_homonym,
                "n_variation": self.n_variation,
                "sizes": self.sizes,
                "counts": self.counts,
            }
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per statistic (:meth:`statistics`): ``statistic, value``."""
        stats = self.statistics()
        return pd.DataFrame({"statistic": list(stats), "value": list(stats.values())})


def hill_key(q: float) -> str:
    """The key of a Hill number: ``hill_0``, ``hill_1.5``, ``hill_inf``."""
    if math.isinf(q):
        return "hill_inf"
    return f"hill_{int(q)}" if float(q).is_integer() else f"hill_{q:g}"


def summary_from_codes(cluster_codes: IntArray, names: IntArray | None = None) -> Summary:
    """The :class:`Summary` of a clustering given as a cluster code per record.

    ``cluster_codes`` are non-negative integers (codes no record uses are
    ignored); ``names`` a name code per record, or ``None``.
    """
    codes = np.asarray(cluster_codes, dtype=np.int64)
    if codes.ndim != 1 or codes.size == 0:
        raise InputError("'cluster_codes' must be a non-empty 1-D array")
    per_code = np.bincount(codes)
    per_size = np.bincount(per_code)
    per_size[0] = 0  # unused codes
    sizes = np.flatnonzero(per_size).astype(np.int64)
    counts = per_size[sizes].astype(np.int64)
    n_records = int(codes.shape[0])
    n_clusters = int(counts.sum())
    n_matched = n_records - int(per_size[1]) if per_size.shape[0] > 1 else n_records
    n_homonym = n_variation = None
    if names is not None:
        name_arr = np.asarray(names, dtype=np.int64)
        if name_arr.shape != codes.shape:
            raise InputError("'names' must give one name per record")
        totals = np.bincount(name_arr)
        rows, cols, cells = count_cells(codes, name_arr, totals.shape[0])
        homonym, variation = name_indicators(rows, cols, cells, totals, per_code.shape[0])
        n_homonym = int(homonym.sum())
        n_variation = int(variation.sum())
    return Summary(n_records, n_clusters, n_matched, sizes, counts, n_homonym, n_variation)


def summarize(
    clustering: Any,
    *,
    names: Any = None,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    engine: EngineName | Engine = "auto",
) -> Summary:
    """Summary statistics of a clustering (Binette et al. 2024, §3.1).

    Parameters
    ----------
    clustering : clustering
        Any form of :func:`ereval.io.as_membership` (a CSV/Parquet path, a table, a
        mapping from record id to cluster id, a list of clusters, ...).
    names : str, list of str, mapping or Series, optional
        A name per record, for the homonymy and name-variation rates: a column of
        the clustering's table (several columns are taken together, e.g. first and
        last name), or a mapping from record id to name covering every record.
    record_col, cluster_col : str or list of str
        Column names for tables and files.
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who computes the statistics: in memory (NumPy), or where the data is,
        inside DuckDB (files or a DuckDB relation, out of core) or with Apache
        Spark (files or a Spark DataFrame), which return only aggregates (see
        :func:`ereval.summary.summarize`); ``"auto"`` picks by
        the rule of :func:`ereval.engines.get_engine` (names given as a mapping
        keep a file in memory). Every engine gives the same summary.

    Returns
    -------
    Summary

    Examples
    --------
    >>> s = summarize([["a", "b"], ["c"], ["d", "e", "f"]],
    ...               names={"a": "x", "b": "y", "c": "x", "d": "z", "e": "z", "f": "z"})
    >>> s.matching_rate, s.homonymy_rate, s.name_variation_rate
    (0.8333333333333334, 0.6666666666666666, 0.3333333333333333)
    """
    from ._sql import engine_summary, summary_engine

    builder = summary_engine(
        engine,
        clustering,
        names=names,
    )

    def in_memory() -> Summary:
        return _summary_in_memory(clustering, names, record_col, cluster_col)

    summary: Summary = engine_summary(
        builder,
        clustering,
        names=names,
        record_col=record_col,
        cluster_col=cluster_col,
        in_memory=in_memory,
    )
    return summary


def _summary_in_memory(
    clustering: Any, names: Any, record_col: Columns, cluster_col: Columns
) -> Summary:
    """:func:`summarize` computed in memory."""
    table = None
    if names is not None and isinstance(names, str | list | tuple):
        if isinstance(clustering, str | os.PathLike):
            table = read_table(clustering, name="clustering", text_columns="all")
            clustering = table
        elif hasattr(clustering, "columns"):
            table = clustering
    m, _ = read_membership(
        clustering, name="clustering", record_col=record_col, cluster_col=cluster_col
    )
    codes, _ = encode(m.cluster_ids, sort=False)
    name_arr = None if names is None else name_codes(names, m, table=table)
    return summary_from_codes(codes, name_arr)


def cluster_sizes(
    clustering: Any,
    *,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    engine: EngineName | Engine = "auto",
) -> IntArray:
    """The size of every cluster of ``clustering`` (in no particular order), computed by
    ``engine`` with its options (as :func:`summarize`)."""
    from ._sql import engine_cluster_sizes, summary_engine

    builder = summary_engine(
        engine,
        clustering,
    )

    def in_memory() -> IntArray:
        m, _ = read_membership(
            clustering, name="clustering", record_col=record_col, cluster_col=cluster_col
        )
        codes, _ = encode(m.cluster_ids, sort=False)
        per_code = np.bincount(codes)
        return per_code[per_code > 0].astype(np.int64)

    return engine_cluster_sizes(
        builder, clustering, record_col=record_col, cluster_col=cluster_col, in_memory=in_memory
    )
