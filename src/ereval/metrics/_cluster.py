"""Cluster and closest-cluster precision, recall and F-measure.

*Cluster* metrics (Huang et al. 2006; Menestrina et al. 2010; Binette 2024
Remark 3) count predicted clusters that equal a true cluster exactly:
``P = |T ∩ P| / |P|`` and ``R = |T ∩ P| / |T|``.

*Closest-cluster* metrics (Benjelloun et al. 2009; Maidasani et al. 2012
§3.2.2) credit each cluster with its best Jaccard similarity on the other side:
``P = sum_{p} max_t J(p, t) / |P|`` and ``R = sum_{t} max_p J(t, p) / |T|`` with
``J(t, p) = n_tp / (a_t + b_p - n_tp)``.

Both sides always have at least one cluster, so these are always defined.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta, f_beta, ratio

__all__ = ["closest_cluster_scores", "cluster_scores", "exact_matches"]


def exact_matches(table: ContingencyTable) -> npt.NDArray[np.bool_]:
    """Boolean mask over cells: the true and predicted clusters are identical."""
    a = table.cell_true_sizes
    b = table.cell_pred_sizes
    return np.asarray((table.counts == a) & (table.counts == b), dtype=bool)


def cluster_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """Cluster precision, recall, F1 (and F-beta when ``beta != 1``)."""
    beta = check_beta(beta)
    s = statistics_of(table)
    matches = s.exact_matches
    p = ratio(matches, s.n_pred_clusters)
    r = ratio(matches, s.n_true_clusters)
    out = {"cluster_precision": p, "cluster_recall": r, "cluster_f1": f_beta(p, r, 1.0)}
    if beta != 1.0:
        out["cluster_fbeta"] = f_beta(p, r, beta)
    return out


def closest_cluster_scores(
    table: ContingencyTable | Statistics, *, beta: float = 1.0
) -> dict[str, float]:
    """Closest-cluster (best Jaccard) precision, recall, F1 (and F-beta)."""
    beta = check_beta(beta)
    s = statistics_of(table)
    p = ratio(s.closest_precision_sum, s.n_pred_clusters)
    r = ratio(s.closest_recall_sum, s.n_true_clusters)
    out = {
        "closest_cluster_precision": p,
        "closest_cluster_recall": r,
        "closest_cluster_f1": f_beta(p, r, 1.0),
    }
    if beta != 1.0:
        out["closest_cluster_fbeta"] = f_beta(p, r, beta)
    return out
