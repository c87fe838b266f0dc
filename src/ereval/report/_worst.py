"""Each prediction's true clusters with the most misplaced records, on any engine.

:func:`worst_ranking` gives the :class:`~ereval.metrics._worst_sql.WorstRanking` of
a prediction: in memory from the whole tables of :func:`ereval.cluster_errors` and
of :func:`~ereval.report._misplaced.clustering_misplaced` (from one contingency
table), or computed by an SQL
engine where the data is (:func:`~ereval.metrics._worst_sql.engine_worst_clusters`),
the same either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..contingency import ContingencyTable
from ..engines import get_engine
from ..io import Membership, MismatchPolicy, align
from ..metrics._records import table_cluster_errors
from ..metrics._worst_sql import (
    MISPLACED_COLUMNS,
    WorstRanking,
    bounded_records,
    engine_worst_clusters,
    rank_worst,
)
from ._misplaced import table_misplaced

__all__ = ["worst_ranking"]


def worst_ranking(
    engine: Any,
    truth: Any,
    pred: Any,
    *,
    rank: int,
    on_mismatch: MismatchPolicy = "error",
    **sides: Any,
) -> WorstRanking:
    """The :class:`WorstRanking` of ``pred`` against ``truth`` with the first ``rank``
    true clusters with an error: by ``engine`` (an engine or its name) where the data
    is, or in memory (``truth`` and ``pred`` then :class:`~ereval.io.Membership`);
    ``sides`` names the record and cluster columns of each side for an SQL engine;
    ``on_mismatch`` as for :func:`ereval.io.align`."""
    return engine_worst_clusters(
        get_engine(engine),
        truth,
        pred,
        rank=rank,
        in_memory=lambda: _in_memory(truth, pred, rank, on_mismatch),
        on_mismatch=on_mismatch,
        **sides,
    )


def _in_memory(
    truth: Membership, pred: Membership, rank: int, on_mismatch: MismatchPolicy
) -> WorstRanking:
    # one alignment and one table for the errors and the misplaced records
    al = align(truth, pred, on_mismatch=on_mismatch)
    tab = ContingencyTable.from_alignment(al)
    errors = table_cluster_errors(al, tab)
    misplaced = table_misplaced(al, tab)[["cluster_id", *MISPLACED_COLUMNS]]
    wrong = errors[errors["EI"] > 0]
    ranked = rank_worst(wrong.merge(misplaced, on="cluster_id")).head(rank)
    # every record of the predicted clusters holding the ranked clusters' records
    t_records, t_clusters = np.asarray(truth.records), np.asarray(truth.clusters)
    p_records, p_clusters = np.asarray(pred.records), np.asarray(pred.clusters)
    own = t_records[_among(t_clusters, ranked["cluster_id"].to_numpy())]
    linked = _among(p_clusters, p_clusters[_among(p_records, own)])
    records = p_records[linked]
    near = _among(t_records, records)
    every = pd.DataFrame({"record_id": records, "pred_cluster": p_clusters[linked]}).merge(
        pd.DataFrame(
            {
                "record_id": t_records[near],
                "true_cluster": t_clusters[near],
            }
        ),
        on="record_id",
        how="left",
    )
    groups, shown = bounded_records(every)
    return WorstRanking(
        n_clusters=len(errors),
        with_error=len(wrong),
        over=int((errors["OCE"] > 0).sum()),
        under=int((errors["UCE"] > 0).sum()),
        ranked=ranked.reset_index(drop=True),
        groups=groups,
        shown=shown,
    )


def _among(values: npt.NDArray[Any], wanted: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Which of ``values`` are among ``wanted``, by hashing (NumPy's ``isin`` sorts
    text ids as Python objects: minutes for 10^7)."""
    return np.asarray(pd.Series(values, copy=False).isin(wanted), dtype=bool)
