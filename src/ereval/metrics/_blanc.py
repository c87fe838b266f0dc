"""BLANC: the bilateral assessment of noun-phrase coreference (Recasens & Hovy 2011),
extended to system mentions by Luo et al. (2014), as in the CoNLL scorer v8.01.

Coreference links are pairs of mentions in the same cluster, non-coreference
links pairs in different clusters, each counted over that side's own mentions::

    R_c = |C_k ∩ C_r| / |C_k|     P_c = |C_k ∩ C_r| / |C_r|
    R_n = |N_k ∩ N_r| / |N_k|     P_n = |N_k ∩ N_r| / |N_r|

BLANC averages the coreference and non-coreference scores (R, P and the two
F1s). When the key has no coreference link, only the non-coreference scores
count; when it has no non-coreference link, only the coreference scores; when it
has neither (at most one key mention), everything is 0. Empty precision
denominators give 0. Because these special cases look at the key only, swapping
truth and prediction swaps precision and recall only when both sides have links
of both kinds. All counts are exact integers computed from the table. For a
link-only evaluation every link is a pair across data sets
(:func:`~ereval.statistics.pair_space`).
"""

from __future__ import annotations

from ..contingency import ContingencyTable
from ..statistics import Statistics, pair_space
from ._util import check_beta

__all__ = ["blanc_counts", "blanc_scores"]


def blanc_counts(table: ContingencyTable | Statistics) -> tuple[int, int, int, int, int, int]:
    """``(|C_k ∩ C_r|, |C_k|, |C_r|, |N_k ∩ N_r|, |N_k|, |N_r|)``."""
    s = pair_space(table)
    ck, cr, c_both = s.true, s.pred, s.both
    n_k = s.true_records - ck
    n_r = s.pred_records - cr
    # common-mention pairs apart on both sides
    n_both = s.common_records - s.row_common - s.col_common + c_both
    return c_both, ck, cr, n_both, n_k, n_r


def _prf(num: int, den_r: int, den_p: int, beta: float) -> tuple[float, float, float]:
    r = num / den_r if den_r else 0.0
    p = num / den_p if den_p else 0.0
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) else 0.0
    return r, p, f


def _blanc(table: ContingencyTable | Statistics, beta: float) -> tuple[float, float, float]:
    c_both, ck, cr, n_both, n_k, n_r = blanc_counts(table)
    rc, pc, fc = _prf(c_both, ck, cr, beta)
    rn, pn, fn = _prf(n_both, n_k, n_r, beta)
    if ck == 0 and n_k == 0:
        return 0.0, 0.0, 0.0
    if ck == 0:
        return rn, pn, fn
    if n_k == 0:
        return rc, pc, fc
    return (rc + rn) / 2, (pc + pn) / 2, (fc + fn) / 2


def blanc_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """BLANC precision, recall and F1 (CoNLL v8.01 conventions).

    With ``beta != 1`` a ``blanc_fbeta`` key averages the two F-beta scores.
    """
    beta = check_beta(beta)
    r, p, f = _blanc(table, 1.0)
    out = {"blanc_precision": float(p), "blanc_recall": float(r), "blanc_f1": float(f)}
    if beta != 1.0:
        out["blanc_fbeta"] = float(_blanc(table, beta)[2])
    return out
