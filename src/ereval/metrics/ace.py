"""The ACE evaluation score: entity-level precision and recall after an optimal alignment.

The Automatic Content Extraction (ACE) evaluations (Doddington et al. 2004) align
reference and system entities one to one, then count entities: an aligned pair is
a true positive, an unaligned system entity a false positive (a "false alarm"),
an unaligned reference entity a false negative (a "miss")::

    P = TP / (TP + FP) = TP / R,        R = TP / (TP + FN) = TP / K

for ``K`` true and ``R`` predicted clusters (Maidasani et al. 2012, §3.2.6: like
CEAF it aligns optimally, but it counts matches instead of normalising the
alignment's total similarity).

What the published descriptions leave open, and the choices made here:

* **What the alignment maximises.** The ACE scorer maximises a weighted "value"
  built from entity types, mention types and attributes, none of which an entity
  resolution clustering has. With every record weighted alike it reduces to the
  number of shared records, CEAF's ``phi3`` (Luo 2005), which is used here: the
  alignment maximises ``sum |T ∩ P|`` over its pairs. (ACE's default also divides
  by the reference entity's size; that makes the alignment depend on which side is
  the truth, so it is not used.)
* **Which pairs may be aligned.** Only clusters that share at least one record,
  as in the ACE scorer: a pair with nothing in common is never a true positive.
* **Ties.** Several alignments can share the largest overlap and differ in their
  number of pairs; the one with the most pairs is taken, so a cluster is credited
  whenever aligning it costs no overlap. The score is then a function of the
  clustering alone, whatever the solver.
* **Unaligned clusters and twinless records.** Every unaligned predicted cluster
  is a false positive and every unaligned true cluster a false negative, whatever
  its size. Twinless records never enter the alignment (the ACE scorer's penalty
  for unmatched system mentions is not modelled), so with
  ``on_mismatch="twinless"`` a cluster of twinless records only is never aligned.
* **Attribute errors.** ACE also subtracts aligned entities whose type or other
  attributes are wrong; clusterings have no attributes, so there are none.

The alignment reuses the CEAF solver (:func:`~ereval._algorithms.max_weight_alignment`)
on integer weights ``n_ij * (M + 1) + 1`` (``M`` bounds the number of pairs): the
best total is then the largest overlap, and among those alignments the one with
the most pairs, and both are read back exactly from the integer total.
"""

from __future__ import annotations

import numpy as np

from .._algorithms import max_weight_alignment
from .._errors import InputError
from ..contingency import ContingencyTable
from ._util import check_beta, f_beta, ratio

__all__ = ["ace_alignment", "ace_scores"]

# float64 holds every integer below 2**53 exactly
_EXACT_LIMIT = 2**53


def ace_alignment(table: ContingencyTable) -> tuple[int, int]:
    """Overlap and size of the ACE alignment.

    Among the one-to-one alignments of true and predicted clusters that only pair
    clusters sharing a record, the ACE alignment has the largest total overlap
    ``sum |T ∩ P|`` and, among those, the most pairs.

    Parameters
    ----------
    table : ContingencyTable
        The contingency table of the two clusterings.

    Returns
    -------
    tuple of int
        ``(overlap, pairs)``: the shared records and the number of aligned pairs.

    Raises
    ------
    InputError
        If ``(n_common + 2) * (M + 1)`` reaches ``2**53`` (``M`` the smaller number
        of clusters meeting the other side): the encoded totals would no longer be
        exact in floating point. Any table of up to 9 * 10^7 common records fits.

    Examples
    --------
    Truth ``{1}, {2, 3, 4}``, prediction ``{1, 2, 3}, {4}``: aligning ``{2, 3, 4}``
    with ``{1, 2, 3}`` shares 2 records, and so do the two pairs
    ``{1}-{1, 2, 3}`` and ``{2, 3, 4}-{4}``; the tie goes to the two pairs.

    >>> from ereval.contingency import contingency_table
    >>> ace_alignment(contingency_table([[1], [2, 3, 4]], [[1, 2, 3], [4]]))
    (2, 2)
    """
    if table.rows.size == 0:
        return 0, 0
    max_pairs = min(int(np.count_nonzero(table.row_cells)), int(np.count_nonzero(table.col_cells)))
    scale = max_pairs + 1
    # every total and partial sum of the solver stays below (n_common + 2) * scale
    if (table.n_common + 2) * scale >= _EXACT_LIMIT:
        raise InputError(
            "'table' is too large for the exact ACE alignment: it needs "
            f"(n_common + 2) * (pairs + 1) < 2**53; received {table.n_common} common "
            f"records and up to {max_pairs} aligned pairs"
        )
    # one more unit per pair: the total is overlap * scale + pairs, pairs < scale
    weights = table.counts.astype(np.float64) * scale + 1.0
    total = round(max_weight_alignment(table, weights))
    overlap, pairs = divmod(total, scale)
    return int(overlap), int(pairs)


def ace_scores(table: ContingencyTable, *, beta: float = 1.0) -> dict[str, float]:
    """ACE evaluation score: precision and recall of the aligned clusters.

    With ``K`` true and ``R`` predicted clusters and ``TP`` the number of pairs in
    the ACE alignment (:func:`ace_alignment`: largest overlap, then most pairs)::

        FP = R - TP,   FN = K - TP
        P = TP / (TP + FP),   R = TP / (TP + FN),   F = (1 + b^2) P R / (b^2 P + R)

    Parameters
    ----------
    table : ContingencyTable
        The contingency table of the two clusterings.
    beta : float, default 1.0
        Weight of recall; when not 1 the result also has ``ace_fbeta``.

    Returns
    -------
    dict
        ``ace_precision``, ``ace_recall``, ``ace_f1`` (and ``ace_fbeta``); NaN for
        ``0 / 0`` (a side without clusters).

    References
    ----------
    Doddington, G., Mitchell, A., Przybocki, M. et al. (2004). The Automatic Content
    Extraction (ACE) program: tasks, data, and evaluation. LREC, 837-840.
    Maidasani, H., Namata, G., Huang, B. & Getoor, L. (2012). Entity resolution
    evaluation measures, §3.2.6. Luo, X. (2005). On coreference resolution
    performance metrics. HLT/EMNLP, 25-32.

    Examples
    --------
    Maidasani et al.'s result 4: ``{r1, r2, r3}`` and ``{r4, r5, r6}`` are aligned
    with the two predicted clusters, ``{r7, r8}`` is left out (``TP = 2``,
    ``FP = 0``, ``FN = 1``).

    >>> from ereval.contingency import contingency_table
    >>> truth = [["r1", "r2", "r3"], ["r4", "r5", "r6"], ["r7", "r8"]]
    >>> pred = [["r1", "r2", "r3", "r7", "r8"], ["r4", "r5", "r6"]]
    >>> s = ace_scores(contingency_table(truth, pred))
    >>> s["ace_precision"], s["ace_recall"], round(s["ace_f1"], 12)
    (1.0, 0.6666666666666666, 0.8)
    """
    beta = check_beta(beta)
    _, tp = ace_alignment(table)
    p = ratio(tp, table.n_pred_clusters)
    r = ratio(tp, table.n_true_clusters)
    out = {"ace_precision": p, "ace_recall": r, "ace_f1": f_beta(p, r)}
    if beta != 1.0:
        out["ace_fbeta"] = f_beta(p, r, beta)
    return out
