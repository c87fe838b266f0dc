"""Estimate true performance from a small weighted sample of labelled true clusters.

A team labels a few hundred true clusters, drawn with known (relative)
probabilities, and needs nearly unbiased estimates with standard errors for
its whole database (Binette et al. 2022; Binette et al. 2024, §3.1 and §3.4):

>>> from ereval.estimators import estimate
>>> pred = {1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4}
>>> sample = {1: "c1", 2: "c1", 3: "c1", 4: "c2", 5: "c2", 8: "c4"}
>>> est = estimate(pred, sample, design="cluster", weights="uniform")
>>> e = est["pairwise_precision"]
>>> round(e.value, 4), round(e.std, 4), e.method
(0.3889, 0.2546, 'ratio estimator (block form, cluster design, skew-corrected beta interval)')

Every estimate is an :class:`ereval.Estimate` (value, std, interval, level, n,
method, warnings): intervals lie in the quantity's range (beta intervals with the
design's effective sample size, widened for skew, for the scores and rates;
:mod:`ereval.estimators._intervals`), and a sample too
small for its design is reported in ``warnings``.

See ``docs/estimation.md`` for a guide to designs and estimators.
"""

from __future__ import annotations

from ..results import Estimate, normal_quantile
from ._beta_interval import beta_interval
from ._designs import DESIGNS, ClusterSample, Design, WeightKind, as_sample, draw_sample
from ._differences import OVERALL, estimate_differences
from ._error_weights import expected_error_probabilities
from ._intervals import (
    DEFAULT_INTERVAL,
    INTERVAL_METHODS,
    IntervalMethod,
    ratio_interval,
    wilson_interval,
)
from ._leaving import LEAVING, Leaving
from ._metrics import available_estimators, estimate, estimate_by_group, estimate_from_terms
from ._naive import NAIVE_METRICS, naive_values
from ._ratio import (
    EstimationWarning,
    confidence_interval,
    fpc_theta,
    ratio_estimate,
    ratio_of_means,
    ratio_problems,
    size_warning,
)
from ._reviewer_errors import EstimateShift, ReviewerSensitivity, reviewer_sensitivity
from ._reviewer_rate import ReviewerErrorRate, reviewer_error_rate
from ._size_design import plan_size_stratified
from ._terms import ClusterTerms, PreparedPrediction, cluster_terms, prepare_prediction
from ._unequal_designs import plan_expected_error, plan_predicted_cluster

__all__ = [
    "ClusterSample",
    "ClusterTerms",
    "DEFAULT_INTERVAL",
    "DESIGNS",
    "Design",
    "Estimate",
    "EstimateShift",
    "EstimationWarning",
    "INTERVAL_METHODS",
    "IntervalMethod",
    "LEAVING",
    "Leaving",
    "NAIVE_METRICS",
    "OVERALL",
    "PreparedPrediction",
    "ReviewerErrorRate",
    "ReviewerSensitivity",
    "WeightKind",
    "as_sample",
    "available_estimators",
    "beta_interval",
    "cluster_terms",
    "confidence_interval",
    "draw_sample",
    "estimate",
    "estimate_by_group",
    "estimate_differences",
    "estimate_from_terms",
    "expected_error_probabilities",
    "fpc_theta",
    "naive_values",
    "normal_quantile",
    "plan_expected_error",
    "plan_predicted_cluster",
    "plan_size_stratified",
    "prepare_prediction",
    "ratio_estimate",
    "ratio_interval",
    "ratio_of_means",
    "ratio_problems",
    "reviewer_error_rate",
    "reviewer_sensitivity",
    "size_warning",
    "wilson_interval",
]
