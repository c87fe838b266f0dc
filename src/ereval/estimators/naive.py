"""Naive estimates: the labelled benchmark scored alone, as if it were the population.

The prediction is restricted to the sampled records and each metric is computed
exactly on that small clustering pair with :mod:`ereval.metrics`; summary
statistics are the plain (unweighted) statistics of the sampled clusters, with
homonymy counted among sampled records only. These numbers ignore both the
sampling design and every predicted link leaving the sample, so they are biased
— typically far too optimistic for precision (Binette et al. 2022, §1.1 and
Table 1). They are reported for comparison, labelled ``*_naive``, without a
standard error.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable
from ..io import factorize
from ..metrics.bcubed import b3_entity_scores, b3_scores
from ..metrics.cluster import cluster_scores
from ..metrics.info import info_scores
from ..metrics.pairwise import pairwise_scores
from ..summary import name_indicators
from ._terms import ClusterTerms

IntArray = npt.NDArray[np.int64]

__all__ = ["NAIVE_METRICS", "naive_values"]

#: The metrics that have a naive counterpart ``<name>_naive``.
NAIVE_METRICS: tuple[str, ...] = (
    "pairwise_precision",
    "pairwise_recall",
    "pairwise_f1",
    "pairwise_fbeta",
    "cluster_precision",
    "cluster_recall",
    "cluster_f1",
    "cluster_fbeta",
    "b3_precision",
    "b3_recall",
    "b3_entity_precision",
    "b3_entity_recall",
    "homogeneity",
    "completeness",
    "average_cluster_size",
    "matching_rate",
    "homonymy_rate",
    "name_variation_rate",
)


def _gather(row_of_item: IntArray, kept_rows: IntArray, n_rows: int) -> IntArray:
    """Positions of the items (sorted by row) whose row is in ``kept_rows`` (sorted)."""
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of_item, minlength=n_rows), out=ptr[1:])
    starts = ptr[kept_rows]
    lengths = ptr[kept_rows + 1] - starts
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(int(lengths.sum()), dtype=np.int64)


def _benchmark_table(terms: ClusterTerms, kept: IntArray) -> ContingencyTable:
    """Contingency table of the kept sampled clusters against the prediction restricted to them."""
    cells = _gather(terms.rows, kept, terms.n_clusters)
    new_row = np.full(terms.n_clusters, -1, dtype=np.int64)
    new_row[kept] = np.arange(kept.shape[0], dtype=np.int64)
    rows = new_row[terms.rows[cells]]
    col_codes, _ = factorize(terms.cols[cells])
    cols = col_codes.astype(np.int64)
    counts = terms.counts[cells]
    pred_sizes = np.bincount(cols, weights=counts).astype(np.int64)
    true_sizes = terms.size[kept].astype(np.int64)
    order = np.lexsort((cols, rows))
    return ContingencyTable(rows[order], cols[order], counts[order], true_sizes, pred_sizes)


def naive_values(
    terms: ClusterTerms,
    *,
    keep: npt.NDArray[np.bool_] | None = None,
    beta: float = 1.0,
) -> dict[str, float]:
    """The naive value of every metric in :data:`NAIVE_METRICS` that the data allow.

    Parameters
    ----------
    terms : ClusterTerms
        Statistics of the distinct sampled clusters (repeated draws play no role:
        the benchmark is scored as a data set).
    keep : boolean array, optional
        Restrict to these sampled clusters (a subgroup), restricting the
        prediction to their records too — the approach Binette et al. (2024,
        Remark 3) warn against, shown here for comparison.
    beta : float, default 1.0
        Weight of recall in the ``*_fbeta`` values (reported when not 1).
    """
    mask = np.ones(terms.n_clusters, dtype=bool) if keep is None else keep
    out: dict[str, float] = {}
    if not mask.any():
        return out
    kept = np.flatnonzero(mask).astype(np.int64)
    table = _benchmark_table(terms, kept)
    out.update(pairwise_scores(table, beta=beta))
    out.update(cluster_scores(table, beta=beta))
    out.update(b3_scores(table))
    out.update(b3_entity_scores(table))
    info = info_scores(table)
    out["homogeneity"] = info["homogeneity"]
    out["completeness"] = info["completeness"]
    size = terms.size[mask]
    out["average_cluster_size"] = float(size.mean())
    out["matching_rate"] = float((size * (size > 1)).sum() / size.sum())
    if (
        terms.variation is not None
        and terms.name_rows is not None
        and terms.name_codes is not None
        and terms.name_counts is not None
    ):
        out["name_variation_rate"] = float(terms.variation[mask].mean())
        in_sample = _gather(terms.name_rows, kept, terms.n_clusters)
        codes = terms.name_codes[in_sample]
        within = terms.name_counts[in_sample]
        # homonyms among the sampled records only
        totals = np.bincount(codes, weights=within).astype(np.int64)
        homonym, _ = name_indicators(
            terms.name_rows[in_sample], codes, within, totals, terms.n_clusters
        )
        out["homonymy_rate"] = float(homonym[mask].mean())
    return {k: float(v) for k, v in out.items()}
