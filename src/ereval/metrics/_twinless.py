"""Table rewrites that implement the twinless-mention conventions of Cai & Strube (2010).

A *twinless* mention is a record present in only one of the two clusterings.
Each rewrite returns a new :class:`~ereval.contingency.ContingencyTable` that
represents a modified key (truth) or response (prediction):

* :func:`drop_pred_twinless` removes twinless response mentions (all of them, or
  only those that form a singleton response cluster);
* :func:`true_twinless_as_pred_singletons` puts every twinless key mention into
  the response as a singleton;
* :func:`pred_twinless_as_true_singletons` puts every twinless response mention
  into the key as a singleton.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable

__all__ = [
    "drop_pred_twinless",
    "pred_twinless_as_true_singletons",
    "true_twinless_as_pred_singletons",
]

IntArray = npt.NDArray[np.int64]


def _build(
    rows: IntArray, cols: IntArray, counts: IntArray, a: IntArray, b: IntArray
) -> ContingencyTable:
    order = np.lexsort((cols, rows))
    return ContingencyTable(rows[order], cols[order], counts[order], a, b, "twinless")


def drop_pred_twinless(table: ContingencyTable, *, singletons_only: bool) -> ContingencyTable:
    """Remove twinless response mentions (or only twinless singleton clusters)."""
    twin = table.pred_sizes - table.col_common
    if singletons_only:
        sizes = table.pred_sizes.copy()
        keep = ~((sizes == 1) & (twin == 1))
    else:
        sizes = table.col_common.copy()
        keep = sizes > 0
    new_index = np.cumsum(keep) - 1
    return _build(
        table.rows.copy(),
        new_index[table.cols],
        table.counts.copy(),
        table.true_sizes.copy(),
        sizes[keep],
    )


def true_twinless_as_pred_singletons(table: ContingencyTable) -> ContingencyTable:
    """Add each twinless key mention to the response as a singleton cluster."""
    twin = table.true_sizes - table.row_common
    n_new = int(twin.sum())
    r = table.n_pred_clusters
    rows = np.concatenate([table.rows, np.repeat(np.arange(table.n_true_clusters), twin)])
    cols = np.concatenate([table.cols, r + np.arange(n_new, dtype=np.int64)])
    counts = np.concatenate([table.counts, np.ones(n_new, dtype=np.int64)])
    b = np.concatenate([table.pred_sizes, np.ones(n_new, dtype=np.int64)])
    return _build(rows, cols, counts, table.true_sizes.copy(), b)


def pred_twinless_as_true_singletons(table: ContingencyTable) -> ContingencyTable:
    """Add each twinless response mention to the key as a singleton cluster."""
    twin = table.pred_sizes - table.col_common
    n_new = int(twin.sum())
    k = table.n_true_clusters
    rows = np.concatenate([table.rows, k + np.arange(n_new, dtype=np.int64)])
    cols = np.concatenate([table.cols, np.repeat(np.arange(table.n_pred_clusters), twin)])
    counts = np.concatenate([table.counts, np.ones(n_new, dtype=np.int64)])
    a = np.concatenate([table.true_sizes, np.ones(n_new, dtype=np.int64)])
    return _build(rows, cols, counts, a, table.pred_sizes.copy())
