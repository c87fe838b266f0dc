"""The contingency table from the coded groups an SQL engine returns.

The rows ``(i, j, n)`` of :func:`ereval.engines.sql.coded_cells_sql` (``-1`` for
the side a record is missing from) give the cluster sizes and the cells, put in
the order of the in-memory table here, in NumPy, so that no statement has to
sort them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable, MismatchPolicy

__all__ = ["sizes_of_codes", "table_from_codes"]


def sizes_of_codes(
    codes: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Cluster sizes: the counts summed per code (``-1`` left out).

    Examples
    --------
    >>> sizes_of_codes(np.array([0, 1, -1, 0]), np.array([2, 1, 5, 3])).tolist()
    [5, 1]
    """
    present = codes >= 0
    width = int(codes.max()) + 1 if present.any() else 0
    # float64 sums are exact below 2**53, far beyond any record count
    return np.bincount(codes[present], weights=counts[present], minlength=width).astype(np.int64)


def table_from_codes(
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    n: npt.NDArray[np.int64],
    policy: MismatchPolicy,
) -> ContingencyTable:
    """The table of the coded groups: sizes from every group, cells from those with both
    codes, sorted by ``(i, j)``.

    Examples
    --------
    >>> t = table_from_codes(np.array([1, 0, 0]), np.array([0, 0, -1]),
    ...                      np.array([2, 1, 4]), "twinless")
    >>> t.rows.tolist(), t.cols.tolist(), t.counts.tolist(), t.true_sizes.tolist()
    ([0, 1], [0, 0], [1, 2], [5, 2])
    """
    true_sizes = sizes_of_codes(i, n)
    pred_sizes = sizes_of_codes(j, n)
    paired = (i >= 0) & (j >= 0)
    i, j, n = i[paired], j[paired], n[paired]
    order = np.argsort(i * max(pred_sizes.shape[0], 1) + j)  # cells sorted by (i, j)
    return ContingencyTable(i[order], j[order], n[order], true_sizes, pred_sizes, policy)
