"""CEAF: constrained entity-alignment F-measure (Luo 2005).

CEAF aligns true and predicted clusters one-to-one so as to maximise the total
similarity ``Phi = sum phi(T_i, P_g(i))``, then::

    R = Phi / sum_i phi(T_i, T_i),     P = Phi / sum_j phi(P_j, P_j)

with the similarities of Luo (2005)::

    phi1 = 1 if T = P else 0       phi2 = 1 if T ∩ P ≠ ∅ else 0
    phi3 = |T ∩ P|  (CEAFm)        phi4 = 2 |T ∩ P| / (|T| + |P|)  (CEAFe)

so the denominators are the numbers of clusters (phi1, phi2, phi4) or of
records (phi3). Since every phi is 0 for disjoint clusters, only non-zero cells
can be aligned.

The alignment is solved by :mod:`ereval._algorithms` (its module docstring
says how); CEAFm's and CEAFe's totals are computed together, as statistics of
the table (:func:`ereval._algorithms.aligned_totals`).

CEAFm and CEAFe follow the CoNLL reference scorer v8.01 (twinless mentions count
in the cluster sizes; empty denominators give 0). :func:`ceaf_rn_scores` is the
twinless-mention variant of Rahman & Ng (2009), :func:`ceaf_sys_scores` that of
Cai & Strube (2010).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .._algorithms import ceafe_weights, max_weight_alignment
from .._errors import InputError
from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._util import check_beta, coref_prf, coref_scores

__all__ = ["ceaf_rn_scores", "ceaf_scores", "ceaf_similarity", "ceaf_sys_scores"]

Phi = Literal[1, 2, 3, 4]


def ceaf_similarity(table: ContingencyTable, phi: Phi) -> npt.NDArray[np.float64]:
    """``phi(T_i, P_j)`` for every non-zero cell (zero cells have similarity 0)."""
    n = table.counts.astype(np.float64)
    a = table.cell_true_sizes
    b = table.cell_pred_sizes
    if phi == 1:
        return np.asarray((table.counts == a) & (table.counts == b), dtype=np.float64)
    if phi == 2:
        return np.ones_like(n)
    if phi == 3:
        return n
    return ceafe_weights(table.counts, a, b)


def ceaf_scores(
    table: ContingencyTable | Statistics,
    *,
    phi: Phi = 4,
    beta: float = 1.0,
    prefix: str | None = None,
) -> dict[str, float]:
    """CEAF precision, recall and F1 with similarity ``phi`` (1-4).

    Keys are ``ceafm_*`` for ``phi=3``, ``ceafe_*`` for ``phi=4`` and
    ``ceaf_phi1_*`` / ``ceaf_phi2_*`` otherwise (or ``prefix``). The aligned
    totals of ``phi=3`` and ``phi=4`` are statistics of the table (an engine
    computes them where the data is), and so is that of ``phi=1`` (the exact
    matches); ``phi=2`` needs the cells.
    """
    beta = check_beta(beta)
    if phi not in (1, 2, 3, 4):
        raise InputError(f"'phi' must be one of 1, 2, 3, 4; received {phi!r}")
    name = prefix or {1: "ceaf_phi1", 2: "ceaf_phi2", 3: "ceafm", 4: "ceafe"}[phi]
    s = statistics_of(table)
    if phi == 3:
        total = s.ceafm_total
    elif phi == 4:
        total = s.ceafe_total
    elif phi == 1:
        # a cell of n = a_i = b_j is alone in its row and column: the best alignment
        # of phi1 takes every such cell, and only those weigh
        total = float(s.exact_matches)
    else:
        cells = s.table
        if cells is None:
            raise InputError(f"'phi': CEAF with phi={phi} needs the cells of the table")
        total = max_weight_alignment(cells, ceaf_similarity(cells, phi))
    if phi == 3:
        den_r, den_p = s.n_true_records, s.n_pred_records
    else:
        den_r, den_p = s.n_true_clusters, s.n_pred_clusters
    r, p, f = coref_prf(total, den_r, total, den_p)
    out = {f"{name}_precision": p, f"{name}_recall": r, f"{name}_f1": f}
    if beta != 1.0:
        out[f"{name}_fbeta"] = coref_prf(total, den_r, total, den_p, beta)[2]
    return out


def ceaf_rn_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """CEAF_r&n: mention-based CEAF after discarding twinless singleton response mentions.

    Rahman & Ng (2009) score system mentions with CEAF by first removing every
    *twinless* response mention (a predicted record absent from the truth) that is
    alone in its predicted cluster; twinless response mentions in larger predicted
    clusters stay, and so do twinless key mentions. On what remains, with ``T_i``
    and ``P_j`` the clusters, ``m`` a one-to-one alignment and ``phi3`` the number
    of shared records::

        Phi = max_m sum_i |T_i ∩ P_m(i)|
        R = Phi / sum_i |T_i|,      P = Phi / sum_j |P_j|

    so a kept twinless record lowers precision (or recall) and never matches.
    Without twinless records this is CEAFm. A discarded record's cluster holds no
    record of the truth, so it has no cell: ``Phi`` is CEAFm's total, and the
    prediction's records are ``N_P - s`` with ``s`` those clusters.

    Parameters
    ----------
    table : ContingencyTable or Statistics
        Built with ``on_mismatch="twinless"`` to score twinless records, or its
        statistics.
    beta : float, default 1.0
        Weight of recall; when not 1 the result also has ``ceaf_rn_fbeta``.

    Returns
    -------
    dict
        ``ceaf_rn_precision``, ``ceaf_rn_recall``, ``ceaf_rn_f1`` (and
        ``ceaf_rn_fbeta``). As in the CoNLL scorer, an empty denominator gives 0.

    References
    ----------
    Rahman, A. & Ng, V. (2009). Supervised models for coreference resolution.
    EMNLP, 968-977. As described by Cai, J. & Strube, M. (2010). Evaluation
    metrics for end-to-end coreference resolution systems. SIGDIAL, 28-36; and
    Maidasani et al. (2012), §3.2.5.

    Examples
    --------
    The twinless singleton ``e`` is discarded; the twinless ``d`` stays and costs
    precision (``Phi = 2``: ``a`` and ``b``).

    >>> from ereval.contingency import contingency_table
    >>> truth, pred = [["a", "b", "c"]], [["a", "b", "d"], ["e"]]
    >>> t = contingency_table(truth, pred, on_mismatch="twinless")
    >>> s = ceaf_rn_scores(t)
    >>> s["ceaf_rn_precision"], s["ceaf_rn_recall"]
    (0.6666666666666666, 0.6666666666666666)
    """
    beta = check_beta(beta)
    s = statistics_of(table)
    phi = s.ceafm_total
    den_r, den_p = s.n_true_records, s.n_pred_records - s.twinless_pred_singletons
    return coref_scores("ceaf_rn", phi, den_r, phi, den_p, beta)


def ceaf_sys_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """CEAF_sys (Cai & Strube 2010): CEAFm of the tables B-cubed's ``b3_sys`` scores
    (:func:`~ereval.metrics._bcubed.b3_twinless_scores`). For precision, twinless
    key mentions join the response as singletons, twinless singleton response
    mentions are discarded and the other twinless response mentions join the key
    as singletons; for recall, twinless response mentions are discarded and
    twinless key mentions join the response as singletons. The best alignments of
    those tables are statistics of the table itself
    (:mod:`ereval._algorithms._twinless`).

    >>> from ereval.contingency import contingency_table
    >>> truth, pred = [["a", "b", "c"]], [["a", "b", "d"], ["e"]]
    >>> t = contingency_table(truth, pred, on_mismatch="twinless")
    >>> s = ceaf_sys_scores(t)
    >>> s["ceaf_sys_precision"], s["ceaf_sys_recall"]
    (0.5, 0.6666666666666666)
    """
    beta = check_beta(beta)
    s = statistics_of(table)
    num_p, num_r = s.ceaf_sys_precision_total, s.ceaf_sys_recall_total
    den_r = s.n_true_records
    den_p = s.n_pred_records - s.twinless_pred_singletons + s.n_true_records - s.n_common
    return coref_scores("ceaf_sys", num_r, den_r, num_p, den_p, beta)
