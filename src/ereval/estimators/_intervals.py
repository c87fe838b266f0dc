"""Confidence intervals for the ratio estimators that hold near 0 and 1 and under skew.

The normal interval ``E_hat +- z sqrt(V_hat)`` fails in two ways on entity
resolution's scores. At the edges of ``[0, 1]``, where the scores live, a
sample that shows no error (or one or two) has a Taylor variance ``V_hat`` of
0 (or far too small), and the interval shrinks to a point that misses the true
value. And where a few draws carry large errors (a linker that merges whole
families: pairwise precision 0.7-0.85), a sample that missed them has an
estimate on the good side *and* a small variance, so the interval misses on
the long side. Three methods are offered (``docs/estimation.md`` compares them
by simulation, ``benchmarks/bench_coverage.py`` measures them):

``"skew_beta"`` (the default)
    The Clopper-Pearson (beta) interval of ``q`` with the design's effective
    sample size ``n*`` below (Korn and Graubard 1998;
    :mod:`ereval.estimators._beta_interval`), its side towards the long tail
    widened by Hall's (1992) skewness correction, estimated from the linearised
    per-draw terms (:mod:`ereval.estimators._skewness`).
``"wilson"``
    The Wilson score interval with the same ``n*``, equal-tailed.
``"normal"``
    ``E_hat +- z sqrt(V_hat)``.

Each is clamped to the quantity's range. The beta and Wilson intervals apply
to the estimators whose every sampled unit has a ratio in ``[0, 1]``
(``B_s <= A_s``: the block and ratio forms of the scores and rates); the
``*_cluster`` forms, whose per-unit ratios exceed 1, and the average cluster
size get the normal interval — widened on the long side as above under
``"skew_beta"``.

The effective sample size, for an estimate ``q`` of a quantity in ``[0, 1]``
from ``n`` draws with denominators ``A_s``:

* ``n_k = (sum A_s)^2 / sum A_s^2``, Kish's effective number of draws (for
  draws of blocks, ``sum A_s^2`` becomes the sum over the blocks' true clusters
  of their squared denominators: ``n_k`` counts clusters, the units errors come
  in, so the pseudo-unit below is one true cluster, not a whole block);
* ``V = V_hat + theta c / n_k^2``: the variance as if one more draw with a
  typical denominator and a share ``sqrt(c)`` of it in error had been seen
  (``c = PSEUDO_UNIT = 1/2``; ``theta`` the finite-population correction, so a
  census still has width 0);
* ``n* = max(q (1 - q), (1 - 1/n_k) / n_k) / V``, the number of Bernoulli draws
  with the same variance (the design's effective sample size).

The Wilson interval is the set of ``p`` with ``(q - p)^2 <= z^2 p (1 - p) / n*``::

      (q + z^2/(2 n*) +- z sqrt(q (1 - q) / n* + z^2 / (4 n*^2))) / (1 + z^2 / n*)

widened to hold ``q`` (clipped to ``[0, 1]``) itself; with no error seen its far
end is about ``z^2 c / n_k`` from the edge.

References: E. B. Wilson (1927), Probable inference, the law of succession, and
statistical inference, JASA 22; E. L. Korn and B. I. Graubard (1998),
Confidence intervals for proportions with small expected number of positive
counts estimated from survey data, Survey Methodology 24; L. Kish (1965),
Survey Sampling; P. Hall (1992), On the removal of skewness by transformation,
JRSS B 54.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from ..results import UNIT_RANGE, clamp_interval, normal_quantile
from ._beta_interval import beta_interval
from ._skewness import ratio_skewness, skew_quantiles
from ._stratified import centred_rows

__all__ = [
    "DEFAULT_INTERVAL",
    "INTERVAL_LABELS",
    "INTERVAL_METHODS",
    "IntervalMethod",
    "PSEUDO_UNIT",
    "check_interval",
    "effective_sample_size",
    "effective_units",
    "interval_label",
    "ratio_interval",
    "stratum_pseudo_theta",
    "wilson_interval",
]

FloatArray = npt.NDArray[np.float64]
IntervalMethod = Literal["skew_beta", "wilson", "normal"]
#: The interval methods, the default first.
INTERVAL_METHODS: tuple[IntervalMethod, ...] = ("skew_beta", "wilson", "normal")
#: The default interval method.
DEFAULT_INTERVAL: IntervalMethod = "skew_beta"
#: How ``Estimate.method`` names each interval (for the scores and rates in [0, 1]).
INTERVAL_LABELS: dict[str, str] = {
    "skew_beta": "skew-corrected beta",
    "wilson": "Wilson",
    "normal": "",
}
#: ``c``: the squared error share of the pseudo-unit added to the variance.
PSEUDO_UNIT = 0.5


def check_interval(method: object) -> IntervalMethod:
    """``method`` if it names an interval method, else an error naming the choices."""
    for known in INTERVAL_METHODS:
        if method == known:
            return known
    raise InputError(
        f"'interval' must be one of {', '.join(repr(m) for m in INTERVAL_METHODS)}; "
        f"received {method!r}"
    )


def interval_label(method: IntervalMethod, *, proportion: bool) -> str:
    """The interval's name in ``Estimate.method`` (``""`` for the plain normal interval).

    >>> interval_label("skew_beta", proportion=True), interval_label("skew_beta", proportion=False)
    ('skew-corrected beta', 'skew-corrected normal')
    """
    if proportion:
        return INTERVAL_LABELS[method]
    return "skew-corrected normal" if method == "skew_beta" else ""


def effective_units(denominator: npt.ArrayLike, squares: npt.ArrayLike | None = None) -> FloatArray:
    """Kish's effective number of draws ``(sum A_s)^2 / sum A_s^2``, over the last axis.

    ``squares`` gives, per draw, the sum of the squared denominators of the true
    clusters it holds (``sum_{c in s} (g_c / p_s)^2``, for blocks of several
    clusters); by default each draw is one cluster and it is ``A_s^2``. The
    effective number is then counted in clusters, the units errors come in.
    NaN when every ``A_s`` is 0.

    >>> float(effective_units([1.0, 1.0, 2.0]))
    2.6666666666666665
    """
    a = np.asarray(denominator, dtype=np.float64)
    total = a.sum(axis=-1)
    square = (a * a if squares is None else np.asarray(squares, dtype=np.float64)).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(square > 0, total * total / square, np.nan)
    return out


def effective_sample_size(
    value: npt.ArrayLike,
    variance: npt.ArrayLike,
    n_units: npt.ArrayLike,
    *,
    theta: float | FloatArray = 1.0,
) -> FloatArray:
    """``n* = max(q (1 - q), (1 - 1/n_k) / n_k) / (V_hat + theta c / n_k^2)``, elementwise.

    The number of Bernoulli draws with the variance of the estimate plus the
    pseudo-unit (module docstring); ``inf`` when that variance is 0 (a census),
    NaN where an input is NaN.

    >>> float(effective_sample_size(1.0, 0.0, 200.0))
    398.0
    """
    q = np.clip(np.asarray(value, dtype=np.float64), 0.0, 1.0)
    v = np.asarray(variance, dtype=np.float64)
    nk = np.asarray(n_units, dtype=np.float64)
    th = np.asarray(theta, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.maximum(q * (1.0 - q), (1.0 - 1.0 / nk) / nk)
        total = v + th * PSEUDO_UNIT / (nk * nk)
        out: FloatArray = np.where(total > 0, spread / total, np.inf)
    bad = np.isnan(q) | np.isnan(v) | np.isnan(nk)
    return np.where(bad, np.nan, out)


def wilson_interval(
    value: npt.ArrayLike,
    variance: npt.ArrayLike,
    n_units: npt.ArrayLike,
    *,
    level: float,
    theta: float | FloatArray = 1.0,
) -> tuple[FloatArray, FloatArray]:
    """The regularised Wilson interval of the module docstring, elementwise.

    Parameters
    ----------
    value : array_like
        Estimates ``q`` of a quantity in ``[0, 1]`` (clipped into it).
    variance : array_like
        Their Taylor variances ``V_hat``.
    n_units : array_like
        Kish's effective numbers of draws ``n_k`` (:func:`effective_units`).
    level : float
        Confidence level.
    theta : float or array, default 1.0
        Finite-population correction; 0 (a census) gives the point ``q``.

    Returns
    -------
    lower, upper : ndarray
        NaN where ``value``, ``variance`` or ``n_units`` is NaN.

    Examples
    --------
    No error seen in 200 draws of equal denominators:

    >>> lo, hi = wilson_interval(1.0, 0.0, 200.0, level=0.95)
    >>> round(float(lo), 4), float(hi)
    (0.9904, 1.0)
    """
    z = normal_quantile(level)
    q = np.clip(np.asarray(value, dtype=np.float64), 0.0, 1.0)
    n_star = effective_sample_size(value, variance, n_units, theta=theta)
    with np.errstate(divide="ignore", invalid="ignore"):
        z2n = z * z / n_star
        center = (q + z2n / 2.0) / (1.0 + z2n)
        half = z * np.sqrt(q * (1.0 - q) / n_star + z2n * z2n / (4.0 * z * z)) / (1.0 + z2n)
    # n* = 0 (one draw carries every denominator, n_k = 1): the data say nothing
    lower = np.where(n_star > 0, np.minimum(center - half, q), 0.0)
    upper = np.where(n_star > 0, np.maximum(center + half, q), 1.0)
    bad = np.isnan(n_star)
    nan = np.float64(np.nan)
    lo, hi = clamp_interval(np.where(bad, nan, lower), np.where(bad, nan, upper), UNIT_RANGE)
    return lo, hi


def ratio_interval(
    value: npt.ArrayLike,
    std: npt.ArrayLike,
    denominator: npt.ArrayLike,
    *,
    level: float,
    method: IntervalMethod = DEFAULT_INTERVAL,
    numerator: npt.ArrayLike | None = None,
    scale: float = 1.0,
    bounds: tuple[float, float] | None = None,
    proportion: bool = False,
    theta: float | FloatArray = 1.0,
    squares: npt.ArrayLike | None = None,
    strata: npt.ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    """The interval of ratio estimates ``value`` with standard errors ``std``.

    ``denominator`` and ``numerator`` hold the sampled ``A_s`` and ``B_s`` (last
    axis: the draws) of estimates ``offset + scale * B / A``, and ``squares``
    the sums of squared cluster denominators per draw for draws of several
    clusters (see :func:`effective_units`). The beta and Wilson intervals apply
    to a quantity in ``[0, 1]`` whose per-unit ratios lie in it too
    (``proportion``); otherwise the interval is the normal one,
    ``value - z_lower std, value + z_upper std``, clamped to ``bounds``, with
    ``z_lower = z_upper = z`` unless ``"skew_beta"`` widens the long side.
    ``"skew_beta"`` needs ``numerator`` (for the skewness).

    A stratified sample gives ``strata`` (the stratum code of each draw) and
    ``theta`` per stratum: the skewness is that of the within-stratum terms
    (:func:`ereval.estimators._stratified.centred_rows`), ``std`` is the
    stratified standard error, so the effective sample size ``n*`` is the
    stratified design's, and the pseudo-unit's correction is the draws'
    ``theta`` weighted by their squared denominators (0 for a census).
    """
    method = check_interval(method)
    if strata is not None:
        codes = np.asarray(strata, dtype=np.int64)
        a_raw = np.asarray(denominator, dtype=np.float64)
        theta = stratum_pseudo_theta(a_raw, codes, theta, squares)
        if numerator is not None:
            numerator, centred_a = centred_rows(numerator, a_raw, codes)
            return _interval(
                value,
                std,
                a_raw,
                centred_a,
                level=level,
                method=method,
                numerator=numerator,
                scale=scale,
                bounds=bounds,
                proportion=proportion,
                theta=theta,
                squares=squares,
            )
    a_in = np.asarray(denominator, dtype=np.float64)
    return _interval(
        value,
        std,
        a_in,
        a_in,
        level=level,
        method=method,
        numerator=numerator,
        scale=scale,
        bounds=bounds,
        proportion=proportion,
        theta=theta,
        squares=squares,
    )


def stratum_pseudo_theta(
    denominator: FloatArray,
    strata: npt.NDArray[np.int64],
    theta: float | FloatArray,
    squares: npt.ArrayLike | None = None,
) -> FloatArray:
    """The ``theta`` that puts one pseudo-unit in *each* stratum, over the last axis.

    A stratified sample's variance may rest on a few draws of one stratum (rare
    errors among the predicted singletons): the pseudo-unit of the module
    docstring then goes to every stratum ``h``, with the stratum's typical
    denominator and correction ``theta_h``, ``V_pseudo = c sum_h theta_h (A_h /
    A)^2 / n_kh^2`` (``A_h`` the stratum's share of ``A = sum_s a_s``, ``n_kh`` its
    Kish number). Returned as the ``theta`` with ``theta c / n_k^2 = V_pseudo``;
    one stratum gives ``theta`` itself, a census 0.
    """
    codes = np.asarray(strata, dtype=np.int64)
    a = np.asarray(denominator, dtype=np.float64)
    sq = a * a if squares is None else np.asarray(squares, dtype=np.float64)
    th = np.broadcast_to(np.asarray(theta, dtype=np.float64), (int(codes.max()) + 1,))
    k = th.shape[0]
    onehot = np.zeros((a.shape[-1], k))
    onehot[np.arange(a.shape[-1]), codes] = 1.0
    a_h = a @ onehot
    sq_h = sq @ onehot
    total = a.sum(axis=-1)
    total_sq = sq.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (A_h / A)^2 / n_kh^2 = sq_h^2 / (A^2 A_h^2); per unit of 1 / n_k^2 = total_sq^2 / A^4
        per = np.where(a_h != 0, th * sq_h * sq_h / (a_h * a_h), 0.0).sum(axis=-1)
        out: FloatArray = np.where(total_sq > 0, per * total * total / (total_sq * total_sq), 1.0)
    return out


def _interval(
    value: npt.ArrayLike,
    std: npt.ArrayLike,
    denominator: FloatArray,
    skew_denominator: FloatArray,
    *,
    level: float,
    method: IntervalMethod,
    numerator: npt.ArrayLike | None,
    scale: float,
    bounds: tuple[float, float] | None,
    proportion: bool,
    theta: float | FloatArray,
    squares: npt.ArrayLike | None,
) -> tuple[FloatArray, FloatArray]:
    """:func:`ratio_interval` with the denominators for Kish's ``n_k`` and for the skewness."""
    method = check_interval(method)
    z = normal_quantile(level)
    est = np.asarray(value, dtype=np.float64)
    sd = np.asarray(std, dtype=np.float64)
    unit = proportion and bounds == UNIT_RANGE
    if method == "wilson" and unit:
        return wilson_interval(
            est, sd * sd, effective_units(denominator, squares), level=level, theta=theta
        )
    if method == "normal" or method == "wilson":
        return clamp_interval(est - z * sd, est + z * sd, bounds)
    if numerator is None:
        raise InputError("the 'skew_beta' interval needs the sampled numerators ('numerator')")
    a = np.asarray(denominator, dtype=np.float64)
    if not unit:
        z_lo, z_hi = skew_quantiles(ratio_skewness(numerator, skew_denominator, scale=scale), z)
        return clamp_interval(est - z_lo * sd, est + z_hi * sd, bounds)
    n = a.shape[-1]
    n_k = effective_units(a, squares)
    with np.errstate(divide="ignore", invalid="ignore"):
        pseudo = np.where(n_k > 0, PSEUDO_UNIT * n * (n - 1) / (n_k * n_k), 0.0)
    skew = ratio_skewness(numerator, skew_denominator, scale=scale, pseudo=np.nan_to_num(pseudo))
    z_lo, z_hi = skew_quantiles(skew, z)
    n_star = effective_sample_size(est, sd * sd, n_k, theta=theta)
    lo, hi = beta_interval(est, n_star, z_lower=z_lo, z_upper=z_hi)
    return clamp_interval(lo, hi, UNIT_RANGE)
