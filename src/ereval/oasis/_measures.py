r"""F-alpha, precision and recall of one acceptance rule, from a sampler's labels.

The one path behind :meth:`Sampler.estimate` (the pool's predictions) and
:func:`~ereval.oasis.estimated_curve` (``score >= t`` at each threshold): the point
estimates of the sampler's estimator and the intervals of
:mod:`ereval.oasis._intervals`, whose inputs it gathers here.

*Estimators.*  For the importance-weighted samplers (passive with replacement,
importance, OASIS) each count is ``C + (1/T) sum_t W_t f(z_t)`` over the draws of
the strata not completely labelled, ``C`` the exact count over those that are.
For the samplers without replacement (stratified, passive without replacement)
it is the stratified sum ``sum_d N_d bar f_d`` of the design strata's means, a
stratum without labels taking the pooled mean.  ``f = (l a, a, l)`` for a pair
of label ``l`` accepted (``a = 1``) or not.

*One-draw steps.*  A removal takes one draw out of the estimate: ``-W_t f(z_t) / T``
(exact for the ratio, which does not change when all counts are scaled) or, for a
stratified sum, ``-N_d (f_j - bar f_d) / (n_d - 1)`` with the finite-population
correction ``1 - n_d / N_d`` as its weight.  An addition is one more draw of a
true positive, false positive or false negative in a stratum ``k`` of the model
(the sampler's strata, or the pool's default strata for passive and importance
sampling): the weighted samplers give it the stratum's average weight,
``(N_k / m_k) f`` with ``m_k`` the expected number of draws made in the stratum so
far (``sum_t q_t(k)``, the instrumental distributions' mass on it), and the
stratified sum ``N_d (f - bar f_d) / (n_d + 1)``; its expected number is
``m_k N_{k, kind} / N_k``, ``N_{k, kind}`` the stratum's pairs of that kind (the
labelled ones, plus the unlabelled ones at the model's posterior match rate).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..results import Estimate
from ._calibration import Recalibration, recalibrate
from ._intervals import Cells, ModelCounts, combine_intervals, measure_of, one_draw_interval
from ._strata import Strata

if TYPE_CHECKING:
    from ._base import Sampler

__all__ = ["CellTotals", "cell_totals", "measure_estimates", "uniform_draws"]

FloatArray = npt.NDArray[np.float64]

#: Contribution of a true positive, a false positive and a false negative to (TP, PP, P).
KINDS = np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class CellTotals:
    """Pairs and summed match probabilities of each model stratum on each side of the rule."""

    accepted: FloatArray
    accepted_prob: FloatArray
    rejected: FloatArray
    rejected_prob: FloatArray


def cell_totals(
    strata: Strata, accept: npt.NDArray[np.bool_], probabilities: FloatArray
) -> CellTotals:
    """:class:`CellTotals` of the pairs with ``accept`` true (above) and false (below)."""
    a = accept.astype(np.float64)
    acc = _sums(strata.allocations, a, strata.n_strata)
    acc_p = _sums(strata.allocations, a * probabilities, strata.n_strata)
    all_p = _sums(strata.allocations, probabilities, strata.n_strata)
    return CellTotals(acc, acc_p, strata.sizes.astype(np.float64) - acc, all_p - acc_p)


def _sums(groups: npt.NDArray[np.int32], values: FloatArray, k: int) -> FloatArray:
    """Sum of ``values`` in each of ``k`` groups."""
    out: FloatArray = np.bincount(groups, weights=values, minlength=k).astype(np.float64)
    return out


def _exact(counts: FloatArray, alpha: float, level: float) -> Estimate:
    f = float(measure_of(counts, alpha))
    if not math.isfinite(f):
        return Estimate(math.nan, math.nan, (math.nan, math.nan), level, 0, "")
    return Estimate(f, 0.0, (f, f), level, 0, "")


def measure_estimates(
    sampler: Sampler,
    accept: npt.NDArray[np.bool_],
    alphas: Sequence[float],
    *,
    level: float,
    totals: CellTotals | None = None,
) -> list[Estimate]:
    """One :class:`ereval.Estimate` per weight in ``alphas`` for the pairs ``accept`` marks.

    ``n``, ``method`` and ``warnings`` are left empty (the callers fill them in);
    ``totals`` may be given when already known (the sampler caches its own).
    """
    pool = sampler.pool
    idx, lab8 = sampler.labelled
    lab = lab8.astype(np.float64)
    acc_l = accept[idx].astype(np.float64)
    f_l = np.stack([lab * acc_l, acc_l, lab], axis=1)  # (n, 3)
    if sampler.exhausted:
        counts = f_l.sum(axis=0)
        return [_exact(counts, a, level) for a in alphas]
    model = sampler._model_strata()
    k = model.n_strata
    if totals is None:
        totals = cell_totals(model, accept, pool.probabilities)
    # the model of the unlabelled pairs, by model stratum and side of the rule
    km = model.allocations[idx]
    n1 = _sums(km, acc_l, k)
    x1 = _sums(km, acc_l * lab, k)
    n0 = _sums(km, 1.0 - acc_l, k)
    x0 = _sums(km, (1.0 - acc_l) * lab, k)
    pi1 = np.divide(
        totals.accepted_prob, totals.accepted, out=np.full(k, 0.5), where=totals.accepted > 0
    )
    pi0 = np.divide(
        totals.rejected_prob, totals.rejected, out=np.full(k, 0.5), where=totals.rejected > 0
    )
    # the probabilities recalibrated on the labels: the model at each sigma point
    calib = Recalibration.fit(pool.probabilities[idx], lab)

    def cells(delta: float) -> tuple[Cells, Cells]:
        return (
            Cells.from_labels(totals.accepted - n1, n1, x1, recalibrate(pi1, delta)),
            Cells.from_labels(totals.rejected - n0, n0, x0, recalibrate(pi0, delta)),
        )

    above, below = cells(calib.mode)
    r1, r0 = above.mean_rate(), below.mean_rate()
    kinds = np.stack(
        [
            x1 + above.unlabelled * r1,
            (n1 - x1) + above.unlabelled * (1.0 - r1),
            x0 + below.unlabelled * r0,
        ],
        axis=1,
    )  # (K, 3): expected true positives, false positives, false negatives per stratum
    known = (float(x1.sum()), float(totals.accepted.sum()), float(x1.sum() + x0.sum()))
    if sampler._estimator == "stratified":
        counts, steps, weights = _stratified(sampler, model, accept, totals, f_l, kinds)
    else:
        counts, steps, weights = _weighted(sampler, model, accept, totals, f_l, kinds)
    unlabelled = ModelCounts([(w, *cells(d)) for w, d in calib.points()])
    out = []
    for a in alphas:
        value = float(measure_of(counts, a))
        one = one_draw_interval(counts, a, steps, weights, level=level)
        mod = unlabelled.interval(known, a, level=level) if math.isfinite(value) else None
        std, interval = combine_intervals(value, one, mod, level=level)
        out.append(Estimate(value, std, interval, level, 0, ""))
    return out


#: The cell of each kind of pair: true and false positives above the rule, false negatives below.
_CELL_OF_KIND = np.array([1, 1, 0])


def _additions(
    kinds: FloatArray, cells: FloatArray, expected: FloatArray, steps: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The additions of every (stratum, kind): ``steps`` (K, 3 kinds, 3 counts) and expected
    numbers ``m_{k,kind} N_{k,kind} / N_c``, ``N_c`` the pairs of the kind's cell (``cells``:
    (K, 2), below and above the rule) and ``m_{k,kind}`` the draws expected there at the
    rate of pairs of that kind (``expected``: (K, 3))."""
    size = cells[:, _CELL_OF_KIND]
    use = (size > 0.0) & (expected > 0.0) & (kinds > 0.0)
    lam = expected[use] * kinds[use] / size[use]
    return steps[use], lam


def uniform_draws(cells: FloatArray, per_pair: FloatArray) -> FloatArray:
    """Expected draws (K, 3 kinds) when every pair of a cell is drawn at the same rate:
    ``per_pair`` (K, 2) draws per pair below and above the rule, times the cell's pairs."""
    out: FloatArray = (per_pair * cells)[:, _CELL_OF_KIND]
    return out


def _weighted(
    sampler: Sampler,
    model: Strata,
    accept: npt.NDArray[np.bool_],
    totals: CellTotals,
    f_l: FloatArray,
    kinds: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Counts, steps and weights of an importance-weighted sampler (module docstring)."""
    idx, _ = sampler.labelled
    design = sampler.strata
    closed = sampler._exhausted_at >= 0
    hist_idx, hist_w = sampler.history
    t = hist_idx.shape[0]
    label_of = np.zeros(sampler.pool.size)
    label_of[idx] = f_l[:, 2]
    # exact counts of the completely labelled design strata
    census = f_l[closed[design.allocations[idx]]].sum(axis=0)
    w = np.where(closed[design.allocations[hist_idx]], 0.0, hist_w)
    a = accept[hist_idx].astype(np.float64)
    y = label_of[hist_idx]
    x = w[:, None] * np.stack([y * a, a, y], axis=1) / max(t, 1)  # (T, 3)
    counts = census + x.sum(axis=0)
    removals = -x[w > 0.0]
    expected = sampler._expected_draws(model, accept, totals)
    # strata counted exactly take no more draws
    if model is design:
        expected[closed] = 0.0
    cells = np.stack([totals.rejected, totals.accepted], axis=1)
    size = cells[:, _CELL_OF_KIND]
    # one more draw of a kind has the average weight of that kind in its cell, N_c / m_{k,kind}
    weight = np.divide(size, expected, out=np.zeros_like(size), where=expected > 0.0)
    steps, lam = _additions(kinds, cells, expected, weight[:, :, None] * KINDS[None, :, :])
    return (
        counts,
        np.concatenate([removals, steps]),
        np.concatenate([np.ones(removals.shape[0]), lam]),
    )


def _stratified(
    sampler: Sampler,
    model: Strata,
    accept: npt.NDArray[np.bool_],
    totals: CellTotals,
    f_l: FloatArray,
    kinds: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Counts, steps and weights of a sampler without replacement (module docstring)."""
    idx, _ = sampler.labelled
    design = sampler.strata
    kd = design.n_strata
    big = design.sizes.astype(np.float64)
    d_l = design.allocations[idx]
    n_d = np.bincount(d_l, minlength=kd).astype(np.float64)
    sums = np.stack([np.bincount(d_l, weights=f_l[:, c], minlength=kd) for c in range(3)], axis=1)
    pooled = f_l.mean(axis=0) if f_l.shape[0] else np.zeros(3)
    seen = n_d > 0
    means = np.where(seen[:, None], sums / np.maximum(n_d, 1.0)[:, None], pooled[None, :])
    counts = big @ means
    fpc = 1.0 - n_d / big
    # removals: one labelled pair less in its design stratum
    nj = n_d[d_l]
    centre = np.where((nj >= 2.0)[:, None], means[d_l], pooled[None, :])
    removals = -big[d_l, None] * (f_l - centre) / np.maximum(nj - 1.0, 1.0)[:, None]
    # additions: one more pair of a given kind, in each model stratum
    design_of = model_design_map(model, design)
    expected = sampler._expected_draws(model, accept, totals) * fpc[design_of, None]
    cells = np.stack([totals.rejected, totals.accepted], axis=1)
    scale = big[design_of] / (n_d[design_of] + 1.0)
    shift = means[design_of]
    steps, lam = _additions(
        kinds, cells, expected, scale[:, None, None] * (KINDS[None, :, :] - shift[:, None, :])
    )
    return (
        counts,
        np.concatenate([removals, steps]),
        np.concatenate([fpc[d_l], lam]),
    )


def model_design_map(model: Strata, design: Strata) -> npt.NDArray[np.int64]:
    """Design stratum of each model stratum: itself when they are the same strata, else the
    design's only stratum (passive sampling)."""
    if model is design:
        return np.arange(model.n_strata, dtype=np.int64)
    return np.zeros(model.n_strata, dtype=np.int64)
