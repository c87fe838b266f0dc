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

from typing import Any, Literal, Unpack

import numpy as np
import pandas as pd

from .._errors import InputError, RecordMismatchError
from .._validation import check_choice
from ..contingency import Alignment, AlignOptions, align
from ..ids import take, to_numpy

__all__ = ["cluster_errors", "record_errors"]

_ENGINES = ("auto", "numpy", "duckdb", "spark")


def _check_engine(engine: str, what: str) -> None:
    name = check_choice("engine", engine, _ENGINES)
    if name in ("duckdb", "spark"):
        label = "DuckDB" if name == "duckdb" else "Spark"
        raise InputError(
            f"'engine': {what} errors hold one row per record, built in memory; use "
            f"engine='numpy' (or 'auto'), or the {label} engine for the metrics only"
        )


ERROR_COLUMNS = ("EI", "SDE", "OCE", "UCE", "ROCE", "RUCE", "H")


def _truth_records_in_pred(al: Alignment) -> np.ndarray:
    on_true = al.true_codes >= 0
    missing = on_true & (al.pred_codes < 0)
    if missing.any():
        raise RecordMismatchError(
            f"{int(missing.sum())} record(s) of 'truth' are absent from 'pred' "
            f"(e.g. {to_numpy(take(al.records, np.flatnonzero(missing)[:3])).tolist()}); error metrics need every true record "
            "to have a predicted cluster"
        )
    return np.flatnonzero(on_true)


def _record_frame(al: Alignment) -> pd.DataFrame:
    idx = _truth_records_in_pred(al)
    t = al.true_codes[idx]
    p = al.pred_codes[idx]
    tab, rows, cols = al.record_cells()
    row, col = rows[idx], cols[idx]
    n = tab.cell_counts(row, col)
    at, bp = tab.true_sizes[row], tab.pred_sizes[col]
    oce = bp - n
    uce = at - n
    return pd.DataFrame(
        {
            "record_id": to_numpy(take(al.records, idx)),
            "true_cluster": to_numpy(take(al.true_labels, t)),
            "pred_cluster": to_numpy(take(al.pred_labels, p)),
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
    )


def record_errors(
    truth: Any,
    pred: Any,
    *,
    engine: Literal["auto", "numpy", "duckdb", "spark"] = "auto",
    **options: Unpack[AlignOptions],
) -> pd.DataFrame:
    """One row per true record with its error metrics.

    Columns: ``record_id, true_cluster, pred_cluster, true_size, pred_size,
    EI, SDE, OCE, UCE, ROCE, RUCE, H``.

    ``engine`` is ``"numpy"`` or ``"auto"`` (which is NumPy here): the table
    holds a row per record, so it is built in memory; ``"duckdb"`` is an error.
    Other options are those of :func:`ereval.contingency.align`.

    Examples
    --------
    >>> df = record_errors({1: "a", 2: "a", 3: "b"}, {1: "x", 2: "y", 3: "y"})
    >>> df[["record_id", "OCE", "UCE"]].values.tolist()
    [[1, 0, 1], [2, 1, 1], [3, 1, 0]]
    """
    _check_engine(engine, "record")
    al = align(truth, pred, **options)
    return _record_frame(al)


def cluster_errors(
    truth: Any,
    pred: Any,
    *,
    engine: Literal["auto", "numpy", "duckdb", "spark"] = "auto",
    **options: Unpack[AlignOptions],
) -> pd.DataFrame:
    """One row per true cluster with the averages of its records' error metrics.

    Columns: ``cluster_id, size, n_pred_clusters`` (predicted clusters it meets)
    and ``EI, SDE, OCE, UCE, ROCE, RUCE, H``. ``engine`` and the other options
    are those of :func:`record_errors`.
    """
    _check_engine(engine, "cluster")
    al = align(truth, pred, **options)
    _truth_records_in_pred(al)
    # every record of a cell shares its errors: the cluster's mean is a sum over its
    # cells weighted by their counts, with no table of one row per record
    tab = al.table()
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
    out = pd.DataFrame(
        {
            "cluster_id": to_numpy(take(al.true_labels, used[codes])),
            "size": size.astype(np.int64),
            "n_pred_clusters": n_cells[codes],
        }
    )
    for col in ERROR_COLUMNS:
        out[col] = np.bincount(i, weights=n * per_cell[col], minlength=width)[codes] / size
    return out
