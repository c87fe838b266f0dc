"""MUC link-based precision and recall (Vilain et al. 1995).

``R = sum_i (a_i - p(T_i)) / sum_i (a_i - 1)`` where ``p(T_i)`` is the number of
parts the prediction splits true cluster ``T_i`` into (each record of ``T_i``
missing from the prediction is a part of its own); precision swaps the roles.
Both numerators equal ``sum_ij (n_ij - 1)`` over the non-zero cells.

Conventions follow the CoNLL reference scorer v8.01 by default: an empty
denominator (all clusters singletons: no links) gives 0, and F is 0 when either
score is undefined. ``empty_links="one"`` follows Maidasani et al. (2012), Table
3, result 7 instead: a clustering without links scores 1 (a prediction of
singletons asserts no wrong link, so its precision is 1.000 there), and F is the
harmonic mean of the two scores.
"""

from __future__ import annotations

from typing import Literal

from .._errors import InputError
from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta, coref_prf, f_beta

__all__ = ["EmptyLinks", "muc_scores"]

#: What a clustering without links (all singletons) scores: see :func:`muc_scores`.
EmptyLinks = Literal["zero", "one"]


def muc_scores(
    table: ContingencyTable | Statistics,
    *,
    beta: float = 1.0,
    empty_links: EmptyLinks = "zero",
) -> dict[str, float]:
    """MUC precision, recall, F1 (and F-beta when ``beta != 1``).

    .. math:: R = \\frac{\\sum_{ij} (n_{ij} - 1)}{\\sum_i (a_i - 1)}, \\qquad
              P = \\frac{\\sum_{ij} (n_{ij} - 1)}{\\sum_j (b_j - 1)}

    over the non-zero cells (Vilain et al. 1995; Maidasani et al. 2012, §3.2.3).

    Parameters
    ----------
    table : ContingencyTable or Statistics
    beta : float, default 1.0
        Weight of recall; when not 1 the result also has ``muc_fbeta``.
    empty_links : {"zero", "one"}, default "zero"
        The score of a side without links (every cluster a singleton, so a
        denominator of 0). ``"zero"``: 0, and F is 0 (the CoNLL reference scorer
        v8.01). ``"one"``: 1, and F is the weighted harmonic mean of the two
        scores, as in Maidasani et al. (2012), Table 3, result 7 (every record
        alone: precision 1.000, recall 0.000, F1 0.000).

    Examples
    --------
    >>> from ereval.contingency import contingency_table
    >>> t = contingency_table([["a", "b"], ["c"]], [["a"], ["b"], ["c"]])
    >>> muc_scores(t)["muc_precision"], muc_scores(t, empty_links="one")["muc_precision"]
    (0.0, 1.0)
    """
    beta = check_beta(beta)
    if empty_links not in ("zero", "one"):
        raise InputError(f"'empty_links' must be 'zero' or 'one'; received {empty_links!r}")
    s = statistics_of(table)
    correct = s.n_common - s.n_cells
    den_r = s.n_true_records - s.n_true_clusters
    den_p = s.n_pred_records - s.n_pred_clusters
    if empty_links == "one":
        r = correct / den_r if den_r > 0 else 1.0
        p = correct / den_p if den_p > 0 else 1.0
        out = {"muc_precision": float(p), "muc_recall": float(r), "muc_f1": f_beta(p, r)}
        if beta != 1.0:
            out["muc_fbeta"] = f_beta(p, r, beta)
        return out
    r, p, f = coref_prf(correct, den_r, correct, den_p)
    out = {"muc_precision": p, "muc_recall": r, "muc_f1": f}
    if beta != 1.0:
        out["muc_fbeta"] = coref_prf(correct, den_r, correct, den_p, beta)[2]
    return out
