"""PAULA: bounds on the precision function of a ranked list from O(log N) annotations.

Sabharwal and Sedghi (2017), "How Good Are My Predictions? Efficiently
Approximating Precision-Recall Curves for Massive Datasets", UAI.

* :func:`paula_plan` chooses the ranks to annotate (no work of size N);
* :func:`paula_bounds` turns their labels into lower and upper bounds on the
  precision function and the curves derived from it (precision-yield, PR,
  precision at k);
* :func:`check_monotonicity` reports where the labels contradict the
  monotonicity assumptions under which the bounds are guaranteed.
"""

from __future__ import annotations

from ._bounds import Interval, PaulaBounds, PrecisionCurve, paula_bounds
from ._diagnostics import MonotonicityReport, MonotonicityWarning, Violation, check_monotonicity
from ._labels import load_labels
from ._plan import PaulaPlan, minimum_r_tilde, paula_plan

__all__ = [
    "Interval",
    "MonotonicityReport",
    "MonotonicityWarning",
    "PaulaBounds",
    "PaulaPlan",
    "PrecisionCurve",
    "Violation",
    "check_monotonicity",
    "load_labels",
    "minimum_r_tilde",
    "paula_bounds",
    "paula_plan",
]
