"""Subgroup differences: each group's estimate minus the overall (or a baseline group's).

Binette et al. (2024, Fig. 8) compare groups of entities by their estimates; a
difference needs its own standard error, because a group's estimate and the
overall one come from the *same* sample (the group is part of the whole), and two
groups' estimates come from the same draws. Both are ratio estimators
``R_k = B_k / A_k`` of estimated totals over the ``n`` draws, with per-draw rows
``(b_ks, a_ks)`` (a draw outside group ``k`` gives ``(0, 0)``: a domain of the
full sample). The delta method linearises each::

    R_k - R_k(true) ~ sum_s e_ks,   e_ks = scale_k (b_ks - R_k a_ks) / A_k,   A_k = sum_s a_ks

so the difference ``D = R_g - R_0`` (group minus overall, or minus a baseline
group) has the linearised terms ``z_s = e_gs - e_0s`` and the variance (Cochran
1977, §6.11; the same expansion as Binette et al. 2022, eq. 8)::

    V_hat(D) = sum_h theta_h n_h / (n_h - 1) sum_{s in h} (z_s - zbar_h)^2

over the strata ``h`` of a size-stratified design (one stratum otherwise, with
the design's finite-population correction ``theta``). Expanded,
``V(D) = V(R_g) + V(R_0) - 2 Cov(R_g, R_0)``: when the group is a large part of
the whole the covariance is large and the difference far more precise than the
two intervals suggest; for two disjoint groups sampled independently the
covariance is small (negative, of order ``1/n``, from the shared ``n``).

The point value is the difference of the two estimates as :func:`estimate` and
:func:`estimate_by_group` report them (bias-corrected), and the interval the
normal one, ``D +- z sqrt(V_hat)``, within the range of a difference (``[-1, 1]``
for scores and rates). Each group's own standard error in
:func:`estimate_by_group` conditions on the number of draws that fell in the
group; the variance above does not (it is the domain variance over all draws),
which is what a difference across the whole sample needs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_beta, examples
from ..engines import Engine, EngineName
from ..io import Columns
from ..results import Estimate, normal_estimate, normal_quantile
from ._designs import ClusterSample, Design, WeightKind
from ._intervals import DEFAULT_INTERVAL, IntervalMethod
from ._leaving import Leaving, spec_terms
from ._metrics import (
    _sample_options,
    available_estimators,
    estimate_from_terms,
    group_setup,
    resolve_estimators,
)
from ._registry import SPEC_BY_KEY, EstimatorSpec
from ._terms import ClusterTerms

__all__ = ["OVERALL", "difference_std", "draw_rows", "estimate_differences"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: The baseline meaning the whole sample.
OVERALL = "overall"


def draw_rows(
    terms: ClusterTerms,
    sample: ClusterSample,
    spec: EstimatorSpec,
    keep: BoolArray,
    *,
    beta: float = 1.0,
    leaving: Leaving = "half",
) -> tuple[FloatArray, FloatArray]:
    """The weighted rows ``(b_s, a_s)`` of every draw, summed over its kept clusters.

    A draw whose unit holds no kept cluster gives ``(0, 0)``. The rows are those
    :func:`estimate_from_terms` uses (``f / p`` and ``g / p``, times ``N_h / n_h``
    in a size-stratified design), over all draws.
    """
    units = sample.unit_of_cluster
    draws = sample.draws
    inv_p = sample.draw_weights / sample.probabilities[draws]
    f, g = spec_terms(spec, leaving)(terms, beta)
    mask = keep.astype(np.float64)
    b = np.bincount(units, weights=f * mask, minlength=sample.n_units)[draws] * inv_p
    a = np.bincount(units, weights=g * mask, minlength=sample.n_units)[draws] * inv_p
    return b.astype(np.float64), a.astype(np.float64)


def _linearised(b: FloatArray, a: FloatArray, scale: float) -> FloatArray | None:
    total = float(a.sum())
    if total == 0.0:
        return None
    r = float(b.sum()) / total
    out: FloatArray = scale * (b - r * a) / total
    return out


def difference_std(
    first: tuple[FloatArray, FloatArray],
    second: tuple[FloatArray, FloatArray],
    *,
    strata: npt.ArrayLike,
    theta: npt.ArrayLike,
    scale: float = 1.0,
) -> float:
    """The linearised standard error of ``B1/A1 - B2/A2`` from rows of the same draws.

    Parameters
    ----------
    first, second : (b, a)
        Per-draw weighted rows of the two ratios (zeros where a draw lies
        outside a domain).
    strata : array_like of int
        Stratum code of each draw (all 0 unstratified).
    theta : array_like
        Finite-population correction of each stratum.
    scale : float, default 1.0
        The affine scale applied to both ratios.

    Returns
    -------
    float
        NaN when either denominator total is 0 or no stratum has 2 draws.

    Examples
    --------
    Group rows are the overall rows with draws outside the group set to 0:

    >>> b = np.array([1.0, 0.0, 2.0, 1.0]); a = np.array([1.0, 1.0, 2.0, 2.0])
    >>> g = np.array([1.0, 1.0, 0.0, 0.0])
    >>> round(difference_std((b * g, a * g), (b, a), strata=[0, 0, 0, 0], theta=[1.0]), 6)
    0.310979
    """
    e1 = _linearised(*first, scale)
    e2 = _linearised(*second, scale)
    if e1 is None or e2 is None:
        return math.nan
    z = e1 - e2
    codes = np.asarray(strata, dtype=np.int64)
    th = np.asarray(theta, dtype=np.float64).reshape(-1)
    counts = np.bincount(codes, minlength=th.shape[0])
    if not (counts > 1).any():
        return math.nan
    sums = np.bincount(codes, weights=z, minlength=th.shape[0])
    means = sums / np.maximum(counts, 1)
    dev = z - means[codes]
    within = np.bincount(codes, weights=dev * dev, minlength=th.shape[0])
    factor = np.where(counts > 1, th * counts / np.maximum(counts - 1, 1), 0.0)
    return math.sqrt(max(float((factor * within).sum()), 0.0))


def _difference_bounds(bounds: tuple[float, float]) -> tuple[float, float]:
    low, high = bounds
    return low - high, high - low


def estimate_differences(
    pred: Any,
    sample: Any,
    groups: Any,
    *,
    baseline: Any = OVERALL,
    design: Design | None = None,
    weights: Any = None,
    weight_kind: WeightKind = "probability",
    blocks: Any = None,
    draws: Any = None,
    replace: bool = True,
    population_size: int | None = None,
    metrics: str | Iterable[str] | None = None,
    beta: float = 1.0,
    level: float = 0.95,
    interval: IntervalMethod = DEFAULT_INTERVAL,
    leaving: Leaving = "half",
    names: Any = None,
    record_col: Columns = "record_id",
    cluster_col: str = "cluster_id",
    engine: EngineName | Engine = "auto",
) -> dict[Any, dict[str, Estimate]]:
    """Each subgroup's estimate minus the overall estimate (or a baseline group's), with intervals.

    The difference ``D = R_g - R_0`` of two ratio estimators from the same
    sample, with the linearised variance
    ``V_hat(D) = sum_h theta_h n_h/(n_h-1) sum_{s in h} (z_s - zbar_h)^2``,
    ``z_s = (b_gs - R_g a_gs)/A_g - (b_0s - R_0 a_0s)/A_0`` (the covariance of
    the two estimates included; see :mod:`ereval.estimators._differences`), and
    the normal interval ``D +- z sqrt(V_hat)`` within the range of a difference.

    Parameters
    ----------
    groups : str or mapping
        The group of each sampled true cluster, as for :func:`estimate_by_group`.
    baseline : object, default "overall"
        ``"overall"``: subtract the estimate over the whole sample (always with
        ``leaving="half"``, the whole population's own value). Otherwise a group
        label: subtract that group's estimate (computed with the same
        ``leaving``); that group is then left out of the result.
    leaving : {"half", "full"}, default "half"
        How the groups count predicted links leaving them (see
        :func:`estimate` and :mod:`ereval.estimators._leaving`).
    metrics : str or list of str, optional
        Estimator keys; default every estimator with a subgroup meaning that the
        sample allows (no naive values: they have no standard error).
    pred, sample, design, weights, weight_kind, blocks, draws, replace, population_size, beta, level, interval, names, record_col, cluster_col, engine
        As for :func:`estimate`.

    Returns
    -------
    dict
        Group label -> estimator key -> :class:`~ereval.Estimate` of the
        difference (``n`` is the number of draws of the whole sample; the
        warnings are those of the two estimates).

    Examples
    --------
    >>> pred = {1: "x", 2: "x", 3: "x", 4: "y", 5: "y", 6: "z", 7: "w", 8: "w"}
    >>> sample = {1: "a", 2: "a", 3: "b", 4: "c", 5: "c", 6: "d", 7: "e", 8: "f"}
    >>> groups = {"a": "u", "b": "u", "c": "v", "d": "v", "e": "u", "f": "v"}
    >>> d = estimate_differences(pred, sample, groups, design="cluster",
    ...                          weights="uniform", metrics="pairwise_precision")
    >>> e = d["v"]["pairwise_precision"]
    >>> round(e.value, 4), round(e.std, 4)
    (0.3586, 0.2528)
    """
    beta = check_beta(beta)
    normal_quantile(level)
    setup = group_setup(
        pred,
        sample,
        groups,
        design=design,
        weights=weights,
        names=names,
        record_col=record_col,
        cluster_col=cluster_col,
        engine=engine,
        options=_sample_options(weight_kind, blocks, draws, replace, population_size),
        beta=beta,
        level=level,
        interval=interval,
        leaving=leaving,
    )
    s, terms = setup.sample, setup.terms
    overall = isinstance(baseline, str) and baseline == OVERALL
    if not overall and baseline not in setup.masks:
        raise InputError(
            f"'baseline' must be 'overall' or one of the groups (e.g. "
            f"{examples(np.asarray(list(setup.masks), dtype=object))}); received {baseline!r}"
        )
    if s.design == "single_block":
        raise InputError(
            "'design' = 'single_block' has no standard errors, so differences have no interval"
        )
    keys = (
        available_estimators(s, terms, beta=beta, subgroup=True, naive=False)
        if metrics is None
        else resolve_estimators(metrics, s, terms, True)
    )
    keys = [k for k in keys if k in SPEC_BY_KEY]
    if not keys:
        raise InputError(
            "'metrics' names no estimator with a standard error (naive values have none)"
        )
    everything = np.ones(terms.n_clusters, dtype=bool)
    base_keep = everything if overall else setup.masks[baseline]
    base_leaving: Leaving = "half" if overall else setup.leaving
    base = estimate_from_terms(
        terms,
        s,
        keys,
        keep=None if overall else base_keep,
        beta=beta,
        level=level,
        interval=interval,
        leaving=base_leaving,
    )
    strata = s.draw_strata
    theta = s.stratum_theta()
    out: dict[Any, dict[str, Estimate]] = {}
    for label, keep in setup.masks.items():
        if not overall and label == baseline:
            continue
        own = estimate_from_terms(
            terms,
            s,
            keys,
            keep=keep,
            beta=beta,
            level=level,
            interval=interval,
            leaving=setup.leaving,
        )
        out[label] = {
            key: _difference(
                key,
                own[key],
                base[key],
                terms,
                s,
                keep,
                base_keep,
                strata,
                theta,
                beta=beta,
                level=level,
                leaving=setup.leaving,
                base_leaving=base_leaving,
                against="overall" if overall else f"group {baseline!r}",
            )
            for key in keys
        }
    return out


def _difference(
    key: str,
    own: Estimate,
    base: Estimate,
    terms: ClusterTerms,
    sample: ClusterSample,
    keep: BoolArray,
    base_keep: BoolArray,
    strata: npt.NDArray[np.int64],
    theta: FloatArray,
    *,
    beta: float,
    level: float,
    leaving: Leaving,
    base_leaving: Leaving,
    against: str,
) -> Estimate:
    spec = SPEC_BY_KEY[key]
    affine = spec.affine(terms)
    scale = 1.0 if affine is None else affine[1]
    first = draw_rows(terms, sample, spec, keep, beta=beta, leaving=leaving)
    second = draw_rows(terms, sample, spec, base_keep, beta=beta, leaving=base_leaving)
    std = difference_std(first, second, strata=strata, theta=theta, scale=scale)
    value = own.value - base.value
    method = f"difference of ratio estimators (group minus {against}, linearised covariance)"
    return normal_estimate(
        value,
        std,
        level=level,
        n=sample.n_draws,
        method=method,
        bounds=_difference_bounds(spec.bounds),
        quantity=f"the difference in '{key}'",
        warnings=[*own.warnings, *base.warnings],
    )
