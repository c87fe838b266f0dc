"""Pair-counting agreement indices: Rand, adjusted Rand and Fowlkes-Mallows.

With the exact pair counts ``TP, FP, FN, TN`` (see :func:`~ereval.metrics._pairwise.pair_counts`)::

    Rand = (TP + TN) / C(N, 2)                                  (Rand 1971)
    ARI  = 2 (TP TN - FN FP) / ((TP + FN)(FN + TN) + (TP + FP)(FP + TN))   (Hubert & Arabie 1985)
    FMI  = TP / sqrt((TP + FP)(TP + FN))                        (Fowlkes & Mallows 1983)

Products are formed from Python integers, so they never overflow. An undefined
``0 / 0`` gives NaN (scikit-learn returns 1.0 or 0.0 in those degenerate cases:
one record for Rand; both sides all singletons or one cluster for ARI; no
predicted or no true pair for FMI). These metrics compare partitions of one
record set: with twinless records each side's missing records are added as
singletons.
"""

from __future__ import annotations

import math

from ..contingency import ContingencyTable
from ..statistics import Statistics
from ._pairwise import pair_counts
from ._util import ratio

__all__ = ["rand_scores"]


def rand_scores(table: ContingencyTable | Statistics) -> dict[str, float]:
    """Rand index, adjusted Rand index and Fowlkes-Mallows index."""
    c = pair_counts(table)
    tp, fp, fn, tn = c.true_positives, c.false_positives, c.false_negatives, c.true_negatives
    total = tp + fp + fn + tn
    ari_den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    fmi_den = (tp + fp) * (tp + fn)
    return {
        "rand_index": ratio(tp + tn, total),
        "adjusted_rand_index": ratio(2 * (tp * tn - fn * fp), ari_den),
        "fowlkes_mallows": math.nan if fmi_den == 0 else tp / math.sqrt(fmi_den),
    }
