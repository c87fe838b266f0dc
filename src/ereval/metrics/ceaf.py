"""CEAF: constrained entity-alignment F-measure (Luo 2005).

CEAF aligns true and predicted clusters one-to-one so as to maximise the total
similarity ``Phi = sum phi(T_i, P_g(i))``, then::

    R = Phi / sum_i phi(T_i, T_i),     P = Phi / sum_j phi(P_j, P_j)

with the similarities of Luo (2005)::

    phi1 = 1 if T = P else 0       phi2 = 1 if T ∩ P ≠ ∅ else 0
    phi3 = |T ∩ P|  (CEAFm)        phi4 = 2 |T ∩ P| / (|T| + |P|)  (CEAFe)

so the denominators are the numbers of clusters (phi1, phi2, phi4) or of
records (phi3). Since every phi is 0 for disjoint clusters, only non-zero cells
can be aligned: the maximum-weight matching is solved exactly on each connected
component of the bipartite graph of non-zero cells. Components that are a
single true or a single predicted cluster (the vast majority in practice) are
read off directly; the rest are solved together as one sparse assignment
problem. No dense ``K x R`` matrix is ever built.

CEAFm and CEAFe follow the CoNLL reference scorer v8.01 (twinless mentions count
in the cluster sizes; empty denominators give 0).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, min_weight_full_bipartite_matching

from .._errors import InputError
from ..contingency import ContingencyTable
from ._util import check_beta, coref_prf

__all__ = ["ceaf_scores", "ceaf_similarity", "max_weight_alignment"]

Phi = Literal[1, 2, 3, 4]


def ceaf_similarity(table: ContingencyTable, phi: Phi) -> npt.NDArray[np.float64]:
    """``phi(T_i, P_j)`` for every non-zero cell (zero cells have similarity 0)."""
    n = table.counts.astype(np.float64)
    a = table.true_sizes[table.rows]
    b = table.pred_sizes[table.cols]
    if phi == 1:
        return np.asarray((table.counts == a) & (table.counts == b), dtype=np.float64)
    if phi == 2:
        return np.ones_like(n)
    if phi == 3:
        return n
    return np.asarray(2.0 * n / (a + b), dtype=np.float64)


def max_weight_alignment(table: ContingencyTable, weights: npt.NDArray[np.float64]) -> float:
    """Maximum total weight of a one-to-one alignment using only non-zero cells.

    ``weights`` holds one non-negative weight per cell of ``table``.
    """
    rows, cols = table.rows, table.cols
    if rows.size == 0:
        return 0.0
    k, r = table.n_true_clusters, table.n_pred_clusters
    graph = sp.coo_matrix(
        (np.ones(rows.size, dtype=np.int8), (rows, cols + k)), shape=(k + r, k + r)
    ).tocsr()
    _, label = connected_components(graph, directed=False)
    comp = label[rows]
    n_comp = int(label.max()) + 1
    rows_per = np.bincount(label[:k][table.row_cells > 0], minlength=n_comp)
    cols_per = np.bincount(label[k:][table.col_cells > 0], minlength=n_comp)
    star = (rows_per[comp] == 1) | (cols_per[comp] == 1)
    # a component with one true (or one predicted) cluster aligns its best cell
    best = np.zeros(n_comp)
    np.maximum.at(best, comp[star], weights[star])
    total = float(best.sum())
    hard = ~star
    if hard.any():
        total += _sparse_assignment(rows[hard], cols[hard], weights[hard])
    return total


def _sparse_assignment(
    rows: npt.NDArray[np.int64], cols: npt.NDArray[np.int64], weights: npt.NDArray[np.float64]
) -> float:
    """Exact maximum-weight matching on a sparse bipartite graph (LAPJVsp)."""
    ri, row_index = np.unique(rows, return_inverse=True)
    ci, col_index = np.unique(cols, return_inverse=True)
    m, n = ri.size, ci.size
    # one private zero-benefit column per row guarantees a full matching of rows;
    # shifting every weight by +1 keeps all edges explicit and non-zero.
    data = np.concatenate([weights + 1.0, np.ones(m)])
    ii = np.concatenate([row_index, np.arange(m)])
    jj = np.concatenate([col_index, n + np.arange(m)])
    biadj = sp.csr_matrix((data, (ii, jj)), shape=(m, n + m))
    row_match, col_match = min_weight_full_bipartite_matching(biadj, maximize=True)
    matched = np.asarray(biadj[row_match, col_match]).ravel()
    return float(matched.sum() - row_match.size)


def ceaf_scores(
    table: ContingencyTable, *, phi: Phi = 4, beta: float = 1.0, prefix: str | None = None
) -> dict[str, float]:
    """CEAF precision, recall and F1 with similarity ``phi`` (1-4).

    Keys are ``ceafm_*`` for ``phi=3``, ``ceafe_*`` for ``phi=4`` and
    ``ceaf_phi1_*`` / ``ceaf_phi2_*`` otherwise (or ``prefix``).
    """
    beta = check_beta(beta)
    if phi not in (1, 2, 3, 4):
        raise InputError(f"'phi' must be one of 1, 2, 3, 4; received {phi!r}")
    name = prefix or {1: "ceaf_phi1", 2: "ceaf_phi2", 3: "ceafm", 4: "ceafe"}[phi]
    total = max_weight_alignment(table, ceaf_similarity(table, phi))
    if phi == 3:
        den_r, den_p = table.n_true_records, table.n_pred_records
    else:
        den_r, den_p = table.n_true_clusters, table.n_pred_clusters
    r, p, f = coref_prf(total, den_r, total, den_p)
    out = {f"{name}_precision": p, f"{name}_recall": r, f"{name}_f1": f}
    if beta != 1.0:
        out[f"{name}_fbeta"] = coref_prf(total, den_r, total, den_p, beta)[2]
    return out
