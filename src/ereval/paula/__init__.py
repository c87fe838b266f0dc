"""PAULA: bounds on the precision function of a ranked list from O(log N) annotations.

Sabharwal and Sedghi (2017), "How Good Are My Predictions? Efficiently
Approximating Precision-Recall Curves for Massive Datasets", UAI.

* :func:`paula_plan` chooses the ranks to annotate (no work of size N);
* :func:`paula_bounds` turns their labels into lower and upper bounds on the
  precision function and the curves derived from it (precision-yield, PR,
  precision at k, the latter an :class:`ereval.Estimate` whose interval holds
  the bounds);
* :func:`check_monotonicity` reports where the labels contradict the
  monotonicity assumptions under which the bounds are guaranteed;
* the baselines: uniform random sampling with Hoeffding intervals
  (:func:`random_sampling_curve`, eqs. 2-5) and logarithmic stratified sampling
  (:func:`stratified_design`, Algorithm 1);
* :func:`annotation_counts` compares the annotations each method needs (Figure 1).
"""

from __future__ import annotations

from ._bounds import PaulaBounds, paula_bounds
from ._counts import AnnotationCounts, annotation_counts
from ._diagnostics import MonotonicityReport, MonotonicityWarning, Violation, check_monotonicity
from ._labels import labels_by_rank, load_labels
from ._plan import PaulaPlan, minimum_r_tilde, paula_plan
from ._sampling import (
    hoeffding_half_width,
    hoeffding_sample_size,
    random_sampling_annotations,
    random_sampling_curve,
    random_sampling_threshold,
    uniform_sample_ranks,
)
from ._stratified import (
    StratifiedDesign,
    StratifiedEstimate,
    stratified_annotations,
    stratified_design,
    stratified_sample_size,
)

__all__ = [
    "AnnotationCounts",
    "MonotonicityReport",
    "MonotonicityWarning",
    "PaulaBounds",
    "PaulaPlan",
    "StratifiedDesign",
    "StratifiedEstimate",
    "Violation",
    "annotation_counts",
    "check_monotonicity",
    "hoeffding_half_width",
    "hoeffding_sample_size",
    "labels_by_rank",
    "load_labels",
    "minimum_r_tilde",
    "paula_bounds",
    "paula_plan",
    "random_sampling_annotations",
    "random_sampling_curve",
    "random_sampling_threshold",
    "stratified_annotations",
    "stratified_design",
    "stratified_sample_size",
    "uniform_sample_ranks",
]
