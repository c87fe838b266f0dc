"""Compare two releases of a clustering: which clusters were kept, split or merged.

Two releases (an ``old`` and a ``new`` clustering, of possibly overlapping
record sets) are matched by their records, never by their cluster ids: one
contingency table ``n_ij = |old_i ∩ new_j|`` (:func:`ereval.io.align`
with twinless records kept) over the records in both releases. Every cluster
of the old release falls in one category, judged on its records that are still
there:

====================  ===============================================================
``kept``              its records form one new cluster, which holds no record of
                      another old cluster (records added or removed may change it)
``split``             its records went to several new clusters, none shared with
                      another old cluster
``merged``            its records all went to one new cluster, which also holds
                      records of another old cluster
``split_and_merged``  several new clusters, at least one shared with another old
                      cluster
``removed``           none of its records is in the new release
====================  ===============================================================

Records are ``added`` (new only), ``removed`` (old only) or carry their old
cluster's category. The agreement of the two releases on their common records
is given by the metrics of :mod:`ereval.metrics` with the old release as
"truth" (pairwise precision: the share of new links that were old links).

>>> c = compare([[1, 2], [3, 4], [5]], [[1, 2, 5], [3], [4], [6]])
>>> c.counts
{'kept': 0, 'split': 1, 'merged': 2, 'split_and_merged': 0, 'removed': 0}
>>> c.n_added, c.n_removed
(1, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._compare_sql import (
    OLD_CLUSTERS,
    clusters_sql,
    joined_releases,
    new_clusters_sql,
    records_sql,
)
from ._errors import IdKindError, InputError, InputTypeError, RecordMismatchError
from ._moved import moved_records, moved_sql
from ._validation import check_int
from .contingency import ContingencyTable
from .engines import Database, Engine, EngineName, get_engine
from .io import (
    Alignment,
    AlignOptions,
    Columns,
    IdType,
    align,
    frame_column,
    id_type_error,
    in_id_order,
    take,
    to_numpy,
)
from .metrics._records_sql import copy_format
from .metrics._registry import cells_wanted, evaluate, resolve_metrics
from .results import FrameRepr, json_ready
from .statistics._compute import cells_statistics, in_memory_inputs

__all__ = ["CATEGORIES", "Category", "Comparison", "ReleaseTotals", "compare"]

IntArray = npt.NDArray[np.int64]
Category = Literal["kept", "split", "merged", "split_and_merged", "removed"]
#: The categories of an old cluster, in the order they are reported.
CATEGORIES: tuple[Category, ...] = ("kept", "split", "merged", "split_and_merged", "removed")
#: The metric families computed on the common records by default.
DEFAULT_AGREEMENT = "pairwise,cluster,b3"


def _used(codes: IntArray, n_codes: int) -> IntArray:
    """The codes (ascending) that some present record uses: row ``r`` of the table is
    code ``_used(...)[r]``."""
    present = codes[codes >= 0]
    return np.flatnonzero(np.bincount(present, minlength=n_codes) > 0).astype(np.int64)


def _rank(codes: IntArray, n_codes: int) -> IntArray:
    """Each record's row (or column) in the table: the rank of its code among the used
    codes, ``-1`` where the record is absent."""
    present = codes >= 0
    used = np.bincount(codes[present], minlength=n_codes) > 0
    mapping = np.cumsum(used, dtype=np.int64) - 1
    return np.where(present, mapping[np.maximum(codes, 0)], -1)


def _labels(a: Alignment, side: str) -> npt.NDArray[Any]:
    """The cluster ids of the rows (``side="old"``) or columns of the table of ``a``."""
    if side == "old":
        return to_numpy(take(a.true_labels, _used(a.true_codes, a.n_true_codes)))
    return to_numpy(take(a.pred_labels, _used(a.pred_codes, a.n_pred_codes)))


def _labels_or_none(labels: npt.NDArray[Any], index: IntArray) -> npt.NDArray[Any]:
    """``labels[index]``, with ``None`` where ``index`` is ``-1``."""
    out = labels[np.maximum(index, 0)]
    if (index < 0).any():
        out = out.astype(object)
        out[index < 0] = None
    return out


def _common_table(tab: ContingencyTable) -> ContingencyTable:
    """The table restricted to records in both releases (marginals from the cells)."""
    if not tab.has_twinless:
        return tab
    rows_used = tab.row_common > 0
    cols_used = tab.col_common > 0
    row_map = np.cumsum(rows_used, dtype=np.int64) - 1
    col_map = np.cumsum(cols_used, dtype=np.int64) - 1
    return ContingencyTable(
        row_map[tab.rows],
        col_map[tab.cols],
        tab.counts,
        tab.row_common[rows_used],
        tab.col_common[cols_used],
        "intersection",
    )


@dataclass(frozen=True)
class ReleaseTotals:
    """The counts of a comparison: records of each release and of both, clusters of
    each release, new clusters without an old record, and old clusters per category
    (in the order of :data:`CATEGORIES`)."""

    n_old: int
    n_new: int
    n_common: int
    n_clusters_old: int
    n_clusters_new: int
    n_new_only_clusters: int
    categories: tuple[int, ...]

    @classmethod
    def of_table(cls, tab: ContingencyTable, category: IntArray) -> ReleaseTotals:
        """The counts of the table ``tab`` whose old clusters are in ``category``."""
        per = np.bincount(category, minlength=len(CATEGORIES))
        return cls(
            tab.n_true_records,
            tab.n_pred_records,
            tab.n_common,
            tab.n_true_clusters,
            tab.n_pred_clusters,
            int((tab.col_common == 0).sum()),
            tuple(int(k) for k in per),
        )


@dataclass(frozen=True, eq=False)
class Comparison(FrameRepr):
    """The comparison of two releases (see the module docstring).

    Attributes
    ----------
    totals : ReleaseTotals
        The counts of records, clusters and categories.
    agreement : dict
        Metrics on the common records, old as truth (NaN where undefined).
    alignment : Alignment or None
        Both releases over the union of their records (``-1`` where absent); ``None``
        when an SQL engine compared them where the data is (the releases then stay
        there, read again by :meth:`clusters` and :meth:`records`).
    table : ContingencyTable or None
        Old clusters (rows) against new clusters (columns), twinless records kept;
        ``None`` after an SQL engine.
    category : int array or None
        Per old cluster (row of ``table``), its index in :data:`CATEGORIES`.
    source : _Releases, optional
        Where an SQL engine reads the releases again.
    """

    totals: ReleaseTotals
    agreement: dict[str, float]
    alignment: Alignment | None = field(default=None, repr=False)
    table: ContingencyTable | None = field(default=None, repr=False)
    category: IntArray | None = field(default=None, repr=False)
    source: _Releases | None = field(default=None, repr=False)

    @property
    def counts(self) -> dict[str, int]:
        """Number of old clusters in each category."""
        return dict(zip(CATEGORIES, self.totals.categories, strict=True))

    @property
    def n_old(self) -> int:
        """Records of the old release."""
        return self.totals.n_old

    @property
    def n_new(self) -> int:
        """Records of the new release."""
        return self.totals.n_new

    @property
    def n_common(self) -> int:
        """Records in both releases."""
        return self.totals.n_common

    @property
    def n_added(self) -> int:
        """Records only in the new release."""
        return self.n_new - self.n_common

    @property
    def n_removed(self) -> int:
        """Records only in the old release."""
        return self.n_old - self.n_common

    @property
    def n_new_only_clusters(self) -> int:
        """New clusters made only of added records."""
        return self.totals.n_new_only_clusters

    def _in_memory(self) -> tuple[Alignment, ContingencyTable, IntArray] | None:
        a, t, c = self.alignment, self.table, self.category
        return None if a is None or t is None or c is None else (a, t, c)

    def _again(self, read: Callable[[Database], Any]) -> Any:
        """What ``read`` reads of the releases joined again by the SQL engine that
        compared them."""
        if self.source is None:
            raise InputError("this comparison holds no records")
        return self.source.engine.run(_AgainJob(self.source, read))

    def clusters(self) -> pd.DataFrame:
        """One row per old cluster: ``old_cluster, size, n_common, n_new_clusters,
        category`` (after an SQL engine, read again by it, in the order of the ids)."""
        held = self._in_memory()
        if held is None:
            clusters: pd.DataFrame = self._again(_rows(clusters_sql(), None))
            return clusters
        a, t, category = held
        return pd.DataFrame(
            {
                "old_cluster": _labels(a, "old"),
                "size": t.true_sizes,
                "n_common": t.row_common,
                "n_new_clusters": t.row_cells,
                "category": np.asarray(CATEGORIES, dtype=object)[category],
            }
        )

    def records(self, *, changed_only: bool = False) -> pd.DataFrame:
        """One row per record of either release: ``record_id, old_cluster, new_cluster,
        category`` (``added`` / ``removed`` for a record of one release only; the
        missing side is empty), in the order of their ids (numbers by value, text by
        its bytes) on every engine.

        With ``changed_only``, only records of old clusters that were not kept, and
        added or removed records. After an SQL engine compared the releases, it reads
        them again and joins them where they are.
        """
        held = self._in_memory()
        if held is None:
            query = records_sql(changed_only=changed_only, ordered=True)
            records: pd.DataFrame = self._again(_rows(query, None))
            return records
        a, _, category = held
        rows = _rank(a.true_codes, a.n_true_codes)
        cols = _rank(a.pred_codes, a.n_pred_codes)
        names = np.asarray([*CATEGORIES, "added"], dtype=object)
        cat = np.where(rows >= 0, category[np.maximum(rows, 0)], len(CATEGORIES))
        cat = np.where((rows >= 0) & (cols < 0), CATEGORIES.index("removed"), cat)
        keep = cat != CATEGORIES.index("kept") if changed_only else np.ones(cat.size, dtype=bool)
        at = in_id_order(a.records, np.flatnonzero(keep))
        r, c = rows[at], cols[at]
        return pd.DataFrame(
            {
                "record_id": frame_column(take(a.records, at)),
                "old_cluster": _labels_or_none(_labels(a, "old"), r),
                "new_cluster": _labels_or_none(_labels(a, "new"), c),
                "category": names[cat[at]],
            }
        )

    def moved(self, first: int = 20) -> tuple[int, pd.DataFrame]:
        """The records that changed cluster (:mod:`ereval._moved`: not those that stayed
        in a cluster that gained or lost records), counted, and the ``first`` of them
        in the order of their ids (the columns of :meth:`records`). After an SQL
        engine, the releases are joined again where they are and only these come
        back."""
        first = check_int("first", first, minimum=0)
        if self._in_memory() is None:
            found: tuple[int, pd.DataFrame] = self._again(_moved_rows(first))
            return found
        changed = self.records(changed_only=True)
        mask = moved_records(changed)
        return int(mask.sum()), changed[mask].head(first).reset_index(drop=True)

    def write_records(self, path: str | Path, *, changed_only: bool = False) -> int:
        """Write :meth:`records` to ``path`` (CSV, gzipped CSV or Parquet by its ending),
        the rows in the order of their ids: the engine writes the file itself when it
        can (DuckDB, the rows never pass through Python); the number of rows written.

        Raises
        ------
        InputError
            ``path`` has another ending (write the frame of :meth:`records`).
        """
        fmt = copy_format(path)
        if fmt is None:
            raise InputError(
                f"'path' must end in .csv, .csv.gz or .parquet; received {str(path)!r}"
            )
        source = self.source
        if self.alignment is None and source is not None and source.engine.writes_files:
            written: int = self._again(
                _rows(records_sql(changed_only=changed_only, ordered=True), (Path(path), fmt))
            )
            return written
        frame = self.records(changed_only=changed_only)
        if fmt == "parquet":
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, index=False, compression="gzip" if fmt == "csv.gz" else None)
        return len(frame)

    def to_frame(self) -> pd.DataFrame:
        """One row per record of either release (:meth:`records`)."""
        return self.records()

    def to_dict(self) -> dict[str, Any]:
        """Record counts, category counts and agreement, in plain JSON types (NaN as
        ``None``)."""
        out: dict[str, Any] = json_ready(
            {
                "n_records_old": self.n_old,
                "n_records_new": self.n_new,
                "n_common": self.n_common,
                "n_added": self.n_added,
                "n_removed": self.n_removed,
                "n_clusters_old": self.totals.n_clusters_old,
                "n_clusters_new": self.totals.n_clusters_new,
                "n_new_only_clusters": self.n_new_only_clusters,
                "categories": self.counts,
                "agreement": dict(self.agreement),
            }
        )
        return out


def _categories(tab: ContingencyTable) -> IntArray:
    meets = tab.row_cells
    shared_col = tab.col_cells > 1
    merged = np.bincount(tab.rows, weights=shared_col[tab.cols], minlength=tab.n_true_clusters) > 0
    split = meets > 1
    out = np.where(split, np.where(merged, 3, 1), np.where(merged, 2, 0)).astype(np.int64)
    out[tab.row_common == 0] = CATEGORIES.index("removed")
    return out


def _renamed(exc: Exception) -> Exception:
    if isinstance(exc, IdKindError):
        return id_type_error(*exc.kinds, *exc.examples, truth="old", other="new")
    text = str(exc).replace("'truth'", "'old'").replace("'pred'", "'new'")
    text = text.split(". Pass on_mismatch=")[0]
    return type(exc)(text)


@dataclass(frozen=True)
class _Releases:
    """Two releases as an engine reads them."""

    engine: Engine
    old: Any
    new: Any
    options: AlignOptions


class _CompareJob:
    """The table of the releases and its cluster ids: in memory (the alignment), or
    joined by an SQL engine (:mod:`ereval._compare_sql`)."""

    def __init__(self, releases: _Releases, metrics: str | None) -> None:
        self.releases, self.metrics = releases, metrics

    def in_memory(self, engine: Any) -> Comparison:
        r = self.releases
        in_memory_inputs(r.old, r.new)
        try:
            options: AlignOptions = {**r.options, "on_mismatch": "twinless"}
            alignment = align(r.old, r.new, **options)
        except (InputError, InputTypeError) as exc:
            raise _renamed(exc) from None
        tab = ContingencyTable.from_alignment(alignment)
        return _comparison(tab, self.metrics, alignment)

    def in_sql(self, db: Database) -> Comparison:
        r = self.releases
        try:
            both = joined_releases(db, r.old, r.new, r.options)
        except (InputError, InputTypeError) as exc:
            raise _renamed(exc) from None
        per = {
            str(k): (int(m), int(size))
            for k, m, size in db.fetch_all(
                f"SELECT category, count(*), sum(size) FROM {OLD_CLUSTERS} GROUP BY category"
            )
        }
        n_clusters_new, new_only, n_new = db.fetch_all(new_clusters_sql())[0]
        totals = ReleaseTotals(
            n_old=sum(v[1] for v in per.values()),
            n_new=int(n_new or 0),
            n_common=both,
            n_clusters_old=sum(v[0] for v in per.values()),
            n_clusters_new=int(n_clusters_new),
            n_new_only_clusters=int(new_only or 0),
            categories=tuple(per.get(c, (0, 0))[0] for c in CATEGORIES),
        )
        agreement: dict[str, float] = {}
        if self.metrics is not None:
            wanted = cells_wanted(resolve_metrics(self.metrics))
            stats = cells_statistics(db, "intersection", (both, 0, 0), wanted)
            agreement = evaluate(stats, metrics=self.metrics)
        return Comparison(totals, agreement, source=r)


class _AgainJob:
    """``read`` over the releases joined again by the SQL engine that compared them
    (the views ``t``, ``p``, the cells and the table of the old clusters)."""

    def __init__(self, releases: _Releases, read: Callable[[Database], Any]) -> None:
        self.releases, self.read = releases, read

    def in_memory(self, engine: Any) -> Any:
        raise InputError("'engine': the records of an SQL comparison are read by its engine")

    def in_sql(self, db: Database) -> Any:
        r = self.releases
        joined_releases(db, r.old, r.new, r.options)
        return self.read(db)


def _rows(query: str, out: tuple[Path, str] | None) -> Callable[[Database], pd.DataFrame | int]:
    """The rows of ``query``: returned, or written to the file ``out`` (then their
    number)."""

    def read(db: Database) -> pd.DataFrame | int:
        if out is not None:
            return db.copy_to(query, *out)
        frame: pd.DataFrame = db.fetch_frame(query)
        return frame

    return read


def _moved_rows(first: int) -> Callable[[Database], tuple[int, pd.DataFrame]]:
    """The records that moved, counted, and the ``first`` of them."""

    def read(db: Database) -> tuple[int, pd.DataFrame]:
        db.execute(f"CREATE TEMP TABLE changed AS {records_sql(changed_only=True)}")
        db.execute(f"CREATE TEMP TABLE moved AS {moved_sql('changed', db.dialect)}")
        count = int(db.fetch_all("SELECT count(*) FROM moved")[0][0])
        return count, db.fetch_frame(f"SELECT * FROM moved ORDER BY record_id LIMIT {first}")

    return read


def _comparison(tab: ContingencyTable, metrics: str | None, alignment: Alignment) -> Comparison:
    """The comparison of the table ``tab`` (old rows, new columns, twinless kept)."""
    if tab.n_common == 0:
        raise RecordMismatchError("'old' and 'new' have no record in common")
    agreement = {} if metrics is None else evaluate(_common_table(tab), metrics=metrics)
    category = _categories(tab)
    return Comparison(ReleaseTotals.of_table(tab, category), agreement, alignment, tab, category)


def compare(
    old: Any,
    new: Any,
    *,
    metrics: str | None = DEFAULT_AGREEMENT,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    id_type: IdType = "exact",
    engine: EngineName | Engine = "auto",
) -> Comparison:
    """Compare two releases of a clustering, cluster by cluster and record by record.

    Parameters
    ----------
    old, new : clustering
        Any form of :func:`ereval.io.as_membership`; their record sets may differ.
        Record ids are read exactly: ids of different kinds on the two sides
        (integers and text) are an error.
    metrics : str or None, default "pairwise,cluster,b3"
        Metric or family names (:func:`ereval.evaluate`) for the agreement of the
        releases on their common records, old as truth; ``None`` for none.
    record_col, cluster_col : str or list of str
        Column names for tables and files.
    id_type : {"exact", "string"}
        As in :func:`ereval.io.align`.
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who joins the releases (:func:`ereval.engines.get_engine`). NumPy aligns them
        in memory; DuckDB and Spark join them by record key where the data is (in
        the passes DuckDB's memory limit plans), group the cells by old and new
        cluster there and bring back only the counts and the agreement's
        statistics; the clusters and records are read again there when asked for.
        Every engine gives the same numbers.

    Returns
    -------
    Comparison
    """
    builder = get_engine(engine, truth=old, pred=new)
    options: AlignOptions = {
        "record_col": record_col,
        "cluster_col": cluster_col,
        "id_type": id_type,
    }
    job = _CompareJob(_Releases(builder, old, new, options), metrics)
    result: Comparison = builder.run(job)
    return result
