"""The bias-corrected ratio-of-means estimator and its Taylor variance.

Every estimator of :mod:`ereval.estimators` estimates a ratio of population
means ``E = mean_T(B) / mean_T(A)`` from ``n`` sampled units (clusters or
blocks) with values ``(A_s, B_s)``. With ``Abar`` and ``Bbar`` the sample means
and ``R = Bbar / Abar``, the first-order bias-corrected estimator and its
variance are (Binette et al. 2022, eqs. 7-8; Binette et al. 2024, eqs. 19-20)::

    E_hat = R * {1 + theta / (n (n-1)) * sum_s (A_s/Abar) (B_s/Bbar - A_s/Abar)}
          = R + theta / (n (n-1) Abar^2) * sum_s A_s (B_s - R A_s)

    V_hat = R^2 * theta / (n (n-1)) * sum_s (A_s/Abar - B_s/Bbar)^2
          = theta / (n (n-1) Abar^2) * sum_s (B_s - R A_s)^2

The second form of each line is algebraically the same and stays defined when
``Bbar = 0`` (the estimate is then 0 with variance 0). ``theta`` is the
finite-population correction ``1 - (n-1)/(T-1)`` for ``n`` units drawn without
replacement from ``T`` (Cochran 1977), or 1 for sampling with replacement.
Confidence intervals are normal: ``E_hat +- z_{(1+level)/2} sqrt(V_hat)``.

The core :func:`ratio_of_means` works on the last axis of 2-D arrays too, so a
simulation can estimate thousands of repeated samples at once.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_in_range, check_int

__all__ = [
    "Estimate",
    "EstimationWarning",
    "confidence_interval",
    "fpc_theta",
    "normal_quantile",
    "ratio_estimate",
    "ratio_of_means",
]

FloatArray = npt.NDArray[np.float64]


class EstimationWarning(UserWarning):
    """An estimate could not be formed from the sample (e.g. an empty denominator)."""


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its estimated standard deviation and confidence interval.

    Attributes
    ----------
    estimate : float
        The point estimate (NaN when the sample cannot define it; a warning says why).
    std : float
        Estimated standard deviation (NaN when no variance can be estimated, e.g.
        for a single sampled block or a naive estimate; ``note`` says why).
    ci_low, ci_high : float
        Normal confidence interval at ``level``.
    n : int
        Number of sampled units (rows; repeated draws count separately); for a
        naive estimate, the number of distinct sampled clusters.
    design : str
        The sampling design (``"record"``, ``"cluster"``, ``"block"``,
        ``"single_block"``).
    level : float
        Confidence level of the interval.
    metric : str
        Canonical name of the estimated quantity (e.g. ``"pairwise_precision"``).
    form : str
        Which representation the estimator uses (``"block"``, ``"cluster"``,
        ``"record"``, ``"ratio"``, ``"naive"``).
    note : str
        Empty, or why ``std`` / ``estimate`` is missing.
    """

    estimate: float
    std: float
    ci_low: float
    ci_high: float
    n: int
    design: str
    level: float
    metric: str = ""
    form: str = ""
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (floats may be NaN)."""
        return asdict(self)


def normal_quantile(level: float) -> float:
    """``z`` such that ``P(|Z| <= z) = level`` for a standard normal ``Z``."""
    lvl = check_in_range("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    return float(NormalDist().inv_cdf(0.5 + lvl / 2.0))


def confidence_interval(estimate: float, std: float, level: float) -> tuple[float, float]:
    """Normal interval ``estimate +- z std``; NaN bounds when either input is NaN."""
    z = normal_quantile(level)
    if math.isnan(estimate) or math.isnan(std):
        return math.nan, math.nan
    return estimate - z * std, estimate + z * std


def fpc_theta(n: int, population_size: int | None) -> float:
    """The finite-population correction ``theta = 1 - (n-1)/(T-1)`` (Binette 2022, eq. 7).

    Parameters
    ----------
    n : int
        Number of units drawn without replacement.
    population_size : int or None
        ``T``, the number of units in the population; ``None`` gives ``theta = 1``
        (sampling with replacement, or a population much larger than the sample).

    Examples
    --------
    >>> fpc_theta(10, 101)
    0.91
    """
    n = check_int("n", n, minimum=1)
    if population_size is None:
        return 1.0
    t = check_int("population_size", population_size, minimum=2)
    if t < n:
        raise InputError(
            f"'population_size' must be at least the number of units drawn without replacement "
            f"({n}); received {t}"
        )
    return 1.0 - (n - 1) / (t - 1)


def ratio_of_means(
    numerator: npt.ArrayLike,
    denominator: npt.ArrayLike,
    *,
    theta: float | FloatArray = 1.0,
) -> tuple[FloatArray, FloatArray]:
    """Bias-corrected ratio estimates and their standard deviations, over the last axis.

    Parameters
    ----------
    numerator, denominator : array_like, shape (..., n)
        ``B_s`` and ``A_s`` for the ``n`` sampled units (``n >= 2``).
    theta : float or array, default 1.0
        Finite-population correction (broadcast against the leading axes).

    Returns
    -------
    estimate, std : ndarray, shape (...)
        NaN where ``mean(A) = 0`` (the ratio is undefined).

    Notes
    -----
    ``E_hat = R + theta sum_s A_s (B_s - R A_s) / (n (n-1) Abar^2)`` and
    ``V_hat = theta sum_s (B_s - R A_s)^2 / (n (n-1) Abar^2)`` with
    ``R = Bbar / Abar`` (Binette et al. 2022, eqs. 7-8).

    Examples
    --------
    >>> est, std = ratio_of_means([1.0, 0.0, 0.0], [3.0, 1.0, 0.0])
    >>> float(est), float(std)
    (0.296875, 0.10825317547305482)
    """
    b = np.asarray(numerator, dtype=np.float64)
    a = np.asarray(denominator, dtype=np.float64)
    if a.shape != b.shape:
        raise InputError(
            f"numerator and denominator must have the same shape; received {b.shape} and {a.shape}"
        )
    n = a.shape[-1]
    if n < 2:
        raise InputError(
            f"the ratio estimator's bias correction and variance need at least 2 sampled units; "
            f"received {n}"
        )
    a_bar = a.mean(axis=-1)
    b_bar = b.mean(axis=-1)
    defined = a_bar != 0
    safe_a = np.where(defined, a_bar, 1.0)[..., None]
    nonzero_b = b_bar != 0
    safe_b = np.where(nonzero_b, b_bar, 1.0)[..., None]
    r = b_bar / safe_a[..., 0]
    th = np.asarray(theta, dtype=np.float64)
    denom = n * (n - 1)
    # eqs. 7-8 as printed (relative deviations), when Bbar != 0
    rel_a = a / safe_a
    rel_b = b / safe_b
    est_rel = r * (1.0 + th * (rel_a * (rel_b - rel_a)).sum(axis=-1) / denom)
    std_rel = np.abs(r) * np.sqrt(th * ((rel_a - rel_b) ** 2).sum(axis=-1) / denom)
    # the same in residual form, defined when Bbar = 0
    resid = b - r[..., None] * a
    scale = th / (denom * safe_a[..., 0] ** 2)
    est_res = r + scale * (a * resid).sum(axis=-1)
    std_res = np.sqrt(np.maximum(scale * (resid * resid).sum(axis=-1), 0.0))
    est = np.where(nonzero_b, est_rel, est_res)
    std = np.where(nonzero_b, std_rel, std_res)
    nan = np.float64(np.nan)
    return np.where(defined, est, nan), np.where(defined, std, nan)


def ratio_estimate(
    numerator: npt.ArrayLike,
    denominator: npt.ArrayLike,
    *,
    theta: float = 1.0,
    level: float = 0.95,
    design: str = "",
    metric: str = "",
    form: str = "ratio",
    offset: float = 0.0,
    scale: float = 1.0,
) -> Estimate:
    """Estimate ``offset + scale * mean(B) / mean(A)`` from sampled units.

    Parameters
    ----------
    numerator, denominator : array_like, shape (n,)
        ``B_s`` and ``A_s`` for each sampled unit, already multiplied by the
        unit's inverse sampling probability. Repeated draws are separate rows.
    theta : float, default 1.0
        Finite-population correction (see :func:`fpc_theta`).
    level : float, default 0.95
        Confidence level of the normal interval.
    design, metric, form : str
        Labels stored in the result.
    offset, scale : float, default 0.0 and 1.0
        An exact affine map applied to the ratio (e.g. ``1 - ratio`` for
        homogeneity); the standard deviation is multiplied by ``|scale|``.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> e = ratio_estimate([1.0, 0.0, 0.0], [1.5, 0.5, 1.0])
    >>> round(e.estimate, 12), round(e.std, 12), e.n
    (0.388888888889, 0.254587538609, 3)
    """
    z = normal_quantile(level)
    b = np.asarray(numerator, dtype=np.float64)
    a = np.asarray(denominator, dtype=np.float64)
    if b.ndim != 1:
        raise InputError(f"'numerator' must be 1-dimensional; received shape {b.shape}")
    est_arr, std_arr = ratio_of_means(b, a, theta=theta)
    est = offset + scale * float(est_arr)
    std = abs(scale) * float(std_arr)
    if math.isnan(est):
        return Estimate(
            math.nan,
            math.nan,
            math.nan,
            math.nan,
            int(a.shape[0]),
            design,
            level,
            metric,
            form,
            "undefined: the sampled denominators are all zero",
        )
    return Estimate(
        est, std, est - z * std, est + z * std, int(a.shape[0]), design, level, metric, form
    )
