"""Record-wise and cluster-wise error metrics (Binette et al. 2024, §3.3.1).

For a record ``r`` with true cluster ``c(r)`` and predicted cluster ``ĉ(r)``:

* ``EI(r)``  = 0 if ``ĉ(r) = c(r)`` else 1 (error indicator);
* ``SDE(r)`` = ``|ĉ(r)| - |c(r)|`` (size difference);
* ``OCE(r)`` = ``|ĉ(r) \\ c(r)|`` (overclustering: extraneous records);
* ``UCE(r)`` = ``|c(r) \\ ĉ(r)|`` (underclustering: missing records);
* ``ROCE(r)`` = ``OCE(r) / |ĉ(r)|`` and ``RUCE(r)`` = ``UCE(r) / |c(r)|``;
* ``H(r)`` = ``log((|ĉ(r)| - OCE(r)) / |ĉ(r)|) = log(|c(r) ∩ ĉ(r)| / |ĉ(r)|)``, the
  record's share of the conditional entropy: ``sum_r H(r) = -N H(T|P)``, which is
  what Lemma 5 needs. (Eq. 23 as printed carries an extra factor
  ``|ĉ(r)| - OCE(r)``, under which Lemma 5 does not hold.)

Cluster-wise metrics average the record-wise ones over the records of each true
cluster (Definition 4). All are computed from the contingency table: for a
record in cell ``(i, j)``, ``OCE = b_j - n_ij`` and ``UCE = a_i - n_ij``.

Predicted cluster sizes ``b_j`` count every record of the prediction, so the
truth may be a sample of true clusters scored against a full prediction
(``on_mismatch="twinless"`` keeps the prediction's other records).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Unpack, cast

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable, record_cells
from ..io import (
    Alignment,
    AlignOptions,
    align,
    frame_column,
    in_id_order,
    take,
    to_numpy,
)

# The engines import this package (CEAF's totals): they are imported when first used.
if TYPE_CHECKING:
    import pandas as pd

    from ..engines import Engine, EngineName

__all__ = ["cluster_errors", "record_errors", "table_cluster_errors"]


def _truth_records_in_pred(al: Alignment) -> npt.NDArray[np.int64]:
    on_true = al.true_codes >= 0
    missing = on_true & (al.pred_codes < 0)
    if missing.any():
        shown = in_id_order(al.records, np.flatnonzero(missing))[:3]
        from ._records_sql import missing_truth_error

        raise missing_truth_error(int(missing.sum()), to_numpy(take(al.records, shown)).tolist())
    return np.flatnonzero(on_true)


def _record_frame(al: Alignment) -> pd.DataFrame:
    import pandas as pd

    idx = in_id_order(al.records, _truth_records_in_pred(al))
    tab, rows, cols = record_cells(al)
    row, col = rows[idx], cols[idx]
    del rows, cols
    n = tab.cell_counts(row, col)
    at, bp = tab.true_sizes[row], tab.pred_sizes[col]
    del row, col
    oce = bp - n
    uce = at - n
    columns = {
        "record_id": frame_column(take(al.records, idx)),
        "true_cluster": frame_column(take(al.true_labels, al.true_codes[idx])),
        "pred_cluster": frame_column(take(al.pred_labels, al.pred_codes[idx])),
        "true_size": at,
        "pred_size": bp,
        "EI": ((oce != 0) | (uce != 0)).astype(np.int64),
        "SDE": bp - at,
        "OCE": oce,
        "UCE": uce,
        "ROCE": oce / bp,
        "RUCE": uce / at,
        "H": np.log(n / bp),
    }
    # the columns are the frame's own: no copy of them (10^7 records: 960 MB)
    return pd.DataFrame(columns, copy=False)


def record_errors(
    truth: Any,
    pred: Any,
    *,
    engine: EngineName | Engine = "auto",
    **options: Unpack[AlignOptions],
) -> pd.DataFrame:
    """One row per true record with its error metrics.

    Columns: ``record_id, true_cluster, pred_cluster, true_size, pred_size,
    EI, SDE, OCE, UCE, ROCE, RUCE, H``; rows in increasing order of record id
    (numbers by value, text by code point).

    Parameters
    ----------
    truth, pred : clustering
        Any form accepted by :func:`ereval.io.as_membership` (the SQL engines read
        files, and their own relations or DataFrames).
    engine : {"auto", "numpy", "duckdb", "spark"} or Engine, default "auto"
        Who computes the table: in memory (NumPy), inside DuckDB from files or
        DuckDB relations (out of core), or with Apache Spark from files or Spark
        DataFrames; ``"auto"`` picks NumPy when the inputs fit comfortably in memory
        (see :func:`ereval.engines.get_engine`). Every engine gives the same table:
        the same columns, types and row order, integers and floats alike.
    **options
        Those of :func:`ereval.io.align`. Every record of the truth must
        be in the prediction (a :class:`~ereval.RecordMismatchError` otherwise):
        with ``on_mismatch="twinless"`` the prediction may hold more records, which
        count in its cluster sizes; with ``"intersection"`` only the common records
        are scored.

    Examples
    --------
    >>> df = record_errors({1: "a", 2: "a", 3: "b"}, {1: "x", 2: "y", 3: "y"})
    >>> df[["record_id", "OCE", "UCE"]].values.tolist()
    [[1, 0, 1], [2, 1, 1], [3, 1, 0]]
    """
    from ..engines import get_engine
    from ._records_sql import engine_record_errors

    builder = get_engine(
        engine,
        truth=truth,
        pred=pred,
    )
    frame = engine_record_errors(
        builder,
        truth,
        pred,
        in_memory=lambda: _record_frame(align(truth, pred, **options)),
        **options,
    )
    return cast("pd.DataFrame", frame)


def cluster_errors(
    truth: Any,
    pred: Any,
    *,
    engine: EngineName | Engine = "auto",
    **options: Unpack[AlignOptions],
) -> pd.DataFrame:
    """One row per true cluster with the averages of its records' error metrics.

    Columns: ``cluster_id, size, n_pred_clusters`` (predicted clusters it meets)
    and ``EI, SDE, OCE, UCE, ROCE, RUCE, H``; rows in increasing order of the true
    cluster id.

    Parameters
    ----------
    truth, pred : clustering
        As in :func:`record_errors`.
    engine, **options
        As in :func:`record_errors`.

    Examples
    --------
    >>> df = cluster_errors({1: "a", 2: "a", 3: "b"}, {1: "x", 2: "y", 3: "y"})
    >>> df[["cluster_id", "size", "n_pred_clusters", "UCE"]].values.tolist()
    [['a', 2, 2, 1.0], ['b', 1, 1, 0.0]]
    """
    from ..engines import get_engine
    from ._records_sql import engine_cluster_errors

    builder = get_engine(
        engine,
        truth=truth,
        pred=pred,
    )
    frame = engine_cluster_errors(
        builder, truth, pred, in_memory=lambda: _cluster_frame(truth, pred, options), **options
    )
    return cast("pd.DataFrame", frame)


def _cluster_frame(truth: Any, pred: Any, options: AlignOptions) -> pd.DataFrame:
    """The table of :func:`cluster_errors` computed in memory."""
    al = align(truth, pred, **options)
    return table_cluster_errors(al, ContingencyTable.from_alignment(al))


def table_cluster_errors(al: Alignment, tab: ContingencyTable) -> pd.DataFrame:
    """The table of :func:`cluster_errors` of the alignment ``al`` and its contingency
    table ``tab``, once every true record is checked to be in the prediction."""
    from ._records_sql import ERROR_COLUMNS

    _truth_records_in_pred(al)
    # every record of a cell shares its errors: the cluster's mean is a sum over its
    # cells weighted by their counts, with no table of one row per record
    i, j, n = tab.rows, tab.cols, tab.counts
    a, b = tab.true_sizes[i], tab.pred_sizes[j]
    oce, uce = b - n, a - n
    per_cell = {
        "EI": ((oce != 0) | (uce != 0)).astype(np.int64),
        "SDE": b - a,
        "OCE": oce,
        "UCE": uce,
        "ROCE": oce / b,
        "RUCE": uce / a,
        "H": np.log(n / b),
    }
    # the table's rows are the used true cluster codes, in order
    used = np.flatnonzero(np.bincount(al.true_codes[al.true_codes >= 0], minlength=al.n_true_codes))
    width = int(tab.true_sizes.shape[0])
    n_cells = np.bincount(i, minlength=width)
    codes = np.flatnonzero(n_cells)  # the rows with a record in the prediction
    size = np.bincount(i, weights=n, minlength=width)[codes]
    import pandas as pd

    out = pd.DataFrame(
        {
            "cluster_id": frame_column(take(al.true_labels, used[codes])),
            "size": size.astype(np.int64),
            "n_pred_clusters": n_cells[codes],
        }
    )
    for col in ERROR_COLUMNS:
        out[col] = np.bincount(i, weights=n * per_cell[col], minlength=width)[codes] / size
    return out
