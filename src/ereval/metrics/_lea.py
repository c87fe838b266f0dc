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

from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta, coref_prf

__all__ = ["lea_scores", "lea_sums"]


def lea_sums(table: ContingencyTable | Statistics) -> tuple[float, int, float, int]:
    """``(recall numerator, recall denominator, precision numerator, precision denominator)``."""
    s = statistics_of(table)
    return s.lea_recall_sum, s.n_true_records, s.lea_precision_sum, s.n_pred_records


def lea_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """LEA precision, recall and F1 (and F-beta when ``beta != 1``)."""
    beta = check_beta(beta)
    sums = lea_sums(table)
    r, p, f = coref_prf(*sums)
    out = {"lea_precision": p, "lea_recall": r, "lea_f1": f}
    if beta != 1.0:
        out["lea_fbeta"] = coref_prf(*sums, beta)[2]
    return out
