"""PAULA: bounds on the precision function of a ranked list from O(log N) annotations.

Sabharwal and Sedghi (2017), "How Good Are My Predictions? Efficiently
Approximating Precision-Recall Curves for Massive Datasets", UAI.

:func:`paula_plan` chooses the ranks to annotate (no work of size N).
"""

from __future__ import annotations

from ._plan import PaulaPlan, minimum_r_tilde, paula_plan

__all__ = [
    "PaulaPlan",
    "minimum_r_tilde",
    "paula_plan",
]
