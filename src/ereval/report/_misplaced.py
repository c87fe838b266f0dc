"""How many records each true cluster has in the wrong place: the size of its error.

For a true cluster :math:`T` with predicted clusters :math:`P_1, \\dots, P_k` holding
its records, the records split off are :math:`|T| - \\max_j |T \\cap P_j|` (those
outside its largest piece) and the foreign records are
:math:`\\sum_j |P_j \\setminus T|` (other entities' records predicted with it).
Their sum is the number of misplaced records; it ranks the clusters with errors by
how much is wrong, where the error indicator of :func:`ereval.cluster_errors` (Binette
et al. 2022) only says whether anything is. Between two releases, the records that
moved are found the same way (:mod:`ereval._moved`): outside the largest part their
old cluster became, or in a new cluster made mostly of other records.

>>> import pandas as pd
>>> t = pd.Series(["a", "a", "a", "b", "b"]); p = pd.Series([1, 1, 2, 2, 2])
>>> misplaced_records(t, p).to_dict(orient="list")["misplaced"]
[3, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..contingency import ContingencyTable
from ..io import Alignment, Membership, align, frame_column, take

__all__ = ["clustering_misplaced", "misplaced_records", "table_misplaced"]


def misplaced_records(truth: Any, pred: Any, pred_sizes: pd.Series | None = None) -> pd.DataFrame:
    """Per true cluster (in order of first appearance): ``cluster_id, size, split_off,
    foreign, misplaced``.

    ``truth`` and ``pred`` are the true and predicted cluster of each record, aligned.
    ``pred_sizes`` gives the size of each predicted cluster when the records are those
    of some true clusters only (a labelled sample of whole true clusters); by default
    the predicted clusters hold only the records given.

    >>> sizes = pd.Series({1: 5})
    >>> misplaced_records(pd.Series(["a", "a"]), pd.Series([1, 1]), sizes)["foreign"].tolist()
    [3]
    """
    t_codes, t_ids = pd.factorize(np.asarray(truth))
    p_codes, p_ids = pd.factorize(np.asarray(pred))
    n_pred = max(len(p_ids), 1)
    # the non-empty cells |T ∩ P|, in order of true cluster
    cells, n = np.unique(t_codes.astype(np.int64) * n_pred + p_codes, return_counts=True)
    t_cell, p_cell = cells // n_pred, cells % n_pred
    if pred_sizes is None:
        sizes = np.bincount(p_codes, minlength=n_pred)
    else:
        sizes = pred_sizes.reindex(p_ids).to_numpy(dtype=np.float64, na_value=np.nan)
        own = np.bincount(p_codes, minlength=n_pred)
        sizes = np.where(np.isnan(sizes), own, sizes).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, t_cell[1:] != t_cell[:-1]]) if n.size else n
    size = np.add.reduceat(n, starts) if n.size else n
    split_off = size - (np.maximum.reduceat(n, starts) if n.size else n)
    foreign = np.add.reduceat(sizes[p_cell] - n, starts) if n.size else n
    return pd.DataFrame(
        {
            "cluster_id": np.asarray(t_ids)[t_cell[starts]] if n.size else t_ids[:0],
            "size": size.astype(np.int64),
            "split_off": split_off.astype(np.int64),
            "foreign": foreign.astype(np.int64),
            "misplaced": (split_off + foreign).astype(np.int64),
        }
    )


def clustering_misplaced(truth: Membership, pred: Membership) -> pd.DataFrame:
    """:func:`misplaced_records` of two whole clusterings, from the cells of their
    contingency table (as :func:`ereval.cluster_errors` sums its errors), with no table
    of one row per record. True clusters with no record in ``pred`` are left out.

    >>> from ereval.io import as_membership
    >>> t = as_membership({1: "a", 2: "a", 3: "a", 4: "b", 5: "b"})
    >>> p = as_membership({1: 1, 2: 1, 3: 2, 4: 2, 5: 2})
    >>> clustering_misplaced(t, p)["misplaced"].tolist()
    [3, 1]
    """
    al = align(truth, pred, on_mismatch="intersection")
    return table_misplaced(al, ContingencyTable.from_alignment(al))


def table_misplaced(al: Alignment, tab: ContingencyTable) -> pd.DataFrame:
    """:func:`clustering_misplaced` of the alignment ``al`` and its contingency table
    ``tab`` (the records on both sides)."""
    i, n = tab.rows, tab.counts
    width = int(tab.true_sizes.shape[0])
    foreign = np.bincount(i, weights=tab.pred_sizes[tab.cols] - n, minlength=width)
    size = np.bincount(i, weights=n, minlength=width)
    largest = np.zeros(width, dtype=np.int64)
    np.maximum.at(largest, i, n)
    # the table's rows are the used true cluster codes, in order
    used = np.flatnonzero(np.bincount(al.true_codes[al.true_codes >= 0], minlength=al.n_true_codes))
    codes = np.flatnonzero(np.bincount(i, minlength=width))
    split_off = size[codes].astype(np.int64) - largest[codes]
    outside = foreign[codes].astype(np.int64)
    return pd.DataFrame(
        {
            "cluster_id": frame_column(take(al.true_labels, used[codes])),
            "size": size[codes].astype(np.int64),
            "split_off": split_off,
            "foreign": outside,
            "misplaced": split_off + outside,
        }
    )
