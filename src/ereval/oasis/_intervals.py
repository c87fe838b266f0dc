r"""Intervals for F-alpha, precision and recall estimated from sampled pair labels.

Every sampler (OASIS, passive, stratified, importance) and :func:`estimated_curve`
reports its measures with the interval built here, the union of two intervals.

One-draw interval (the estimator's sampling variability)
---------------------------------------------------------
Write the measure as ``F = g(c) = TP / (alpha PP + (1 - alpha) P)`` of the counts
``c = (TP, PP, P)`` and ``hat F = g(hat c)`` of the estimated counts.  Model the
draws as a Poisson process over the kinds of draw ``j`` (a stratum of the pool and
the kind of pair drawn there: true positive, false positive, false negative), with
``lambda_j`` the expected number of draws of kind ``j``; each moves ``hat c`` by the
step ``delta_j`` the estimator gives it.  The Poincaré inequality of the Poisson
process (Last & Penrose 2018, Theorem 18.7) bounds the variance of ``hat F`` by the
expected squared change that one more draw makes,

.. math:: \operatorname{Var} \hat F \le \sum_j \lambda_j\,
          \mathbb{E}\big[g(\hat c + \delta_j) - g(\hat c)\big]^2 ,

and by Mecke's formula (their Theorem 4.1) the same quantity is the expected sum,
over the draws made, of the squared change that removing each would make.  So two
estimates of it are at hand: the *additions* (every kind of draw, weighted by its
expected number ``lambda_j``, which for strata with no labelled match comes from
the model of the unlabelled pairs below) and the *removals* (every draw made,
weight 1, with its own weight; model-free).  Unlike the delta method they keep the
non-linearity of ``g``: a rare draw with a huge weight changes ``hat F`` by at most
``hat F`` or ``1 - hat F``, not by its linearised effect.  Changes that lower
``F`` and changes that raise it are summed apart,

.. math:: V_- = \sum_{d_i < 0} w_i d_i^2, \qquad V_+ = \sum_{d_i > 0} w_i d_i^2,
          \qquad d_i = g(\hat c + \delta_i) - g(\hat c),

over additions (``w = lambda``) and removals (``w = 1``, ``delta`` minus the draw's
contribution), and the interval is ``[hat F - z sqrt(V_-), hat F + z sqrt(V_+)]``.
For a linear ``g`` with ``lambda`` at its true value each side is the usual
variance and the interval is the Wald interval; here it is skewed where ``hat F``
is: strata the sampler rarely visits hold matches it has not seen (their
additions lower ``F``), and a rare match drawn with a large weight pulls ``hat F``
down (its removal raises ``F``).  A draw without which ``F`` would be undefined
counts as able to move ``F`` anywhere in [0, 1].

Model interval (the unlabelled pairs)
-------------------------------------
The pairs not yet labelled are modelled per cell (a stratum of the pool and one
side of the threshold): their match rate ``r`` is Beta distributed with mean the
cell's mean match probability ``pi0`` (the pool's probabilities, recalibrated on
the labels by :mod:`ereval.oasis._calibration`) and the weight of ``e = 1``
pseudo-event, ``Beta(c pi0, c (1 - pi0))`` with ``c = e / min(pi0, 1 - pi0)``,
updated by the cell's labels.  A rare event (a match among non-matches, a
non-match among matches) keeps the prior's expectation until the labels hold
about as many pairs as make one such event expected, so a handful of labels
cannot rule out the matches the probabilities expect; a cell whose labels
disagree with the probabilities follows the labels.  The matches among the
unlabelled pairs above the threshold ``X_1`` and below it ``X_0`` are sums of
beta-binomial counts over the cells; with ``PP`` known exactly and ``TP``, ``P``
known over the labelled pairs,

.. math:: F = \frac{TP_\ell + X_1}{\alpha PP + (1 - \alpha)(P_\ell + X_1 + X_0)} .

``X_1`` and ``X_0`` are approximated by gamma distributions with the same mean
and variance (as Fay & Feuer 1997 do for weighted sums of Poisson counts), rounded
to integers, and the interval is the equal-tailed interval of ``F`` (its
distribution function by a 128-point quadrature over ``X_0``), averaged over the
recalibration's sigma points.  This interval need not contain ``hat F`` (the
sampler's weights may disagree with the labels and probabilities); it holds its
level at 0 and 1, and with very few labels it is as wide as the recalibration is
uncertain.

The reported interval is the smallest interval holding both, clamped to [0, 1];
``std`` is its width before clamping over ``2 z``.

References
----------
G. Last and M. Penrose, *Lectures on the Poisson Process*, Cambridge University
Press, 2018 (Theorem 4.1, Mecke's formula; Theorem 18.7, the Poincaré inequality).
M. P. Fay and E. J. Feuer, "Confidence intervals for directly standardized
rates: a method based on the gamma distribution", Statistics in Medicine 16, 1997.
N. G. Marchant and B. I. P. Rubinstein, "In Search of an Entity Resolution OASIS",
PVLDB 10(11), 2017.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from ..results import normal_quantile

__all__ = [
    "PRIOR_EVENTS",
    "Cells",
    "ModelCounts",
    "beta_prior",
    "combine_intervals",
    "measure_of",
    "model_interval",
    "one_draw_interval",
]

FloatArray = npt.NDArray[np.float64]

#: Pseudo-events of the prior of each cell's match rate (see the module docstring).
PRIOR_EVENTS = 1.0

_CLIP = 1e-12
_NODES = 128


def measure_of(counts: FloatArray, alpha: float) -> FloatArray:
    """``TP / (alpha PP + (1 - alpha) P)`` over the last axis of ``counts``; NaN where the
    denominator is not positive.

    >>> measure_of(np.array([[2.0, 4.0, 2.0], [0.0, 0.0, 0.0]]), 0.5)
    array([0.66666667,        nan])
    """
    c = np.asarray(counts, dtype=np.float64)
    den = alpha * c[..., 1] + (1.0 - alpha) * c[..., 2]
    ok = den > 0.0
    out: FloatArray = np.divide(c[..., 0], den, out=np.full(den.shape, math.nan), where=ok)
    return out


def one_draw_interval(
    counts: FloatArray,
    alpha: float,
    steps: FloatArray,
    weights: FloatArray,
    *,
    level: float,
) -> tuple[float, float]:
    """The one-draw interval ``[hat F - z sqrt(V_-), hat F + z sqrt(V_+)]`` (module docstring).

    Parameters
    ----------
    counts : array of shape (3,)
        Estimated ``(TP, PP, P)``.
    alpha : float
        Weight of the measure (1 precision, 0 recall).
    steps : array of shape (m, 3)
        How one draw more (an addition) or one draw less (a removal) moves ``counts``.
    weights : array of shape (m,)
        Expected number of each addition; 1 for a removal (times a finite-population
        correction for samplers without replacement).
    level : float
        Confidence level.

    Returns
    -------
    (float, float)
        The bounds, not clamped to [0, 1]; NaN when ``hat F`` is undefined.

    Examples
    --------
    One stratum of a passive sample with replacement: 4 draws of weight ``N / T = 25``
    (3 true positives, 1 false negative), ``hat c = (75, 75, 100)`` and
    ``hat F_{1/2} = 75 / 87.5 = 0.857``.  Removing a true positive gives
    ``g(50, 50, 75) = 0.8`` (``d = -0.0571``, three times), removing the false
    negative ``g(75, 75, 75) = 1`` (``d = 0.1429``); one more false negative (one
    expected) gives ``g(75, 75, 125) = 0.75`` (``d = -0.1071``).  ``V_- = 3 (0.0571)^2
    + 0.1071^2 = 0.02128``, ``V_+ = 0.1429^2 = 0.02041``:

    >>> c = np.array([75.0, 75.0, 100.0])
    >>> tp, fn = np.array([25.0, 25.0, 25.0]), np.array([0.0, 0.0, 25.0])
    >>> steps = np.array([-tp, -tp, -tp, -fn, fn])
    >>> lo, hi = one_draw_interval(c, 0.5, steps, np.ones(5), level=0.95)
    >>> round(lo, 4), round(hi, 4)
    (0.5713, 1.1371)
    """
    c = np.asarray(counts, dtype=np.float64)
    f = float(measure_of(c, alpha))
    if not math.isfinite(f):
        return math.nan, math.nan
    w = np.asarray(weights, dtype=np.float64)
    moved = measure_of(c[None, :] + np.asarray(steps, dtype=np.float64), alpha)
    # a draw without which F is undefined could leave it anywhere in [0, 1]
    undefined = ~np.isfinite(moved)
    d = np.clip(np.where(undefined, f, moved), 0.0, 1.0) - f
    down = float(np.sum(w * d**2, where=d < 0.0) + np.sum(w, where=undefined) * f**2)
    up = float(np.sum(w * d**2, where=d > 0.0) + np.sum(w, where=undefined) * (1.0 - f) ** 2)
    z = normal_quantile(level)
    return f - z * math.sqrt(down), f + z * math.sqrt(up)


def beta_prior(
    prior_mean: FloatArray, *, events: float = PRIOR_EVENTS
) -> tuple[FloatArray, FloatArray]:
    """Beta prior ``(c pi0, c (1 - pi0))`` of a match rate, ``c = events / min(pi0, 1 - pi0)``.

    The prior holds ``events`` pseudo-events of the rarer outcome (``pi0`` is clipped
    to ``[1e-12, 1 - 1e-12]``).

    >>> a, b = beta_prior(np.array([0.5, 0.01]))
    >>> a.tolist(), b.tolist()
    ([1.0, 1.0], [1.0, 99.0])
    """
    pi = np.clip(np.asarray(prior_mean, dtype=np.float64), _CLIP, 1.0 - _CLIP)
    c = events / np.minimum(pi, 1.0 - pi)
    return c * pi, c * (1.0 - pi)


@dataclass(frozen=True)
class Cells:
    """Unlabelled pairs by cell (a stratum and one side of the threshold) for the model.

    Attributes
    ----------
    unlabelled : array of float
        Unlabelled pairs of each cell.
    a, b : array of float
        Beta posterior of each cell's match rate (prior of :func:`beta_prior`
        plus the cell's labelled matches and non-matches).
    """

    unlabelled: FloatArray
    a: FloatArray
    b: FloatArray

    @classmethod
    def from_labels(
        cls,
        unlabelled: FloatArray,
        labelled: FloatArray,
        matches: FloatArray,
        prior_mean: FloatArray,
        *,
        events: float = PRIOR_EVENTS,
    ) -> Cells:
        """Cells from their labelled pairs, labelled matches and mean match probability."""
        a0, b0 = beta_prior(prior_mean, events=events)
        m = np.asarray(matches, dtype=np.float64)
        n = np.asarray(labelled, dtype=np.float64)
        return cls(np.asarray(unlabelled, dtype=np.float64), a0 + m, b0 + (n - m))

    def mean_rate(self) -> FloatArray:
        """Posterior mean match rate of each cell."""
        out: FloatArray = self.a / (self.a + self.b)
        return out

    def moments(self) -> tuple[float, float]:
        """Mean and variance of the matches among all the cells' unlabelled pairs
        (independent beta-binomial counts)."""
        u, a, b = self.unlabelled, self.a, self.b
        s = a + b
        mean = float(np.sum(u * a / s))
        var = float(np.sum(u * a * b * (s + u) / (s**2 * (s + 1.0))))
        return mean, max(var, 0.0)


class _GammaCount:
    """A count approximated by the gamma distribution ``G`` of the same mean and variance,
    rounded to the nearest integer: ``P(X <= x) = P(G < floor(x) + 1/2)``.

    Its distribution function is tabulated once (1,024 points between its 1e-10 and
    1 - 1e-10 quantiles) and interpolated linearly.
    """

    def __init__(self, mean: float, var: float) -> None:
        self.fixed = not (mean > 0.0 and var > 1e-12 * max(mean, 1.0) ** 2)
        self.mean = mean
        if self.fixed:
            return
        self.shape = mean**2 / var
        self.scale = var / mean
        lo, hi = special.gammaincinv(self.shape, [1e-10, 1.0 - 1e-10])
        self.grid = self.scale * np.linspace(lo, hi, 1024)
        self.table = special.gammainc(self.shape, self.grid / self.scale)

    def cdf(self, x: FloatArray) -> FloatArray:
        if self.fixed:
            out: FloatArray = (x >= self.mean).astype(np.float64)
            return out
        res: FloatArray = np.interp(np.floor(x) + 0.5, self.grid, self.table, left=0.0, right=1.0)
        return res

    def nodes(self, m: int) -> FloatArray:
        """``m`` equally likely values: the rounded midpoint quantiles."""
        if self.fixed:
            return np.full(m, self.mean)
        u = (np.arange(m) + 0.5) / m
        out: FloatArray = np.floor(self.scale * special.gammaincinv(self.shape, u) + 0.5)
        return out


def model_interval(
    known: tuple[float, float, float],
    alpha: float,
    accepted: Cells,
    rejected: Cells,
    *,
    level: float,
) -> tuple[float, float]:
    """Equal-tailed interval of ``F`` under the model of the unlabelled pairs (module docstring).

    Parameters
    ----------
    known : (float, float, float)
        ``(TP_l, PP, P_l)``: labelled true positives, all predicted matches (known
        exactly) and labelled matches.
    alpha : float
        Weight of the measure.
    accepted, rejected : Cells
        The unlabelled pairs above and below the threshold.
    level : float
        Confidence level.

    Examples
    --------
    18 matches labelled, all above the threshold (20 predicted matches, all
    labelled); below it 900 unlabelled pairs whose probabilities say 0.5% are
    matches, and 100 labelled pairs there held none.  The prior's one pseudo-match
    is spread over 200 pseudo-pairs, so the posterior rate is Beta(1, 299) and
    recall ``18 / (18 + X_0)`` lies in about [0.60, 1] (a Monte Carlo of the
    beta-binomial ``X_0`` gives [0.600, 1.000]):

    >>> none = Cells(np.zeros(1), np.ones(1), np.ones(1))
    >>> below = Cells.from_labels(
    ...     np.array([900.0]), np.array([100.0]), np.array([0.0]), np.array([0.005])
    ... )
    >>> lo, hi = model_interval((18.0, 20.0, 18.0), 0.0, none, below, level=0.95)
    >>> round(lo, 2), round(hi, 2)
    (0.6, 1.0)
    """
    return ModelCounts([(1.0, accepted, rejected)]).interval(known, alpha, level=level)


class ModelCounts:
    """The unlabelled matches above (``X_1``) and below (``X_0``) the threshold under the
    model, approximated once for the intervals of several measures.

    ``parts`` is a mixture: ``(weight, accepted, rejected)`` cells, one per value of
    the model's recalibration (:mod:`ereval.oasis._calibration`); the weights sum to 1.
    """

    def __init__(self, parts: Sequence[tuple[float, Cells, Cells]]) -> None:
        self._parts = [
            (w, _GammaCount(*above.moments()), _GammaCount(*below.moments()).nodes(_NODES))
            for w, above, below in parts
        ]

    def interval(
        self, known: tuple[float, float, float], alpha: float, *, level: float
    ) -> tuple[float, float]:
        """The equal-tailed interval of :func:`model_interval`."""
        tp_l, pp, p_l = known
        a1 = 1.0 - alpha

        def cdf(f: FloatArray) -> FloatArray:
            # F <= f  <=>  X_1 (1 - f (1 - alpha)) <= f alpha PP + f (1 - alpha) (P_l + X_0) - TP_l
            slope = 1.0 - f * a1
            safe = np.where(slope > 0.0, slope, 1.0)
            total = np.zeros_like(f)
            for w, x1, nodes in self._parts:
                h = (f[:, None] * (alpha * pp + a1 * (p_l + nodes[None, :])) - tp_l) / safe[:, None]
                total += w * x1.cdf(h).mean(axis=1)
            out: FloatArray = np.where(slope > 0.0, total, 1.0)
            return out

        return _quantile(cdf, 0.5 - level / 2.0), _quantile(cdf, 0.5 + level / 2.0)


def _quantile(cdf: Callable[[FloatArray], FloatArray], q: float) -> float:
    """Smallest ``f`` in [0, 1] with ``cdf(f) >= q``, to within ``16^-4``: four rounds of a
    17-point grid, each inside the bracket the last one found."""
    lo, hi = 0.0, 1.0
    for _ in range(4):
        grid = np.linspace(lo, hi, 17)
        values = cdf(grid)
        i = int(np.searchsorted(values >= q, True))
        if i == 0:
            return lo
        if i == grid.size:
            return hi
        lo, hi = float(grid[i - 1]), float(grid[i])
    return hi


def combine_intervals(
    value: float,
    one_draw: tuple[float, float],
    model: tuple[float, float] | None,
    *,
    level: float,
) -> tuple[float, tuple[float, float]]:
    """``(std, (lower, upper))``: the smallest interval holding both, and ``std`` its
    width over ``2 z`` before clamping to [0, 1].

    >>> std, (lo, hi) = combine_intervals(0.9, (0.7, 1.1), (0.6, 0.95), level=0.95)
    >>> round(std, 4), lo, hi
    (0.1276, 0.6, 1.0)
    """
    if not math.isfinite(value):
        return math.nan, (math.nan, math.nan)
    lo, hi = one_draw
    if model is not None and math.isfinite(model[0]):
        lo, hi = min(lo, model[0]), max(hi, model[1])
    std = (hi - lo) / (2.0 * normal_quantile(level))
    return std, (max(lo, 0.0), min(hi, 1.0))
