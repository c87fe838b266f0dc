r"""Precision, recall and F at every threshold, estimated from the labels of one sampler.

A sampler labels pairs of a pool to estimate the measures of the pool's own
predictions. The same labels, with the same weights, estimate them for the
predictions ``score >= s`` at any other threshold ``s``: only the prediction of
each labelled pair changes, ``lhat_s(z) = [score(z) >= s]``. :func:`estimated_curve`
does this on a grid of thresholds with the sampler's own estimator:

*Importance-weighted samplers* (passive with replacement, importance, OASIS).
Draw ``t`` picks pair ``z_t`` with weight ``W_t = N p(z_t) / q_t(z_t)``
(:attr:`Sampler.history`). For each count ``c`` in (TP, PP, P) at threshold
``s``, with ``f^TP = l lhat_s``, ``f^PP = lhat_s`` and ``f^P = l``,

.. math:: \hat c(s) = C^c(s) + \frac{1}{T} \sum_{t:\ z_t \text{ open}} W_t f^c(z_t),

``C^c(s)`` the exact count over the strata every pair of which is labelled
(their draws are replaced by it) and the sum over the draws of the other
strata. This is the Hansen-Hurwitz estimator of each count (unbiased when no
stratum is complete; the OASIS pmf stops drawing from complete strata, which is
why their counts are used instead). ``hat F_alpha(s) = hat TP / (alpha hat PP +
(1 - alpha) hat P)`` and its delta-method variance is ``sum_t (a_t - hat F b_t)^2
/ (sum_t b_t)^2`` with ``a_t``, ``b_t`` the terms of the numerator and
denominator, as in :func:`ereval.oasis.weighted_ratio`. With passive sampling
(``W_t = N``) the estimate is the plain ratio of the labelled counts.

*Stratified samplers without replacement* (stratified, passive without
replacement): the stratified ratio :func:`ereval.oasis.stratified_ratio` of the
per-stratum counts at threshold ``s``, with its finite-population correction.
With passive sampling without replacement (one stratum) this too is the plain
ratio.

A census (every pair labelled) gives the exact measures, standard error 0.
An estimate with standard error 0 that is not known exactly (e.g. recall 1
because no labelled match lies below the threshold) carries a warning: its
zero-width interval understates the uncertainty.

OASIS's own estimate at its threshold adds a model-based variance term for the
strata it rarely visits (:func:`ereval.oasis.estimates.adaptive_variance_sum`);
the curve uses the empirical variance at every threshold, so at the sampler's
threshold the values agree but the intervals may differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError
from .._validation import as_1d_array, check_in_range, check_int
from ..results import UNIT_RANGE, Estimate, normal_estimate
from ._base import Sampler
from .estimates import stratified_ratio

__all__ = ["EstimatedCurve", "estimated_curve"]

FloatArray = npt.NDArray[np.float64]

_MEASURES = ("precision", "recall", "f_measure")


@dataclass(frozen=True, eq=False)
class EstimatedCurve:
    """Estimated precision, recall and F-alpha of the links ``score >= t`` at each threshold.

    Attributes
    ----------
    thresholds : numpy.ndarray of float64
        Ascending.
    precision, recall, f_measure : tuple of ereval.Estimate
        One per threshold.
    alpha : float
        Weight of ``f_measure`` (F-alpha; 0.5 is F1).
    confidence : float
        Level of the intervals.
    labels_used : int
        Distinct labelled pairs.
    method : str
        The sampler's name.
    """

    thresholds: FloatArray
    precision: tuple[Estimate, ...]
    recall: tuple[Estimate, ...]
    f_measure: tuple[Estimate, ...]
    alpha: float
    confidence: float
    labels_used: int
    method: str

    @property
    def frame(self) -> pd.DataFrame:
        """One row per threshold: each measure's value, ``_std``, ``_low`` and ``_high``."""
        data: dict[str, Any] = {"threshold": self.thresholds}
        for name in _MEASURES:
            ests: tuple[Estimate, ...] = getattr(self, name)
            data[name] = [e.value for e in ests]
            data[f"{name}_std"] = [e.std for e in ests]
            data[f"{name}_low"] = [e.interval[0] for e in ests]
            data[f"{name}_high"] = [e.interval[1] for e in ests]
        return pd.DataFrame(data)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict: the run's figures and one row per threshold (each measure's
        :meth:`ereval.Estimate.to_dict`)."""
        rows = []
        for i, t in enumerate(self.thresholds.tolist()):
            row: dict[str, Any] = {"threshold": t}
            for name in _MEASURES:
                row[name] = getattr(self, name)[i].to_dict()
            rows.append(row)
        return {
            "alpha": self.alpha,
            "confidence": self.confidence,
            "labels_used": self.labels_used,
            "method": self.method,
            "rows": rows,
        }


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
) -> EstimatedCurve:
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
    EstimatedCurve

    Examples
    --------
    >>> from ereval.oasis import PassiveSampler, synthetic_pool
    >>> pool = synthetic_pool(5_000, imbalance=20, seed=1)
    >>> sampler = PassiveSampler(pool, replace=False, seed=1)
    >>> _ = sampler.run(budget=5_000)          # a census: the exact curve
    >>> curve = estimated_curve(sampler, [0.0, 1.0])
    >>> [round(e.value, 4) for e in curve.precision], curve.precision[0].std
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
    idx, lab = sampler.labelled
    labels = lab.astype(np.float64)
    accepted = (scores[idx][:, None] >= grid[None, :]).astype(np.float64)  # (n, G)
    g = grid.shape[0]
    if sampler.exhausted:
        tp = labels @ accepted
        pp = accepted.sum(axis=0)
        pos = np.full(g, labels.sum())
        counts = {m: _exact(tp, pp, pos, weight) for m, weight in _weights(a).items()}
    elif getattr(sampler, "_estimator", "weighted") == "stratified":
        counts = _stratified(sampler, idx, labels, accepted, a, level)
    else:
        counts = _weighted(sampler, idx, labels, grid, scores, a, level)
    # a measure is known exactly when every pair it depends on is labelled
    unlabelled = np.ones(scores.shape[0], dtype=bool)
    unlabelled[idx] = False
    top_open = float(scores[unlabelled].max()) if unlabelled.any() else -math.inf
    bottom_open = float(scores[unlabelled].min()) if unlabelled.any() else math.inf
    open_above: npt.NDArray[np.bool_] = np.asarray(grid <= top_open, dtype=bool)
    # recall 1 is exact when no unlabelled pair lies below the threshold
    open_below: npt.NDArray[np.bool_] = np.asarray(grid > bottom_open, dtype=bool)
    exact: dict[str, npt.NDArray[np.bool_]] = {
        "precision": ~open_above,
        "recall": ~open_below,
        "f_measure": np.full(g, sampler.exhausted),
    }
    out: dict[str, tuple[Estimate, ...]] = {}
    for name, values in counts.items():
        out[name] = tuple(
            _finish(e, name, a, used, sampler.method, level, exact=bool(known))
            for e, known in zip(values, exact[name], strict=True)
        )
    return EstimatedCurve(
        thresholds=grid,
        precision=out["precision"],
        recall=out["recall"],
        f_measure=out["f_measure"],
        alpha=a,
        confidence=level,
        labels_used=used,
        method=sampler.method,
    )


def _weights(alpha: float) -> dict[str, float]:
    return {"precision": 1.0, "recall": 0.0, "f_measure": alpha}


def _exact(tp: FloatArray, pp: FloatArray, pos: FloatArray, alpha: float) -> list[Estimate]:
    out = []
    for t, p, q in zip(tp.tolist(), pp.tolist(), pos.tolist(), strict=True):
        den = alpha * p + (1.0 - alpha) * q
        f = t / den if den > 0 else math.nan
        out.append(Estimate(f, 0.0 if den > 0 else math.nan, (f, f), 0.0, 0, ""))
    return out


def _stratified(
    sampler: Sampler,
    idx: npt.NDArray[np.int64],
    labels: FloatArray,
    accepted: FloatArray,
    alpha: float,
    level: float,
) -> dict[str, list[Estimate]]:
    strata = sampler.strata
    k = strata.sizes.shape[0]
    alloc = np.asarray(strata.allocations, dtype=np.int64)[idx]
    n_k = np.bincount(alloc, minlength=k).astype(np.int64)
    pos_k = np.bincount(alloc, weights=labels, minlength=k).round().astype(np.int64)
    g = accepted.shape[1]
    tp_kg = np.zeros((k, g))
    pp_kg = np.zeros((k, g))
    np.add.at(tp_kg, alloc, labels[:, None] * accepted)
    np.add.at(pp_kg, alloc, accepted)
    tp_i = tp_kg.round().astype(np.int64)
    pp_i = pp_kg.round().astype(np.int64)
    out: dict[str, list[Estimate]] = {}
    for name, weight in _weights(alpha).items():
        out[name] = [
            stratified_ratio(
                strata.sizes, n_k, tp_i[:, j], pp_i[:, j], pos_k, weight, confidence=level
            )
            for j in range(g)
        ]
    return out


def _weighted(
    sampler: Sampler,
    idx: npt.NDArray[np.int64],
    labels: FloatArray,
    grid: FloatArray,
    scores: FloatArray,
    alpha: float,
    level: float,
) -> dict[str, list[Estimate]]:
    strata = sampler.strata
    k = strata.sizes.shape[0]
    alloc_all = np.asarray(strata.allocations, dtype=np.int64)
    n_k = np.bincount(alloc_all[idx], minlength=k)
    closed = n_k == strata.sizes
    label_of = np.zeros(scores.shape[0])
    label_of[idx] = labels
    # exact counts over the complete strata
    in_closed = closed[alloc_all[idx]]
    acc_closed = (scores[idx[in_closed]][:, None] >= grid[None, :]).astype(np.float64)
    c_tp = labels[in_closed] @ acc_closed
    c_pp = acc_closed.sum(axis=0)
    c_pos = float(labels[in_closed].sum())
    # draws of the open strata
    hist_idx, hist_w = sampler.history
    t = hist_idx.shape[0]
    open_draw = ~closed[alloc_all[hist_idx]]
    w = np.where(open_draw, hist_w, 0.0)
    lab = label_of[hist_idx]
    acc = (scores[hist_idx][:, None] >= grid[None, :]).astype(np.float64)  # (T, G)
    x_tp = (w * lab)[:, None] * acc + c_tp[None, :]
    x_pp = w[:, None] * acc + c_pp[None, :]
    x_pos = (w * lab + c_pos)[:, None]
    out: dict[str, list[Estimate]] = {}
    for name, weight in _weights(alpha).items():
        num = x_tp
        den = weight * x_pp + (1.0 - weight) * x_pos
        sum_num = num.sum(axis=0)
        sum_den = den.sum(axis=0)
        ests = []
        for j in range(grid.shape[0]):
            if t == 0 or not sum_den[j] > 0.0:
                ests.append(Estimate(math.nan, math.nan, (math.nan, math.nan), level, 0, ""))
                continue
            f = float(sum_num[j] / sum_den[j])
            u = num[:, j] - f * den[:, j]
            var = float(u @ u) / float(sum_den[j]) ** 2
            ests.append(normal_estimate(f, math.sqrt(var), level=level, n=0, method=""))
        out[name] = ests
    return out


def _finish(
    est: Estimate, name: str, alpha: float, used: int, method: str, level: float, *, exact: bool
) -> Estimate:
    """The estimate at ``level`` with ``n``, ``method`` and warnings filled in."""
    label = {"precision": "precision", "recall": "recall"}.get(name, f"F-alpha (alpha = {alpha:g})")
    if math.isnan(est.value):
        note = (
            f"{label} is undefined at this threshold: none of the {used} labelled pairs counts "
            "in its denominator; label more pairs"
        )
        return Estimate(math.nan, math.nan, (math.nan, math.nan), level, used, method, (note,))
    if est.std == 0.0:
        notes: tuple[str, ...] = ()
        if not exact:
            notes = (
                f"{label} = {est.value:g} with standard error 0: no labelled pair at this "
                "threshold says otherwise, but unlabelled pairs could, so the interval "
                "understates the uncertainty; label more pairs",
            )
        return Estimate(est.value, 0.0, (est.value, est.value), level, used, method, notes)
    return normal_estimate(
        est.value,
        est.std,
        level=level,
        n=used,
        method=method,
        bounds=UNIT_RANGE,
        quantity=label,
        advice=f"{used} labels are too few to pin it down at this threshold; label more pairs",
    )
