"""The registry of estimators: each is a ratio of population sums over true clusters.

Every quantity below equals ``offset + scale * sum_c f(c) / sum_c g(c)`` over
the true clusters ``c`` of the population, so that with clusters (or blocks of
clusters) drawn with probability proportional to ``p_u`` it is estimated by the
ratio estimator of :mod:`ereval.estimators._ratio` with ``B_s = f_s / p_s`` and
``A_s = g_s / p_s`` (Binette et al. 2024, §3.4; Binette et al. 2022, §2.3).
Terms use the per-cluster statistics of :mod:`ereval.estimators._terms`
(``a``, ``sq = sum n^2``, ``nb = sum n b``, ...); ``N`` is the number of
records, ``|Ĉ|`` the number of predicted clusters and ``|P|`` the number of
predicted pairs of the whole prediction.

The registry is public so that other packages (:func:`ereval.simulate`) can
evaluate the same estimators on many samples at once without reaching into
private modules.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..results import UNIT_RANGE
from ._terms import ClusterTerms, log_ratio

__all__ = ["SPECS", "SPEC_BY_KEY", "EstimatorSpec", "Requirement"]

FloatArray = npt.NDArray[np.float64]
TermFunction = Callable[[ClusterTerms, float], tuple[FloatArray, FloatArray]]
Affine = Callable[[ClusterTerms], "tuple[float, float] | None"]
Requirement = Literal["names", "size_proportional"]
_IDENTITY = (0.0, 1.0)


@dataclass(frozen=True)
class EstimatorSpec:
    """One estimator: output key, estimated metric, representation and its terms.

    ``affine(terms)`` gives ``(offset, scale)`` of the exact map applied to the
    ratio, or ``None`` when the metric is fixed by convention (then 1).
    ``subgroups`` is False for forms whose target involves whole-population
    constants and so has no subgroup meaning (Binette et al. 2024, Remark 3).
    ``bounds`` is the range of the estimated quantity (the interval is clamped to
    it, a value outside it is reported): ``[0, 1]`` except for the average
    cluster size, at least 1. ``proportion`` says that every unit's ratio lies in
    ``[0, 1]`` too (``B_s <= A_s``), so that the beta and Wilson intervals of
    :mod:`ereval.estimators._intervals` apply; it is False for the ``*_cluster``
    forms, whose per-unit ratios exceed 1. ``full`` gives the terms with every
    predicted link (or predicted cluster) leaving a true cluster counted whole
    instead of shared between the two clusters it joins (``leaving="full"``,
    see :mod:`ereval.estimators._leaving`); None where nothing is shared.
    """

    key: str
    metric: str
    form: str
    terms: TermFunction
    reference: str
    affine: Affine = lambda t: _IDENTITY
    requires: Requirement | None = None
    subgroups: bool = True
    beta_only: bool = False
    bounds: tuple[float, float] = UNIT_RANGE
    proportion: bool = True
    full: TermFunction | None = None


def _ones(t: ClusterTerms) -> FloatArray:
    return np.ones_like(t.size)


def _tp(t: ClusterTerms) -> FloatArray:
    """``sum_j C(n_j, 2)``: true pairs of ``c`` that are predicted."""
    return (t.sq - t.size) / 2.0


def _pair_precision_block(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # |T_c ∩ P_c| and |P_c| + |P_c^-|/2 = sum_j n_j (b_j - 1) / 2
    return _tp(t), (t.nb - t.size) / 2.0


def _pair_precision_cluster(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # N g(c) with g(c) = f(c) / |P|, over |c| (Binette 2022, eq. 12)
    if t.n_pred_pairs == 0:
        return np.zeros_like(t.size), np.zeros_like(t.size)
    return t.n_records * _tp(t) / t.n_pred_pairs, t.size


def _leaving(t: ClusterTerms) -> FloatArray:
    """``sum_j n_j (b_j - n_j)``: predicted links from ``c`` to records outside ``c``."""
    return t.nb - t.sq


def _pair_precision_full(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # |T_c ∩ P_c| over |P_c| + |P_c^-|: a link leaving c counts 1
    return _tp(t), (t.sq - t.size) / 2.0 + _leaving(t)


def _pair_f_full(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    f, g = _pair_f(t, beta)
    return f, g + _leaving(t) / (1.0 + beta * beta)


def _met(t: ClusterTerms) -> FloatArray:
    """The number of predicted clusters meeting ``c``."""
    return np.bincount(t.rows, minlength=t.n_clusters).astype(np.float64)


def _cluster_precision_full(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.exact, _met(t)


def _cluster_f_full(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    b2 = beta * beta
    return (1.0 + b2) * t.exact, _met(t) + b2


def _pair_recall(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return _tp(t), t.size * (t.size - 1.0) / 2.0


def _pair_f(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # |c| (|c| - 1 - UCE(c)) over |c| (|c| - 1 + SDE(c) / (1 + beta^2)) (Binette 2024, Lemma 2)
    b2 = beta * beta
    return t.sq - t.size, t.size * (t.size - 1.0) + (t.nb - t.size * t.size) / (1.0 + b2)


def _cluster_precision_block(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # |Ĉ| = sum_c sum_j n_cj / b_j: each predicted cluster counted once over the clusters it meets
    return t.exact, t.frac


def _cluster_precision(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.n_records * t.exact, t.n_pred_clusters * t.size


def _cluster_recall(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.exact, _ones(t)


def _cluster_f_block(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    b2 = beta * beta
    return (1.0 + b2) * t.exact, t.frac + b2


def _cluster_f(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    b2 = beta * beta
    n = float(t.n_records)
    return n * (1.0 + b2) * t.exact, n * b2 + t.n_pred_clusters * t.size


def _b3_precision(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.b3p, t.size


def _b3_recall(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.sq / t.size, t.size


def _b3e_precision(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # 1 - ROCE(c) (Binette 2024, Lemma 4)
    return t.b3p / t.size, _ones(t)


def _b3e_recall(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    # 1 - RUCE(c)
    return t.sq / (t.size * t.size), _ones(t)


def _homogeneity(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.ent_pred, log_ratio(t.size, t.n_records)


def _completeness(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return -t.ent_true, t.size


def _completeness_affine(t: ClusterTerms) -> tuple[float, float] | None:
    if t.pred_entropy == 0:
        return None
    return 1.0, -1.0 / t.pred_entropy


def _avg_size(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.size, _ones(t)


def _matching(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    return t.size * (t.size > 1), t.size


def _homonymy(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    if t.homonym is None:
        raise ValueError("homonymy needs names")
    return t.homonym, _ones(t)


def _variation(t: ClusterTerms, beta: float) -> tuple[FloatArray, FloatArray]:
    if t.variation is None:
        raise ValueError("name variation needs names")
    return t.variation, _ones(t)


_B22 = "Binette et al. 2022"
_B24 = "Binette et al. 2024"


SPECS: tuple[EstimatorSpec, ...] = (
    EstimatorSpec(
        "pairwise_precision",
        "pairwise_precision",
        "block",
        _pair_precision_block,
        f"{_B22}, Lemma 3 and eq. 14 (each cluster its own block); {_B24}, Lemma 1",
        full=_pair_precision_full,
    ),
    EstimatorSpec(
        "pairwise_precision_cluster",
        "pairwise_precision",
        "cluster",
        _pair_precision_cluster,
        f"{_B22}, Lemma 2 and eq. 12",
        subgroups=False,
        proportion=False,
    ),
    EstimatorSpec(
        "pairwise_precision_record",
        "pairwise_precision",
        "record",
        _pair_precision_cluster,
        f"{_B22}, Lemma 1 and eqs. 9-10",
        requires="size_proportional",
        subgroups=False,
        proportion=False,
    ),
    EstimatorSpec(
        "pairwise_recall",
        "pairwise_recall",
        "block",
        _pair_recall,
        f"{_B22}, eqs. 11, 13, 15; {_B24}, Lemma 1",
    ),
    EstimatorSpec(
        "pairwise_f1",
        "pairwise_f1",
        "block",
        lambda t, b: _pair_f(t, 1.0),
        f"{_B24}, Lemma 2",
        full=lambda t, b: _pair_f_full(t, 1.0),
    ),
    EstimatorSpec(
        "pairwise_fbeta",
        "pairwise_fbeta",
        "block",
        _pair_f,
        f"{_B24}, Lemma 2",
        beta_only=True,
        full=_pair_f_full,
    ),
    EstimatorSpec(
        "cluster_precision",
        "cluster_precision",
        "block",
        _cluster_precision_block,
        f"{_B24}, eq. 13, with |Ĉ| = sum_c sum_j n_cj / b_j",
        full=_cluster_precision_full,
    ),
    EstimatorSpec(
        "cluster_precision_cluster",
        "cluster_precision",
        "cluster",
        _cluster_precision,
        f"{_B24}, Lemma 3",
        subgroups=False,
        proportion=False,
    ),
    EstimatorSpec("cluster_recall", "cluster_recall", "block", _cluster_recall, f"{_B24}, Lemma 3"),
    EstimatorSpec(
        "cluster_f1",
        "cluster_f1",
        "block",
        lambda t, b: _cluster_f_block(t, 1.0),
        f"{_B24}, eq. 13, with |Ĉ| = sum_c sum_j n_cj / b_j",
        full=lambda t, b: _cluster_f_full(t, 1.0),
    ),
    EstimatorSpec(
        "cluster_f1_cluster",
        "cluster_f1",
        "cluster",
        lambda t, b: _cluster_f(t, 1.0),
        f"{_B24}, Lemma 3",
        subgroups=False,
        proportion=False,
    ),
    EstimatorSpec(
        "cluster_fbeta",
        "cluster_fbeta",
        "block",
        _cluster_f_block,
        f"{_B24}, eq. 13",
        beta_only=True,
        full=_cluster_f_full,
    ),
    EstimatorSpec(
        "b3_precision",
        "b3_precision",
        "ratio",
        _b3_precision,
        "Bagga & Baldwin 1998; ratio of cluster sums",
    ),
    EstimatorSpec(
        "b3_recall", "b3_recall", "ratio", _b3_recall, "Bagga & Baldwin 1998; ratio of cluster sums"
    ),
    EstimatorSpec(
        "b3_entity_precision", "b3_entity_precision", "ratio", _b3e_precision, f"{_B24}, Lemma 4"
    ),
    EstimatorSpec("b3_entity_recall", "b3_entity_recall", "ratio", _b3e_recall, f"{_B24}, Lemma 4"),
    EstimatorSpec(
        "homogeneity",
        "homogeneity",
        "ratio",
        _homogeneity,
        f"{_B24}, Lemma 5 (per-record term log(n/b))",
        affine=lambda t: (1.0, -1.0),
        subgroups=False,
    ),
    EstimatorSpec(
        "completeness",
        "completeness",
        "ratio",
        _completeness,
        "Rosenberg & Hirschberg 2007; H(Ĉ|C) as a ratio of cluster sums",
        affine=_completeness_affine,
        subgroups=False,
    ),
    EstimatorSpec(
        "average_cluster_size",
        "average_cluster_size",
        "ratio",
        _avg_size,
        f"{_B24}, eq. 4",
        bounds=(1.0, math.inf),
        proportion=False,
    ),
    EstimatorSpec("matching_rate", "matching_rate", "ratio", _matching, f"{_B24}, eq. 4"),
    EstimatorSpec(
        "homonymy_rate", "homonymy_rate", "ratio", _homonymy, f"{_B24}, eq. 2", requires="names"
    ),
    EstimatorSpec(
        "name_variation_rate",
        "name_variation_rate",
        "ratio",
        _variation,
        f"{_B24}, eq. 3",
        requires="names",
    ),
)

SPEC_BY_KEY: dict[str, EstimatorSpec] = {s.key: s for s in SPECS}
