r"""Precision, recall and F at every threshold, estimated from the labels of one sampler.

A sampler labels pairs of a pool to estimate the measures of the pool's own
predictions. The same labels, with the same weights, estimate them for the
predictions ``score >= s`` at any other threshold ``s``: only the prediction of
each labelled pair changes, ``lhat_s(z) = [score(z) >= s]``. :func:`estimated_curve`
does this on a grid of thresholds with the sampler's own estimator and intervals,
by the very computation behind :meth:`Sampler.estimate
<ereval.oasis.OASISSampler.estimate>` (:mod:`ereval.oasis._measures`), so at the
sampler's own threshold the curve and the estimate agree exactly, intervals
included.

*Importance-weighted samplers* (passive with replacement, importance, OASIS).
Draw ``t`` picks pair ``z_t`` with weight ``W_t = N p(z_t) / q_t(z_t)``
(:attr:`Sampler.history`). For each count ``c`` in (TP, PP, P) at threshold
``s``, with ``f^TP = l lhat_s``, ``f^PP = lhat_s`` and ``f^P = l``,

.. math:: \hat c(s) = C^c(s) + \frac{1}{T} \sum_{t:\ z_t \text{ open}} W_t f^c(z_t),

``C^c(s)`` the exact count over the strata every pair of which is labelled
(their draws are replaced by it) and the sum over the draws of the other
strata. ``hat F_alpha(s) = hat TP / (alpha hat PP + (1 - alpha) hat P)``. With
passive sampling (``W_t = N``) the estimate is the plain ratio of the labelled
counts.

*Stratified samplers without replacement* (stratified, passive without
replacement): the stratified sums ``sum_k N_k bar f^c_k`` of the per-stratum
means at threshold ``s``.

The intervals are those of :mod:`ereval.oasis._intervals`. A census (every pair
labelled) gives the exact measures, standard error 0. An interval of width 0
for a measure not known exactly carries a warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import as_1d_array, check_in_range, check_int
from ..results import Estimate, EstimateCurve
from ._base import Sampler, labelled_warnings
from ._measures import measure_estimates

__all__ = ["estimated_curve"]

FloatArray = npt.NDArray[np.float64]

_MEASURES = ("precision", "recall", "f_measure")


def _grid(scores: FloatArray, thresholds: Any) -> FloatArray:
    """The thresholds, ascending: given ones, or ``G`` distinct scores evenly in rank."""
    if thresholds is None:
        thresholds = 100
    if isinstance(thresholds, int | np.integer) and not isinstance(thresholds, bool):
        g = check_int("thresholds", thresholds, minimum=1)
        distinct = np.unique(scores)
        pick = np.unique(np.round(np.linspace(0, distinct.shape[0] - 1, g)).astype(np.int64))
        return distinct[pick].astype(np.float64)
    grid = as_1d_array("thresholds", thresholds)
    try:
        values = np.asarray(grid, dtype=np.float64)
    except (TypeError, ValueError):
        values = np.array([math.nan])
    if values.size == 0 or not np.isfinite(values).all():
        raise InputError(
            "'thresholds' must be None, a number of grid points, or finite thresholds; "
            f"received {thresholds!r}"
        )
    return np.unique(values)


def estimated_curve(
    sampler: Sampler,
    thresholds: int | Sequence[float] | npt.NDArray[Any] | None = None,
    *,
    alpha: float | None = None,
    confidence: float = 0.95,
) -> EstimateCurve:
    """Precision, recall and F-alpha of ``score >= t`` at each threshold, from a sampler's labels.

    Parameters
    ----------
    sampler : ereval.oasis.Sampler
        A sampler that has labelled pairs of its pool (any of
        :func:`ereval.oasis.make_sampler`'s methods, after ``run`` or ask/tell).
    thresholds : None, int or sequence of float
        ``None``: 100 of the pool's distinct scores, evenly spaced in rank; an int
        ``G``: ``G`` of them; a sequence: those thresholds.
    alpha : float, optional
        Weight of the F-measure; the sampler's by default.
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    ereval.results.EstimateCurve
        On the axis ``"threshold"`` (ascending), the quantities ``precision``,
        ``recall`` and ``f_measure`` (F-alpha), one :class:`~ereval.Estimate` per
        threshold (``n``: the distinct labelled pairs; ``method``: the sampler's
        name); ``details``: ``alpha`` and ``labels_used``.

    Examples
    --------
    >>> from ereval.oasis import PassiveSampler, synthetic_pool
    >>> pool = synthetic_pool(5_000, imbalance=20, seed=1)
    >>> sampler = PassiveSampler(pool, replace=False, seed=1)
    >>> _ = sampler.run(budget=5_000)          # a census: the exact curve
    >>> curve = estimated_curve(sampler, [0.0, 1.0])
    >>> curve["precision"].value.round(4).tolist(), curve.estimate("precision", 0).std
    ([0.9952, 1.0], 0.0)
    """
    if not isinstance(sampler, Sampler):
        raise InputError(f"'sampler' must be an ereval.oasis sampler; received {type(sampler)!r}")
    a = sampler.alpha if alpha is None else check_in_range("alpha", alpha, low=0.0, high=1.0)
    level = check_in_range(
        "confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True
    )
    pool = sampler.pool
    scores = np.asarray(pool.scores, dtype=np.float64)
    grid = _grid(scores, thresholds)
    used = sampler.labels_used
    idx, _ = sampler.labelled
    # a measure is known exactly when every pair it depends on is labelled
    unlabelled = np.ones(scores.shape[0], dtype=bool)
    unlabelled[idx] = False
    top_open = float(scores[unlabelled].max()) if unlabelled.any() else -math.inf
    bottom_open = float(scores[unlabelled].min()) if unlabelled.any() else math.inf
    weights = _weights(a)
    out: dict[str, list[Estimate]] = {name: [] for name in _MEASURES}
    for s in grid.tolist():
        ests = measure_estimates(sampler, scores >= s, list(weights.values()), level=level)
        exact = {
            "precision": sampler.exhausted or s > top_open,
            # recall 1 is exact when no unlabelled pair lies below the threshold
            "recall": sampler.exhausted or s <= bottom_open,
            "f_measure": sampler.exhausted,
        }
        for (name, weight), est in zip(weights.items(), ests, strict=True):
            out[name].append(_finish(est, name, weight, used, sampler.method, exact=exact[name]))
    return EstimateCurve.from_estimates(
        "threshold",
        grid,
        {name: out[name] for name in _MEASURES},
        level=level,
        method=sampler.method,
        details={"alpha": a, "labels_used": used},
    )


def _weights(alpha: float) -> dict[str, float]:
    return {"precision": 1.0, "recall": 0.0, "f_measure": alpha}


def _finish(
    est: Estimate, name: str, alpha: float, used: int, method: str, *, exact: bool
) -> Estimate:
    """The estimate with ``n``, ``method`` and warnings filled in."""
    label = {"precision": "precision", "recall": "recall"}.get(name, f"F-alpha (alpha = {alpha:g})")
    advice = f"{used} labels are too few to pin it down at this threshold; label more pairs"
    notes = labelled_warnings(
        est,
        f"{label} at this threshold" if math.isnan(est.value) else label,
        used,
        advice,
        exact=exact,
    )
    return Estimate(est.value, est.std, est.interval, est.level, used, method, notes)
