"""The stratified (combined) ratio estimator and its Taylor variance.

With records drawn within strata ``h`` — ``n_h`` draws out of ``N_h`` records,
each draw weighted by ``w_h = N_h / n_h`` — every estimator of
:mod:`ereval.estimators` is a ratio of estimated totals ``R = B_hat / A_hat``
with ``A_hat = sum_s a_s`` and ``B_hat = sum_s b_s`` over the weighted rows
``a_s = w_h A_s``, ``b_s = w_h B_s`` (Cochran 1977, §6.11, the combined ratio
estimate). Its first-order bias correction and variance are those of the
unstratified estimator (:mod:`ereval.estimators._ratio`; Binette et al. 2022,
eqs. 7-8) with the sample covariances taken within strata::

    e_s   = b_s - R a_s
    V_hat = sum_h theta_h n_h / (n_h - 1) sum_{s in h} (e_s - ebar_h)^2 / A_hat^2
    E_hat = R + sum_h theta_h n_h / (n_h - 1) sum_{s in h} (a_s - abar_h)(e_s - ebar_h) / A_hat^2

``theta_h`` is the stratum's finite-population correction: 1 for draws with
replacement, ``1 - n_h / N_h`` for draws without (exact for the variance of an
estimated total, :func:`fpc_fraction`). With one stratum and ``theta = 1`` these
are exactly eqs. 7-8 (the weights ``w_h`` cancel in the ratio). A stratum with
a single draw contributes no variance term (with replacement it cannot; the
design requires two draws per stratum, see :mod:`ereval.estimators._strata`).

The linearised per-draw terms the intervals use (Kish's effective number of
draws, the skewness) are taken within strata as well: :func:`centred_rows`
shifts each stratum's rows to the overall mean, so that the pooled residuals
``b~_s - R a~_s`` are the within-stratum ones.

Reference: W. G. Cochran (1977), Sampling Techniques, 3rd ed., §§5.1-5.5 and
6.11 (stratified and combined ratio estimates).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._errors import InputError

__all__ = [
    "centred_rows",
    "fpc_fraction",
    "stratified_ratio_of_means",
    "stratum_counts",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def fpc_fraction(n: npt.ArrayLike, population: npt.ArrayLike) -> FloatArray:
    """The finite-population correction ``1 - n / N`` of ``n`` draws without replacement.

    ``E[N^2 (1 - n/N) s^2 / n] = Var(N ybar)`` exactly under simple random
    sampling without replacement (Cochran 1977, Theorem 2.4), so a census
    (``n = N``) has variance 0.

    >>> fpc_fraction([10, 4], [100, 4]).tolist()
    [0.9, 0.0]
    """
    n_arr = np.asarray(n, dtype=np.float64)
    big = np.asarray(population, dtype=np.float64)
    out: FloatArray = np.clip(1.0 - n_arr / big, 0.0, 1.0)
    return out


def stratum_counts(strata: npt.ArrayLike, n_strata: int) -> IntArray:
    """The number of rows of each stratum code ``0..n_strata-1``."""
    codes = np.asarray(strata, dtype=np.int64)
    return np.bincount(codes, minlength=n_strata).astype(np.int64)


def _check(b: FloatArray, a: FloatArray, codes: IntArray, theta: FloatArray, k: int) -> None:
    if a.shape != b.shape:
        raise InputError(
            f"numerator and denominator must have the same shape; received {b.shape} and {a.shape}"
        )
    if codes.ndim != 1 or codes.shape[0] != a.shape[-1]:
        raise InputError(
            f"'strata' must give one stratum per draw ({a.shape[-1]}); received shape {codes.shape}"
        )
    if codes.size and (codes.min() < 0 or codes.max() >= k):
        raise InputError(f"'strata' codes must lie in 0..{k - 1}")
    if theta.shape != (k,):
        raise InputError(f"'theta' must give one value per stratum ({k}); received {theta.shape}")


def _within(x: FloatArray, codes: IntArray, counts: IntArray) -> FloatArray:
    """``x`` minus its stratum's mean, over the last axis."""
    k = counts.shape[0]
    onehot = np.zeros((x.shape[-1], k))
    onehot[np.arange(x.shape[-1]), codes] = 1.0
    safe = np.where(counts > 0, counts, 1).astype(np.float64)
    means = (x @ onehot) / safe
    out: FloatArray = x - means[..., codes]
    return out


def stratified_ratio_of_means(
    numerator: npt.ArrayLike,
    denominator: npt.ArrayLike,
    strata: npt.ArrayLike,
    *,
    theta: npt.ArrayLike,
) -> tuple[FloatArray, FloatArray]:
    """Bias-corrected combined ratio estimates and their standard deviations.

    Parameters
    ----------
    numerator, denominator : array_like, shape (..., n)
        The weighted rows ``b_s = w_h B_s`` and ``a_s = w_h A_s`` (``w_h = N_h / n_h``
        times the unit's inverse sampling probability).
    strata : array_like of int, shape (n,)
        Stratum code ``0..K-1`` of each draw (the same for every leading index).
    theta : array_like, shape (K,)
        Finite-population correction of each stratum (1 with replacement).

    Returns
    -------
    estimate, std : ndarray, shape (...)
        NaN where ``A_hat = 0``.

    Notes
    -----
    See the module docstring; with one stratum this equals
    :func:`ereval.estimators.ratio_of_means`.

    Examples
    --------
    >>> est, std = stratified_ratio_of_means([1.0, 0.0, 0.0], [3.0, 1.0, 0.0], [0, 0, 0],
    ...                                      theta=[1.0])
    >>> float(est), float(std)
    (0.296875, 0.10825317547305482)
    """
    b = np.asarray(numerator, dtype=np.float64)
    a = np.asarray(denominator, dtype=np.float64)
    codes = np.asarray(strata, dtype=np.int64)
    th = np.asarray(theta, dtype=np.float64).reshape(-1)
    k = th.shape[0]
    _check(b, a, codes, th, k)
    counts = stratum_counts(codes, k)
    if a.shape[-1] < 2:
        raise InputError(
            "the ratio estimator's bias correction and variance need at least 2 draws; "
            f"received {a.shape[-1]}"
        )
    a_tot = a.sum(axis=-1)
    b_tot = b.sum(axis=-1)
    defined = a_tot != 0
    safe_a = np.where(defined, a_tot, 1.0)
    r = b_tot / safe_a
    e = b - r[..., None] * a
    e_c = _within(e, codes, counts)
    a_c = _within(a, codes, counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(counts > 1, th * counts / np.maximum(counts - 1, 1), 0.0)
    per_draw = factor[codes]
    var = (per_draw * e_c * e_c).sum(axis=-1) / safe_a**2
    cov = (per_draw * a_c * e_c).sum(axis=-1) / safe_a**2
    est = r + cov
    std = np.sqrt(np.maximum(var, 0.0))
    nan = np.float64(np.nan)
    return np.where(defined, est, nan), np.where(defined, std, nan)


def centred_rows(
    numerator: npt.ArrayLike, denominator: npt.ArrayLike, strata: npt.ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Rows with each stratum's mean replaced by the overall mean, over the last axis.

    ``b~_s = b_s - bbar_h + bbar`` (likewise ``a``): the totals and the ratio are
    unchanged and the pooled residuals ``b~_s - R a~_s`` are the within-stratum
    residuals, which is what the skewness of a stratified estimate is made of.

    >>> b, a = centred_rows([1.0, 3.0, 10.0, 12.0], [2.0, 2.0, 20.0, 20.0], [0, 0, 1, 1])
    >>> b.tolist(), a.tolist()
    ([5.5, 7.5, 5.5, 7.5], [11.0, 11.0, 11.0, 11.0])
    """
    b = np.asarray(numerator, dtype=np.float64)
    a = np.asarray(denominator, dtype=np.float64)
    codes = np.asarray(strata, dtype=np.int64)
    k = int(codes.max()) + 1 if codes.size else 1
    counts = stratum_counts(codes, k)
    b_out = _within(b, codes, counts) + b.mean(axis=-1, keepdims=True)
    a_out = _within(a, codes, counts) + a.mean(axis=-1, keepdims=True)
    return b_out, a_out
