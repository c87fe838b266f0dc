"""The comparison of two releases computed by an SQL engine, where the data is.

The releases are loaded as the views ``t`` (old) and ``p`` (new) of the engine's
:class:`~ereval.engines.Database` and joined by record key into the groups
``(tc, pc, n)`` of one full outer join grouped by the pair of cluster keys, in
the passes the memory limit plans (:func:`ereval.statistics._compute.joined_cells`,
the plan of :mod:`ereval.engines._plan`). Only these groups come back: one row per
cell ``n_ij = |old_i ∩ new_j|`` and per cluster with records on one side only,
with the cluster keys. From them :func:`release_table` builds the contingency
table with twinless records kept, and the cluster labels in the order of its
rows and columns (keys sorted, as the in-memory table orders them). The
categories and the agreement are then computed from that table exactly as in
memory.

The records, one row per record of either release (:func:`records_sql`), are a
second join of the views with the category of each old cluster (a table of one
row per old cluster pushed into the engine); DuckDB writes them to a file
itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._errors import InputError, RecordMismatchError
from .contingency import ContingencyTable
from .engines import Database
from .engines._plan import over_limit
from .engines._sources import side_specs
from .io import AlignOptions
from .statistics._cells import completed_rows, table_from_codes
from .statistics._compute import joined_cells

__all__ = [
    "CATEGORY_VIEW",
    "RELEASE_GROUP_BYTES",
    "groups_fit",
    "records_sql",
    "release_specs",
    "release_table",
]

#: The view of the category of each old cluster (``tc``, ``category``).
CATEGORY_VIEW = "old_category"


def release_specs(old: Any, new: Any, options: AlignOptions) -> tuple[str, Any]:
    """The id type and the side specs of the two releases (the old one as the truth,
    view ``t``; the new one as the prediction, view ``p``), twinless records kept."""
    _, id_type, specs = side_specs(
        {**options, "on_mismatch": "twinless"}, (("t", old, "truth"), ("p", new, "pred"))
    )
    return id_type, specs


def _sorted_keys(column: Any) -> tuple[npt.NDArray[np.int64], Any]:
    """Codes numbering the non-NULL keys of an Arrow column in sorted order (``-1`` for
    NULL), and the distinct keys in that order (an Arrow array)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    valid = np.asarray(values.is_valid(), dtype=bool)
    out = np.full(len(values), -1, dtype=np.int64)
    present = values.filter(pa.array(valid))
    encoded = pc.dictionary_encode(present)
    dictionary = encoded.dictionary
    order = np.asarray(pc.sort_indices(dictionary), dtype=np.int64)
    rank = np.empty(len(dictionary), dtype=np.int64)
    rank[order] = np.arange(len(dictionary))
    indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    out[valid] = rank[indices]
    return out, dictionary.take(pa.array(order))


def release_table(
    db: Database, old: Any, new: Any, options: AlignOptions
) -> tuple[ContingencyTable, Any, Any]:
    """The table of ``old`` (rows) against ``new`` (columns) with twinless records kept,
    and the old and new cluster keys of its rows and columns (Arrow arrays).

    Raises
    ------
    RecordMismatchError
        The releases have no record in common.
    """
    id_type, specs = release_specs(old, new, options)
    loaded = db.load(specs, id_type=id_type)
    n_t, n_p = completed_rows(db, specs, loaded, "twinless", db.dialect)
    both, _, _ = joined_cells(db, (n_t, n_p), "twinless")
    if both == 0:
        raise RecordMismatchError("'old' and 'new' have no record in common")
    groups_fit(db, int(db.fetch_all("SELECT count(*) FROM cells")[0][0]))
    with db.lend_memory(n_t + n_p):  # DuckDB's buffers give way to the arrays built here
        groups = db.fetch_arrow("SELECT tc, pc, n FROM cells")
        i, old_keys = _sorted_keys(groups.column("tc"))
        j, new_keys = _sorted_keys(groups.column("pc"))
        n = np.asarray(groups.column("n").to_numpy(), dtype=np.int64)
        return table_from_codes(i, j, n, "twinless"), old_keys, new_keys


#: Bytes a group of the join takes in memory once brought back, with the table,
#: the cluster keys and the categories built from it (measured: about 120 a group
#: at 2.0 * 10^7 groups, two releases of 9 * 10^7 records each, with a margin).
RELEASE_GROUP_BYTES = 160


def groups_fit(db: Database, m: int) -> None:
    """Refuse, before they come back, ``m`` groups that the engine's memory limit cannot
    hold (:data:`RELEASE_GROUP_BYTES` a group): the comparison of the releases is
    computed from their table in memory."""
    over = over_limit(db, m * RELEASE_GROUP_BYTES)
    if over is not None:
        raise InputError(
            "'memory_limit': the comparison of two releases holds their table in memory, "
            f"{m:,} groups of records, {over}; raise the limit"
        )


def records_sql(*, changed_only: bool, ordered: bool = False) -> str:
    """One row per record of either release: ``record_id, old_cluster, new_cluster,
    category`` (``added`` for a record of the new release only, ``removed`` for one of
    the old only), from the views ``t``, ``p`` and :data:`CATEGORY_VIEW`; with
    ``changed_only``, without the records of kept clusters; with ``ordered``, in the
    order of their ids."""
    where = " WHERE category <> 'kept'" if changed_only else ""
    where += " ORDER BY record_id" if ordered else ""
    return (
        "SELECT record_id, old_cluster, new_cluster, category FROM ("
        "SELECT coalesce(t.r, p.r) AS record_id, t.c AS old_cluster, p.c AS new_cluster, "
        "CASE WHEN t.r IS NULL THEN 'added' WHEN p.r IS NULL THEN 'removed' "
        "ELSE k.category END AS category "
        f"FROM t FULL OUTER JOIN p ON t.r = p.r LEFT JOIN {CATEGORY_VIEW} AS k ON t.c = k.tc"
        f") AS joined{where}"
    )
