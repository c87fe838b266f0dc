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
    BLOCK_ROWS,
    MISPLACED_COLUMNS,
    WorstRanking,
    engine_worst_clusters,
    first_shown,
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
    t = pd.DataFrame({"record_id": truth.records, "true_cluster": truth.clusters})
    p = pd.DataFrame({"record_id": pred.records, "pred_cluster": pred.clusters})
    blocks, overlaps, near = _blocks(t, p, ranked["cluster_id"].to_numpy())
    return WorstRanking(
        n_clusters=len(errors),
        with_error=len(wrong),
        over=int((errors["OCE"] > 0).sum()),
        under=int((errors["UCE"] > 0).sum()),
        ranked=ranked.reset_index(drop=True),
        blocks=blocks,
        overlaps=overlaps,
        shown=first_shown(near),
    )


def _blocks(
    t: pd.DataFrame, p: pd.DataFrame, ranked: npt.NDArray[Any]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The ranked clusters' blocks, as the SQL engines compute them: ``blocks``,
    ``overlaps`` and the candidates for ``shown`` of a :class:`WorstRanking`, from the
    records of the truth ``t`` and of the prediction ``p``."""
    own = t[_among(t["true_cluster"].to_numpy(), ranked)].merge(p, on="record_id")
    cells = own.groupby(["true_cluster", "pred_cluster"], sort=False).size().rename("n")
    cells = cells.reset_index()
    held = p[_among(p["pred_cluster"].to_numpy(), cells["pred_cluster"].to_numpy())]
    sizes = held.groupby("pred_cluster", sort=False).size().rename("b").reset_index()
    cells = cells.merge(sizes, on="pred_cluster")
    by_size = cells.sort_values(["n", "pred_cluster"], ascending=[False, True], kind="stable")
    blocks = (
        by_size.groupby("true_cluster", sort=True)
        .agg(pieces=("n", "size"), records=("b", "sum"), main=("pred_cluster", "first"))
        .rename_axis("cluster_id")
        .reset_index()
    )
    for c in ("pieces", "records"):
        blocks[c] = blocks[c].astype(np.int64)
    twice = cells["pred_cluster"].duplicated(keep=False)
    overlaps = cells.loc[twice, ["true_cluster", "pred_cluster"]].reset_index(drop=True)
    # each cluster's first predicted clusters, and every record they hold
    first = (
        cells.sort_values("pred_cluster", kind="stable").groupby("true_cluster").head(BLOCK_ROWS)
    )
    first = first[["true_cluster", "pred_cluster"]].rename(columns={"true_cluster": "cluster_id"})
    near = first.merge(held, on="pred_cluster")
    # each record's true cluster, None where the truth lacks it (integers stay integers)
    at = pd.Index(t["record_id"]).get_indexer(near["record_id"])
    true_cluster = t["true_cluster"].to_numpy()[np.maximum(at, 0)]
    if (at < 0).any():
        true_cluster = true_cluster.astype(object)
        true_cluster[at < 0] = None
    near["true_cluster"] = true_cluster
    return blocks, overlaps, near[["cluster_id", "record_id", "pred_cluster", "true_cluster"]]


def _among(values: npt.NDArray[Any], wanted: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Which of ``values`` are among ``wanted``, by hashing (NumPy's ``isin`` sorts
    text ids as Python objects: minutes for 10^7)."""
    return np.asarray(pd.Series(values, copy=False).isin(wanted), dtype=bool)
