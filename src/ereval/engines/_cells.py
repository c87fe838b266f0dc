"""What the SQL engines share around their statements: the options they read, and
the contingency table from the coded groups they return.

The rows ``(i, j, n)`` of :func:`ereval.engines.sql.coded_cells_sql` (``-1`` for
the side a record is missing from) give the cluster sizes and the cells, put in
the order of the in-memory table here, in NumPy, so that no statement has to
sort them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._validation import check_choice
from ..contingency import MISMATCH_POLICIES, AlignOptions, ContingencyTable, MismatchPolicy
from ..io import column_names

__all__ = ["read_options", "sizes_of_codes", "table_from_codes"]


def read_options(
    options: AlignOptions,
) -> tuple[MismatchPolicy, str, dict[str, tuple[list[str], list[str]]]]:
    """The mismatch policy, the id type and each side's record and cluster columns
    of the options of :func:`ereval.contingency.align`, checked.

    Examples
    --------
    >>> policy, id_type, columns = read_options({"pred_cluster_col": "c"})
    >>> policy, id_type, columns["pred"]
    ('error', 'exact', (['record_id'], ['c']))
    """
    policy = check_choice("on_mismatch", options.get("on_mismatch", "error"), MISMATCH_POLICIES)
    id_type = check_choice("id_type", options.get("id_type", "exact"), ("exact", "string"))
    rc = options.get("record_col", "record_id")
    cc = options.get("cluster_col", "cluster_id")
    given = {
        "truth": (options.get("truth_record_col"), options.get("truth_cluster_col")),
        "pred": (options.get("pred_record_col"), options.get("pred_cluster_col")),
    }
    columns = {
        side: (
            column_names(records or rc, name=f"{side}_record_col"),
            column_names(clusters or cc, name=f"{side}_cluster_col"),
        )
        for side, (records, clusters) in given.items()
    }
    return policy, id_type, columns


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
