"""Scored pairs: every metric at every threshold.

Linkers (Splink, dedupe, recordlinkage, Zingg) output scored record pairs.
:func:`threshold_curve` scores them against a true clustering at every
threshold: the pairs as scored (``links_*``: counts, precision, recall, F, ROC
and average precision, pairs completeness and reduction ratio) and the
clustering by connected components of the accepted pairs (every clustering
metric under its canonical name), updated merge by merge. See ``docs/curves.md``.
"""

from __future__ import annotations

from ._curve import curve_from_scored_pairs, evaluate_pairs, threshold_curve
from ._metrics import INCREMENTAL_METRICS
from ._result import ThresholdCurve

__all__ = [
    "INCREMENTAL_METRICS",
    "ThresholdCurve",
    "curve_from_scored_pairs",
    "evaluate_pairs",
    "threshold_curve",
]
