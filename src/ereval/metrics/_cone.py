"""CONE B-cubed and CONE CEAF: scores over the records a partial truth names.

CONE (Lin, Shah, Frederking & Gershman 2010) evaluates a system's full output
against a *subset* of the gold standard: the clusters of the named-entity
mentions only, a subset that named-entity labels can approximate when no full
gold standard exists. The system output is cut down to the mentions of that
subset and scored there with B-cubed and CEAF; mentions outside the subset
(pronouns, nominals: records the partial truth does not list) neither help nor
hurt. In entity-resolution terms: the truth lists the records it is sure of,
the prediction covers every record, and the score is taken on the truth's
records.

With ``T_i`` the true clusters (of the named records), ``P_j`` the predicted
clusters restricted to records the truth lists (``P_j ∩ M``, empty ones
dropped), ``n_ij = |T_i ∩ P_j|``, ``a_i = |T_i|`` and ``b_j = |P_j ∩ M|``::

    CONE B3:    R = sum_ij n_ij^2 / a_i / sum_i a_i,   P = sum_ij n_ij^2 / b_j / sum_j b_j
    CONE CEAF:  Phi = max_m sum_i phi(T_i, P_m(i) ∩ M),
                R = Phi / sum_i phi(T_i, T_i),     P = Phi / sum_j phi(P_j ∩ M, P_j ∩ M)

with ``phi3 = |T ∩ P|`` (``cone_ceafm``) or ``phi4 = 2 |T ∩ P| / (|T| + |P|)``
(``cone_ceafe``). A named record the prediction leaves out counts in the recall
denominators and never in a numerator (the CoNLL convention of the other
coreference metrics); empty denominators give 0.

The table is built with ``on_mismatch="twinless"`` from the partial truth and
the whole prediction: the predicted records the truth does not list are then the
*twinless response mentions*, and CONE drops every one of them. Computed from a
table, CONE B3 therefore equals the ``b3_0`` variant of Stoyanov et al. (2009),
which discards twinless response mentions in the same way; CONE CEAF is the same
restriction applied to CEAF. When both sides cover the same records CONE B3 is
B3 and CONE CEAF is CEAFm / CEAFe.

References
----------
Lin, B., Shah, R., Frederking, R. & Gershman, A. (2010). CONE: Metrics for
automatic evaluation of named entity co-reference resolution. Proceedings of the
2010 Named Entities Workshop, ACL, 136-144. Surveyed by Maidasani, H., Namata,
G., Huang, B. & Getoor, L. (2012). Entity resolution evaluation measures,
§3.2.4-3.2.5.
"""

from __future__ import annotations

from .._algorithms import max_weight_alignment
from ..contingency import ContingencyTable
from ..statistics import Statistics, statistics_of
from ._ceaf import ceaf_similarity
from ._twinless import drop_pred_twinless
from ._util import check_beta, coref_scores

__all__ = ["cone_b3_scores", "cone_ceaf_scores", "cone_table"]


def cone_table(table: ContingencyTable) -> ContingencyTable:
    """The table restricted to the truth's records: every predicted record the
    truth does not list is removed (predicted clusters left empty disappear)."""
    return drop_pred_twinless(table, singletons_only=False)


def cone_b3_scores(table: ContingencyTable | Statistics, *, beta: float = 1.0) -> dict[str, float]:
    """CONE B-cubed precision, recall and F1 (module docstring for the formula).

    Parameters
    ----------
    table : ContingencyTable or Statistics
        Of the partial truth and the whole prediction, built with
        ``on_mismatch="twinless"`` (with the same records on both sides CONE B3
        is B3), or its statistics.
    beta : float, default 1.0
        Weight of recall; when not 1 the result also has ``cone_b3_fbeta``.

    Returns
    -------
    dict
        ``cone_b3_precision``, ``cone_b3_recall``, ``cone_b3_f1`` (and
        ``cone_b3_fbeta``).

    Examples
    --------
    The truth names ``a, b, c``; ``x`` and ``y`` are records it does not list.
    On ``{a, b} {c}`` the prediction scores precision 1 and recall
    ``(2 * 2/3 + 1/3) / 3 = 5/9``; ``x`` and ``y`` do not count.

    >>> from ereval.contingency import contingency_table
    >>> truth = [["a", "b", "c"]]
    >>> pred = [["a", "b", "x"], ["c", "y"]]
    >>> t = contingency_table(truth, pred, on_mismatch="twinless")
    >>> s = cone_b3_scores(t)
    >>> s["cone_b3_precision"], round(s["cone_b3_recall"], 4)
    (1.0, 0.5556)
    """
    beta = check_beta(beta)
    s = statistics_of(table)
    # restricted to the truth's records, each predicted cluster keeps its c_j records
    sums = (s.b3_recall_sum, s.n_true_records, s.b3_common_precision_sum, s.n_common)
    return coref_scores("cone_b3", *sums, beta)


def cone_ceaf_scores(table: ContingencyTable, *, beta: float = 1.0) -> dict[str, float]:
    """CONE CEAF with ``phi3`` (``cone_ceafm_*``) and ``phi4`` (``cone_ceafe_*``).

    Parameters
    ----------
    table : ContingencyTable
        As for :func:`cone_b3_scores`.
    beta : float, default 1.0
        Weight of recall; when not 1 the result also has the ``_fbeta`` keys.

    Returns
    -------
    dict
        ``cone_ceafm_precision``, ``cone_ceafm_recall``, ``cone_ceafm_f1``,
        ``cone_ceafe_precision``, ``cone_ceafe_recall``, ``cone_ceafe_f1`` (and
        the ``_fbeta`` keys).

    Examples
    --------
    Restricted to the truth's records the prediction is ``{a, b} {c}``: the
    best alignment pairs ``{a, b, c}`` with ``{a, b}``; ``Phi3 = 2`` of 3
    records and ``Phi4 = 2 * 2 / (3 + 2) = 0.8`` of 1 true and 2 predicted
    clusters.

    >>> from ereval.contingency import contingency_table
    >>> t = contingency_table([["a", "b", "c"]], [["a", "b", "x"], ["c", "y"]],
    ...                       on_mismatch="twinless")
    >>> s = cone_ceaf_scores(t)
    >>> round(s["cone_ceafm_recall"], 4), s["cone_ceafe_recall"], s["cone_ceafe_precision"]
    (0.6667, 0.8, 0.4)
    """
    beta = check_beta(beta)
    kept = cone_table(table)
    # phi3 weights are integers, so its aligned total is an exact integer
    phi3 = round(max_weight_alignment(kept, ceaf_similarity(kept, 3)))
    phi4 = max_weight_alignment(kept, ceaf_similarity(kept, 4))
    out = coref_scores("cone_ceafm", phi3, kept.n_true_records, phi3, kept.n_pred_records, beta)
    out |= coref_scores("cone_ceafe", phi4, kept.n_true_clusters, phi4, kept.n_pred_clusters, beta)
    return out
