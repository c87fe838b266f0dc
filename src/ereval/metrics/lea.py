"""LEA: the link-based entity-aware metric (Moosavi & Strube 2016).

Each cluster is weighted by its size and scored by the share of its links that
the other side resolves::

    R = sum_i a_i * (sum_j link(n_ij) / link(a_i)) / sum_i a_i
    P = sum_j b_j * (sum_i link(n_ij) / link(b_j)) / sum_j b_j

with ``link(x) = x (x - 1) / 2``. Singleton clusters are counted as the coval
reference implementation does with singletons kept: a singleton has one
self-link, resolved when its record is a singleton on the other side too.
Twinless mentions count in the sizes only; an empty denominator gives 0.
"""

from __future__ import annotations

import numpy as np

from ..contingency import ContingencyTable
from ._util import check_beta, coref_prf

__all__ = ["lea_scores", "lea_sums"]


def _side(
    own: np.ndarray,
    other: np.ndarray,
    own_idx: np.ndarray,
    other_idx: np.ndarray,
    counts: np.ndarray,
) -> float:
    size = own.astype(np.float64)
    links = size * (size - 1) / 2
    pair_links = counts.astype(np.float64) * (counts - 1) / 2
    # singletons: resolved iff the record is also a singleton on the other side
    single_hit = (own[own_idx] == 1) & (other[other_idx] == 1) & (counts == 1)
    resolved = np.bincount(own_idx, weights=pair_links + single_hit, minlength=own.shape[0])
    links = np.where(own == 1, 1.0, links)
    return float((size * resolved / links).sum())


def lea_sums(table: ContingencyTable) -> tuple[float, int, float, int]:
    """``(recall numerator, recall denominator, precision numerator, precision denominator)``."""
    num_r = _side(table.true_sizes, table.pred_sizes, table.rows, table.cols, table.counts)
    num_p = _side(table.pred_sizes, table.true_sizes, table.cols, table.rows, table.counts)
    return num_r, table.n_true_records, num_p, table.n_pred_records


def lea_scores(table: ContingencyTable, *, beta: float = 1.0) -> dict[str, float]:
    """LEA precision, recall and F1 (and F-beta when ``beta != 1``)."""
    beta = check_beta(beta)
    sums = lea_sums(table)
    r, p, f = coref_prf(*sums)
    out = {"lea_precision": p, "lea_recall": r, "lea_f1": f}
    if beta != 1.0:
        out["lea_fbeta"] = coref_prf(*sums, beta)[2]
    return out
