"""Unequal-probability draws without replacement: inclusion probabilities, a sampler, HT variance.

When units (clusters, blocks, predicted clusters) are drawn *without*
replacement with unequal probabilities, ``p_u`` of a with-replacement draw is
no longer the right weight: what matters is each unit's first-order
*inclusion probability* ``pi_u = P(u in s)`` (Binette et al. 2022, Remark 3;
Horvitz and Thompson 1952). Three pieces:

Inclusion probabilities proportional to size
    ``pi_u = min(1, c p_u)`` with ``c`` such that ``sum_u pi_u = n``
    (:func:`inclusion_probabilities`): the units whose ``n p_u / sum p``
    reaches 1 are taken with certainty and the others share the remaining
    draws (Tillé 2006, Algorithm 2.1).
The sampler
    Randomised systematic sampling (Goodman and Kish 1950; Hartley and Rao
    1962; :func:`systematic_sample`): the units are put in a uniformly random
    order, laid end to end as intervals of lengths ``pi_u`` on ``[0, n)``, and
    the units whose interval holds one of the points ``U, U + 1, ..., U + n - 1``
    (``U`` uniform on ``[0, 1)``) form the sample. As each interval has length
    ``pi_u <= 1`` it holds one point with probability exactly ``pi_u``,
    whatever the order: the design realises the ``pi_u`` exactly, draws
    exactly ``n`` distinct units, and runs in ``O(T)`` per sample.
The estimator and its variance
    Every estimator of :mod:`ereval.estimators` is a ratio of totals
    ``R = B / A``. Its Horvitz-Thompson form weighs each sampled unit by
    ``1 / pi_u``: ``R_hat = sum_s B_s / pi_s / sum_s A_s / pi_s`` (each unit
    once), the ratio of two unbiased Horvitz-Thompson totals. Its variance is
    Hájek's (1964) approximation for high-entropy fixed-size designs (which
    randomised systematic sampling is, Hartley and Rao 1962), applied to the
    linearised residuals ``z_s = (B_s - R_hat A_s) / pi_s`` (Särndal, Swensson
    and Wretman 1992, §5.6 and eq. 8.9.21; Berger 2004)::

        c_s   = (1 - pi_s) n / (n - 1)
        G     = sum_s c_s z_s / sum_s c_s
        V_hat = sum_s c_s (z_s - G)^2 / A_hat^2,   A_hat = sum_s A_s / pi_s

    A unit taken with certainty (``pi_s = 1``) adds no variance, so a census
    has variance 0; with equal ``pi_s = n/T`` it is the simple random sample's
    ``(1 - n/T)`` times the with-replacement variance. ``fpc=False`` uses the
    with-replacement approximation (``c_s = n / (n - 1)``, ``G = 0``; Särndal
    et al. 1992, §4.5), which is conservative.

The estimators run this through the common ratio estimator
(:func:`ereval.estimators._ratio.ratio_of_means`) with the rows ``A_s / pi_s``,
``B_s / pi_s`` (one per unit) and ``theta`` set to :func:`hajek_theta`, the
ratio of Hájek's variance to the with-replacement one: the estimate, its
first-order bias correction (scaled by the same ``theta``), the variance and
the intervals all come from that one path.

References: D. G. Horvitz and D. J. Thompson (1952), JASA 47, 663-685;
L. A. Goodman and L. Kish (1950), JASA 45, 350-372; H. O. Hartley and
J. N. K. Rao (1962), Ann. Math. Statist. 33, 350-374; J. Hájek (1964),
Ann. Math. Statist. 35, 1491-1523; C.-E. Särndal, B. Swensson and J. Wretman
(1992), Model Assisted Survey Sampling; Y. G. Berger (2004), J. Statist.
Plann. Inference 120, 149-166; Y. Tillé (2006), Sampling Algorithms.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_int, check_rng

__all__ = [
    "cluster_inclusion",
    "hajek_theta",
    "inclusion_probabilities",
    "inclusion_theta",
    "poisson_records",
    "poisson_theta",
    "systematic_pick",
    "systematic_sample",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Inclusion probabilities within this of 1 count as certainties, and their sum
#: within this of a whole number counts as that number.
_TOL = 1e-9


def inclusion_probabilities(p: npt.ArrayLike, n: int) -> FloatArray:
    """``pi_u = min(1, c p_u)`` with ``sum_u pi_u = n``: inclusion probabilities ∝ ``p_u``.

    Parameters
    ----------
    p : array_like, shape (T,)
        Size measures ``p_u > 0`` (up to a constant).
    n : int
        Number of distinct units to draw, ``1 <= n <= T``.

    Returns
    -------
    ndarray, shape (T,)
        The units whose share reaches 1 get exactly 1; the others
        ``(n - k) p_u / sum_{rest} p`` for the ``k`` certainties (Tillé 2006,
        Algorithm 2.1).

    Examples
    --------
    >>> inclusion_probabilities([1, 1, 2, 8], 2).tolist()
    [0.25, 0.25, 0.5, 1.0]
    """
    values = np.asarray(p, dtype=np.float64)
    if values.ndim != 1 or values.shape[0] == 0:
        raise InputError(
            f"'p' must be a non-empty 1-dimensional array; received shape {values.shape}"
        )
    if (~np.isfinite(values) | (values <= 0)).any():
        raise InputError("'p' must be finite and > 0 for every unit")
    n = check_int("n", n, minimum=1)
    t = int(values.shape[0])
    if n > t:
        raise InputError(f"cannot draw {n} units without replacement from a population of {t}")
    certain = np.zeros(t, dtype=bool)
    while True:
        rest = ~certain
        pi = np.ones(t)
        pi[rest] = (n - int(certain.sum())) * values[rest] / values[rest].sum()
        over = rest & (pi >= 1.0 - _TOL)
        if not over.any():
            out: FloatArray = np.minimum(pi, 1.0)
            return out
        certain |= over


def systematic_sample(
    pi: npt.ArrayLike, *, seed: object = None, repeats: int | None = None
) -> IntArray:
    """Randomised systematic sampling: ``n = sum pi`` distinct units, unit ``u`` with probability
    exactly ``pi_u``.

    Parameters
    ----------
    pi : array_like, shape (T,)
        Inclusion probabilities in ``(0, 1]`` summing to a whole number ``n``
        (:func:`inclusion_probabilities`).
    seed : None, int or numpy.random.Generator
        Source of randomness.
    repeats : int, optional
        Draw this many independent samples at once.

    Returns
    -------
    ndarray of int64, shape (n,) or (repeats, n)
        The drawn units' positions, increasing (each row for ``repeats``).

    Notes
    -----
    A uniformly random order of the units, the cumulative sums ``S_k`` of
    their ``pi`` in that order, and one uniform ``U`` on ``[0, 1)``: the unit
    ending at ``S_k`` is drawn when ``[S_{k-1}, S_k)`` holds one of
    ``U + j``, ``j = 0..n-1`` (Goodman and Kish 1950; Hartley and Rao 1962).

    Examples
    --------
    >>> systematic_sample([0.5, 0.5, 1.0], seed=0).shape
    (2,)
    """
    values = np.asarray(pi, dtype=np.float64)
    if values.ndim != 1 or values.shape[0] == 0:
        raise InputError(
            f"'pi' must be a non-empty 1-dimensional array; received shape {values.shape}"
        )
    if (~np.isfinite(values) | (values <= 0) | (values > 1.0 + _TOL)).any():
        raise InputError("inclusion probabilities must lie in (0, 1]")
    total = float(values.sum())
    n = round(total)
    if abs(total - n) > 1e-6 * max(1.0, total) or n < 1:
        raise InputError(
            f"inclusion probabilities must sum to a whole number of draws; they sum to {total:.6g}"
        )
    rng = check_rng(seed)
    rows = 1 if repeats is None else check_int("repeats", repeats, minimum=1)
    t = values.shape[0]
    order = np.argsort(rng.random((rows, t)), axis=1).astype(np.int64)
    u = rng.random(rows)
    drawn = systematic_pick(values * (n / total), order, u)
    return drawn[0] if repeats is None else drawn


def systematic_pick(pi: npt.ArrayLike, order: npt.ArrayLike, u: npt.ArrayLike) -> IntArray:
    """The systematic sample of each row: the units, in the row's ``order``, whose interval of
    length ``pi`` holds a point ``u + j``.

    Parameters
    ----------
    pi : array_like, shape (T,)
        Inclusion probabilities summing to ``n``.
    order : array_like of int, shape (rows, T)
        A permutation of the units per row.
    u : array_like, shape (rows,)
        The start point of each row, in ``[0, 1)``.

    Returns
    -------
    ndarray of int64, shape (rows, n)
        The drawn units of each row, increasing.

    Examples
    --------
    >>> systematic_pick([0.5, 0.5, 1.0], [[0, 1, 2]], [0.25]).tolist()
    [[0, 2]]
    """
    values = np.asarray(pi, dtype=np.float64)
    perm = np.asarray(order, dtype=np.int64)
    start = np.asarray(u, dtype=np.float64)
    rows, t = perm.shape
    n = round(float(values.sum()))
    ends = np.cumsum(values[perm], axis=1)
    ends[:, -1] = n  # the last interval ends at n exactly, whatever the rounding
    points = start[:, None] + np.arange(n)[None, :]
    # point u + j falls in the interval [S_{k-1}, S_k) of the first k with S_k > u + j
    which = np.stack([np.searchsorted(ends[r], points[r], side="right") for r in range(rows)])
    picked = np.take_along_axis(perm, np.minimum(which, t - 1), axis=1)
    out: IntArray = np.sort(picked, axis=1).astype(np.int64)
    return out


def hajek_theta(resid: npt.ArrayLike, pi: npt.ArrayLike) -> FloatArray:
    """Hájek's variance over the with-replacement one, for linearised residuals, per row.

    Parameters
    ----------
    resid : array_like, shape (..., n)
        ``z_s = (B_s - R A_s) / pi_s`` of the sampled units.
    pi : array_like, shape (..., n)
        Their inclusion probabilities.

    Returns
    -------
    ndarray, shape (...)
        ``sum_s (1 - pi_s) (z_s - G)^2 / sum_s z_s^2`` with
        ``G = sum_s (1 - pi_s) z_s / sum_s (1 - pi_s)``: in ``[0, 1]``; 0 for
        a census, ``1 - n/T`` for equal ``pi_s = n/T`` (residuals sum to 0).
        1 where every residual is 0 (the variance is 0 either way).

    Examples
    --------
    >>> float(hajek_theta([1.0, -1.0], [0.5, 0.5]))
    0.5
    >>> float(hajek_theta([1.0, -1.0], [1.0, 1.0]))
    0.0
    """
    z = np.asarray(resid, dtype=np.float64)
    p = np.broadcast_to(np.asarray(pi, dtype=np.float64), z.shape)
    c = np.clip(1.0 - p, 0.0, 1.0)
    c_sum = c.sum(axis=-1)
    safe = np.where(c_sum > 0, c_sum, 1.0)
    g = (c * z).sum(axis=-1) / safe
    num = (c * (z - g[..., None]) ** 2).sum(axis=-1)
    # what centring leaves of sum c z^2 at rounding level is 0: e.g. the uncertain units all
    # have the same pi and z (a total the design fixes), whose variance is exactly 0
    num = np.where(num <= 1e-12 * (c * z * z).sum(axis=-1), 0.0, num)
    den = (z * z).sum(axis=-1)
    out: FloatArray = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
    return np.clip(out, 0.0, 1.0)


def poisson_theta(resid: npt.ArrayLike, pi: npt.ArrayLike) -> FloatArray:
    """The Poisson design's variance over the with-replacement one, per row.

    Units drawn independently with probabilities ``pi_s`` (Poisson sampling)
    have the unbiased variance estimator ``sum_s (1 - pi_s) z_s^2`` for the
    Horvitz-Thompson total of ``z`` (Särndal et al. 1992, eq. 3.5.6); over the
    with-replacement estimate ``n/(n-1) sum_s z_s^2`` of ``n`` rows that is
    ``(n-1)/n sum_s (1 - pi_s) z_s^2 / sum_s z_s^2``. Rows of units not drawn
    may be present with ``z_s = 0`` (they count in ``n``, as in the
    with-replacement estimate they scale).

    Examples
    --------
    >>> float(poisson_theta([1.0, -1.0], [0.5, 0.5]))
    0.25
    """
    z = np.asarray(resid, dtype=np.float64)
    p = np.broadcast_to(np.asarray(pi, dtype=np.float64), z.shape)
    n = z.shape[-1]
    num = (np.clip(1.0 - p, 0.0, 1.0) * z * z).sum(axis=-1)
    den = (z * z).sum(axis=-1)
    scale = (n - 1) / n if n > 1 else 1.0
    out: FloatArray = np.where(den > 0, scale * num / np.where(den > 0, den, 1.0), 1.0)
    return np.clip(out, 0.0, 1.0)


def inclusion_theta(
    numerator: npt.ArrayLike,
    denominator: npt.ArrayLike,
    pi: npt.ArrayLike,
    *,
    poisson: bool = False,
) -> FloatArray:
    """:func:`hajek_theta` (or, for independent draws, :func:`poisson_theta`) of a ratio's
    rows ``b_s = B_s / pi_s``, ``a_s = A_s / pi_s``, per row.

    The residuals are ``z_s = b_s - R a_s`` with ``R = sum b / sum a`` (NaN-free:
    ``R = 0`` where ``sum a = 0``, where the estimate is undefined anyway).

    Examples
    --------
    >>> float(inclusion_theta([1.0, 0.0], [1.0, 1.0], [0.5, 0.5]))
    0.5
    """
    b = np.asarray(numerator, dtype=np.float64)
    a = np.asarray(denominator, dtype=np.float64)
    a_sum = a.sum(axis=-1)
    r = np.where(a_sum != 0, b.sum(axis=-1) / np.where(a_sum != 0, a_sum, 1.0), 0.0)
    resid = b - r[..., None] * a
    return poisson_theta(resid, pi) if poisson else hajek_theta(resid, pi)


def poisson_records(
    q: npt.ArrayLike, n: int, *, seed: object = None
) -> tuple[FloatArray, IntArray]:
    """Poisson sampling of records with inclusion probabilities ∝ ``q`` and expected size ``n``.

    Returns ``pi_r = min(1, c q_r)`` (:func:`inclusion_probabilities`) and the
    positions of the records drawn, each independently with probability
    ``pi_r``. A true cluster ``c`` is then in the sample with probability
    ``pi_c = 1 - prod_{r in c} (1 - pi_r)`` (:func:`cluster_inclusion`), and
    clusters are drawn independently of each other.

    Examples
    --------
    >>> pi, drawn = poisson_records([1.0, 1.0, 2.0], 2, seed=0)
    >>> pi.tolist()
    [0.5, 0.5, 1.0]
    """
    pi = inclusion_probabilities(q, n)
    rng = check_rng(seed)
    drawn: IntArray = np.flatnonzero(rng.random(pi.shape[0]) < pi).astype(np.int64)
    return pi, drawn


def cluster_inclusion(record_pi: npt.ArrayLike, codes: npt.ArrayLike, k: int) -> FloatArray:
    """``pi_c = 1 - prod_{r in c} (1 - pi_r)`` of each cluster code ``0..k-1``.

    >>> cluster_inclusion([0.5, 0.5, 0.25], [0, 0, 1], 2).tolist()
    [0.75, 0.25]
    """
    pi = np.asarray(record_pi, dtype=np.float64)
    c = np.asarray(codes, dtype=np.int64)
    miss = np.ones(k)
    np.multiply.at(miss, c, 1.0 - pi)
    out: FloatArray = 1.0 - miss
    return out
