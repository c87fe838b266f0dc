"""How many records each true cluster has in the wrong place: the size of its error.

For a true cluster :math:`T` with predicted clusters :math:`P_1, \\dots, P_k` holding
its records, the records split off are :math:`|T| - \\max_j |T \\cap P_j|` (those
outside its largest piece) and the foreign records are
:math:`\\sum_j |P_j \\setminus T|` (other entities' records predicted with it).
Their sum is the number of misplaced records; it ranks the clusters with errors by
how much is wrong, where the error indicator of :func:`ereval.cluster_errors` (Binette
et al. 2022) only says whether anything is.

>>> import pandas as pd
>>> t = pd.Series(["a", "a", "a", "b", "b"]); p = pd.Series([1, 1, 2, 2, 2])
>>> misplaced_records(t, p).to_dict(orient="list")["misplaced"]
[3, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["misplaced_records"]


def misplaced_records(truth: Any, pred: Any, pred_sizes: pd.Series | None = None) -> pd.DataFrame:
    """Per true cluster (sorted by id): ``cluster_id, size, split_off, foreign, misplaced``.

    ``truth`` and ``pred`` are the true and predicted cluster of each record, aligned.
    ``pred_sizes`` gives the size of each predicted cluster when the records are those
    of some true clusters only (a labelled sample of whole true clusters); by default
    the predicted clusters hold only the records given.

    >>> sizes = pd.Series({1: 5})
    >>> misplaced_records(pd.Series(["a", "a"]), pd.Series([1, 1]), sizes)["foreign"].tolist()
    [3]
    """
    frame = pd.DataFrame({"t": np.asarray(truth), "p": np.asarray(pred)})
    cells = frame.groupby(["t", "p"], sort=False).size().rename("n").reset_index()
    pred_size = frame.groupby("p", sort=False).size() if pred_sizes is None else pred_sizes
    cells["foreign"] = cells["p"].map(pred_size).to_numpy() - cells["n"].to_numpy()
    by_true = cells.groupby("t", sort=True)
    size = by_true["n"].sum()
    split_off = size - by_true["n"].max()
    foreign = by_true["foreign"].sum()
    return pd.DataFrame(
        {
            "cluster_id": size.index.to_numpy(),
            "size": size.to_numpy(dtype=np.int64),
            "split_off": split_off.to_numpy(dtype=np.int64),
            "foreign": foreign.to_numpy(dtype=np.int64),
            "misplaced": (split_off + foreign).to_numpy(dtype=np.int64),
        }
    )
