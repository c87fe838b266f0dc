"""Each prediction's true clusters with the most misplaced records, on any engine.

:func:`worst_ranking` gives the :class:`~ereval.metrics._worst_sql.WorstRanking` of
a prediction: in memory from the whole tables of :func:`ereval.cluster_errors` and
of :func:`~ereval.report._misplaced.clustering_misplaced`, or computed by an SQL
engine where the data is (:func:`~ereval.metrics._worst_sql.engine_worst_clusters`),
the same either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engines import get_engine
from ..io import Membership
from ..metrics import cluster_errors
from ..metrics._worst_sql import (
    MISPLACED_COLUMNS,
    WorstRanking,
    engine_worst_clusters,
    rank_worst,
)
from ._misplaced import clustering_misplaced

__all__ = ["worst_ranking"]


def worst_ranking(engine: Any, truth: Any, pred: Any, *, rank: int, **sides: Any) -> WorstRanking:
    """The :class:`WorstRanking` of ``pred`` against ``truth`` with the first ``rank``
    true clusters with an error: by ``engine`` (an engine or its name) where the data
    is, or in memory
    (``truth`` and ``pred`` then :class:`~ereval.io.Membership`); ``sides`` names the
    record and cluster columns of each side for an SQL engine."""
    return engine_worst_clusters(
        get_engine(engine),
        truth,
        pred,
        rank=rank,
        in_memory=lambda: _in_memory(truth, pred, rank),
        **sides,
    )


def _in_memory(truth: Membership, pred: Membership, rank: int) -> WorstRanking:
    errors = cluster_errors(truth, pred, engine="numpy")
    misplaced = clustering_misplaced(truth, pred)[["cluster_id", *MISPLACED_COLUMNS]]
    wrong = errors[errors["EI"] > 0]
    ranked = rank_worst(wrong.merge(misplaced, on="cluster_id")).head(rank)
    # every record of the predicted clusters holding the ranked clusters' records
    own = np.asarray(truth.records)[np.isin(truth.clusters, ranked["cluster_id"].to_numpy())]
    touched = np.asarray(pred.clusters)[np.isin(pred.records, own)]
    linked = np.isin(pred.clusters, touched)
    records = np.asarray(pred.records)[linked]
    near = np.isin(truth.records, records)
    shown = pd.DataFrame(
        {"record_id": records, "pred_cluster": np.asarray(pred.clusters)[linked]}
    ).merge(
        pd.DataFrame(
            {
                "record_id": np.asarray(truth.records)[near],
                "true_cluster": np.asarray(truth.clusters)[near],
            }
        ),
        on="record_id",
        how="left",
    )
    return WorstRanking(
        n_clusters=len(errors),
        with_error=len(wrong),
        over=int((errors["OCE"] > 0).sum()),
        under=int((errors["UCE"] > 0).sum()),
        ranked=ranked.reset_index(drop=True),
        shown=shown,
    )
