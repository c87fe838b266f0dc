"""The comparison of two releases computed by an SQL engine, where the data is.

The releases are loaded as the views ``t`` (old) and ``p`` (new) of the engine's
:class:`~ereval.engines.Database` and joined by record key into the groups
``(tc, pc, n)`` of one full outer join grouped by the pair of cluster keys, in
the passes the memory limit plans (:func:`ereval.statistics._compute.joined_cells`,
the plan of :mod:`ereval.engines._plan`): one row per cell ``n_ij = |old_i ∩ new_j|``
and per cluster with records on one side only. Nothing of the size of the data
comes back. The engine groups the cells by old cluster into the table
:data:`OLD_CLUSTERS` (each one's records, common records, new clusters and category:
:func:`old_clusters_sql`), and by new cluster for its counts
(:func:`new_clusters_sql`); the agreement is computed from the statistics of the
cells of the common records, as the metrics are (with the cells themselves only
for the metrics that need them). What comes back is a few numbers.

The clusters (:func:`clusters_sql`) and the records (:func:`records_sql`, the views
joined again with the category of each old cluster) are read again by the engine
when asked for; DuckDB writes the records to a file itself.
"""

from __future__ import annotations

from typing import Any

from ._errors import RecordMismatchError
from .engines import Database
from .engines._sources import side_specs
from .io import AlignOptions
from .statistics._cells import completed_rows
from .statistics._compute import joined_cells

__all__ = [
    "OLD_CLUSTERS",
    "clusters_sql",
    "joined_releases",
    "new_clusters_sql",
    "old_clusters_sql",
    "records_sql",
    "release_specs",
]

#: The table of each old cluster's counts and category (:func:`old_clusters_sql`).
OLD_CLUSTERS = "old_clusters"


def release_specs(old: Any, new: Any, options: AlignOptions) -> tuple[str, Any]:
    """The id type and the side specs of the two releases (the old one as the truth,
    view ``t``; the new one as the prediction, view ``p``), twinless records kept."""
    _, id_type, specs = side_specs(
        {**options, "on_mismatch": "twinless"}, (("t", old, "truth"), ("p", new, "pred"))
    )
    return id_type, specs


def joined_releases(db: Database, old: Any, new: Any, options: AlignOptions) -> int:
    """The views ``t`` (``old``) and ``p`` (``new``), their cells (table ``cells``,
    twinless records kept) and the table :data:`OLD_CLUSTERS`; the records in both.

    Raises
    ------
    RecordMismatchError
        The releases have no record in common.
    """
    id_type, specs = release_specs(old, new, options)
    loaded = db.load(specs, id_type=id_type)
    n_old, n_new = completed_rows(db, specs, loaded, "twinless", db.dialect)
    both, _, _ = joined_cells(db, (n_old, n_new), "twinless")
    if both == 0:
        raise RecordMismatchError("'old' and 'new' have no record in common")
    db.execute(f"CREATE TEMP TABLE {OLD_CLUSTERS} AS {old_clusters_sql()}")
    return both


def old_clusters_sql(cells: str = "cells") -> str:
    """One row per old cluster from the groups ``cells(tc, pc, n)`` (``pc`` NULL for its
    records missing from the new release): ``tc``, ``size``, ``n_common``,
    ``n_new_clusters`` (the new clusters holding its common records) and
    ``category``: ``removed`` without a common record, else ``split`` with several
    new clusters, ``merged`` when one of them holds records of another old cluster,
    both, or ``kept``."""
    common = "sum(CASE WHEN c.pc IS NULL THEN 0 ELSE c.n END)"
    meets, merged = "count(c.pc)", "max(coalesce(k.shared, 0))"
    return (
        f"SELECT c.tc, sum(c.n) AS size, {common} AS n_common, "
        f"{meets} AS n_new_clusters, CASE WHEN {common} = 0 THEN 'removed' "
        f"WHEN {meets} > 1 AND {merged} = 1 THEN 'split_and_merged' "
        f"WHEN {meets} > 1 THEN 'split' WHEN {merged} = 1 THEN 'merged' "
        "ELSE 'kept' END AS category "
        f"FROM {cells} AS c LEFT JOIN (SELECT pc, CASE WHEN count(*) > 1 THEN 1 ELSE 0 END "
        f"AS shared FROM {cells} WHERE tc IS NOT NULL AND pc IS NOT NULL GROUP BY pc) AS k "
        "ON c.pc = k.pc WHERE c.tc IS NOT NULL GROUP BY c.tc"
    )


def new_clusters_sql(cells: str = "cells") -> str:
    """One row: the new clusters of ``cells``, those of them without a record of the old
    release, and the new release's records."""
    return (
        "SELECT count(*), sum(CASE WHEN common = 0 THEN 1 ELSE 0 END), sum(records) "
        "FROM (SELECT pc, sum(n) AS records, max(CASE WHEN tc IS NULL THEN 0 ELSE 1 END) "
        f"AS common FROM {cells} WHERE pc IS NOT NULL GROUP BY pc) AS q"
    )


def clusters_sql() -> str:
    """One row per old cluster, in the order of their ids: ``old_cluster, size,
    n_common, n_new_clusters, category``."""
    return (
        "SELECT tc AS old_cluster, size, n_common, n_new_clusters, category "
        f"FROM {OLD_CLUSTERS} ORDER BY tc"
    )


def records_sql(*, changed_only: bool, ordered: bool = False) -> str:
    """One row per record of either release: ``record_id, old_cluster, new_cluster,
    category`` (``added`` for a record of the new release only, ``removed`` for one of
    the old only), from the views ``t``, ``p`` and the table :data:`OLD_CLUSTERS`;
    with ``changed_only``, without the records of kept clusters; with ``ordered``, in
    the order of their ids."""
    where = " WHERE category <> 'kept'" if changed_only else ""
    where += " ORDER BY record_id" if ordered else ""
    return (
        "SELECT record_id, old_cluster, new_cluster, category FROM ("
        "SELECT coalesce(t.r, p.r) AS record_id, t.c AS old_cluster, p.c AS new_cluster, "
        "CASE WHEN t.r IS NULL THEN 'added' WHEN p.r IS NULL THEN 'removed' "
        "ELSE k.category END AS category "
        f"FROM t FULL OUTER JOIN p ON t.r = p.r LEFT JOIN {OLD_CLUSTERS} AS k ON t.c = k.tc"
        f") AS joined{where}"
    )
