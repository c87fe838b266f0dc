"""MUC link-based precision and recall (Vilain et al. 1995).

``R = sum_i (a_i - p(T_i)) / sum_i (a_i - 1)`` where ``p(T_i)`` is the number of
parts the prediction splits true cluster ``T_i`` into (each record of ``T_i``
missing from the prediction is a part of its own); precision swaps the roles.
Both numerators equal ``sum_ij (n_ij - 1)`` over the non-zero cells.

Conventions follow the CoNLL reference scorer v8.01: an empty denominator (all
clusters singletons) gives 0, and F is 0 when either score is undefined.
"""

from __future__ import annotations

from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta, coref_prf

__all__ = ["muc_scores"]


def muc_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """MUC precision, recall, F1 (and F-beta when ``beta != 1``)."""
    beta = check_beta(beta)
    s = statistics_of(table)
    correct = s.n_common - s.n_cells
    den_r = s.n_true_records - s.n_true_clusters
    den_p = s.n_pred_records - s.n_pred_clusters
    r, p, f = coref_prf(correct, den_r, correct, den_p)
    out = {"muc_precision": p, "muc_recall": r, "muc_f1": f}
    if beta != 1.0:
        out["muc_fbeta"] = coref_prf(correct, den_r, correct, den_p, beta)[2]
    return out
