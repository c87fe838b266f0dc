"""The skewness of a ratio estimator, and the normal quantiles that widen an interval for it.

A ratio estimate ``E_hat ~ R + mean_s u_s`` is, to first order, a mean of the
linearised per-draw terms ``u_s = (B_s - R A_s) / Abar`` (``R = Bbar / Abar``;
:mod:`ereval.estimators._ratio`). When a few draws carry large errors — a wrong
merge of two large families in pairwise precision, a big entity split in half —
these terms are skewed, and so is the studentized estimate
``T = (E_hat - E) / sigma_hat``: a sample that happened to miss the rare large
errors has an estimate on the good side *and* a small standard error, so a
symmetric interval misses the truth on the long side far more often than
``(1 - level) / 2``.

The skewness of the estimate is estimated from the terms themselves::

    a = sum_s u_s^3 / (sum_s u_s^2 + P)^(3/2)

(``a = gamma / sqrt(n)`` for ``n`` independent draws of skewness ``gamma``;
``|a| <= 1``). ``P`` puts the pseudo-unit of :mod:`ereval.estimators._intervals`
into the denominator, so that a sample showing one or two errors, whose
variance is mostly the pseudo-unit's, is not read as a heavily skewed one.

Hall's (1992) monotone transformation of ``T``,
``g(T) = T + a T^2 / 3 + a^2 T^3 / 27 + a / 6``, is standard normal to second
order; its inverse gives the quantiles of ``T``::

    tau(x) = (3 / a) ((1 + a (x - a / 6))^(1/3) - 1)
    z_lower = tau(z),  z_upper = -tau(-z)

so that ``[E_hat - z_lower sigma_hat, E_hat + z_upper sigma_hat]`` has each tail
at ``(1 - level) / 2``. :func:`skew_quantiles` uses them *one-sidedly*: the long
side gets ``min(max(z_lower, z), 2 z)`` and the short side keeps ``z``. Shortening
the short side, as the two-sided correction does, lost coverage in our
simulations (the samples with more large errors than expected then miss on the
short side), and the cap at ``2 z`` guards against the expansion's breakdown
at large ``|a|``, where ``tau`` stops growing with ``|a|``.

References: P. Hall (1992), On the removal of skewness by transformation,
JRSS B 54, 221-228; N. J. Johnson (1978), Modified t tests and confidence
intervals for asymmetrical populations, JASA 73, 536-544; X.-H. Zhou and
P. Dinh (2005), Nonparametric confidence intervals for the one- and two-sample
problems, Biostatistics 6, 187-200.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["SKEW_CAP", "ratio_skewness", "skew_quantiles"]

FloatArray = npt.NDArray[np.float64]

#: The widened quantile is at most this multiple of the normal one.
SKEW_CAP = 2.0


def ratio_skewness(
    numerator: npt.ArrayLike,
    denominator: npt.ArrayLike,
    *,
    scale: float = 1.0,
    pseudo: npt.ArrayLike = 0.0,
) -> FloatArray:
    """The skewness ``a`` of a ratio estimate from its linearised terms, over the last axis.

    Parameters
    ----------
    numerator, denominator : array_like, shape (..., n)
        ``B_s`` and ``A_s`` of the sampled units.
    scale : float, default 1.0
        The estimate is ``offset + scale * B / A``; a negative scale turns the
        skewness over (and its size enters ``pseudo``'s units).
    pseudo : float or array, default 0.0
        ``P``, added to ``sum_s u_s^2`` (in the units of ``scale * u``).

    Returns
    -------
    ndarray, shape (...)
        ``a`` in ``[-1, 1]``; 0 where every term is 0 (no error seen) or
        ``mean(A) = 0``.

    Examples
    --------
    One large error among nine small ones skews the estimate to the left:

    >>> round(float(ratio_skewness([1.0] * 9 + [0.0], [1.0] * 9 + [4.0])), 4)
    -0.8433
    """
    b = np.asarray(numerator, dtype=np.float64)
    a = np.asarray(denominator, dtype=np.float64)
    a_bar = a.mean(axis=-1, keepdims=True)
    safe = np.where(a_bar != 0, a_bar, 1.0)
    ratio = b.mean(axis=-1, keepdims=True) / safe
    u = scale * (b - ratio * a) / safe
    # terms at rounding level (every draw has the same ratio) are 0: no skew to see
    tiny = 1e-12 * abs(scale) * (np.abs(ratio) + 1.0)
    u = np.where((a_bar != 0) & (np.abs(u) > tiny), u, 0.0)
    s2 = (u * u).sum(axis=-1) + np.asarray(pseudo, dtype=np.float64)
    s3 = (u * u * u).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(s2 > 0, s3 / np.where(s2 > 0, s2, 1.0) ** 1.5, 0.0)
    return np.clip(np.nan_to_num(out, nan=0.0), -1.0, 1.0)


def _tau(x: float, a: FloatArray) -> FloatArray:
    """Hall's inverse transformation ``(3/a)((1 + a (x - a/6))^(1/3) - 1)``, ``x`` at ``a = 0``.

    Written as ``3 y / (c^2 + c + 1)`` with ``y = x - a/6`` and ``c = (1 + a y)^(1/3)``
    (``c^3 - 1 = (c - 1)(c^2 + c + 1)``), which has no cancellation at small ``a``.
    """
    y = x - a / 6.0
    c = np.cbrt(1.0 + a * y)
    out: FloatArray = 3.0 * y / (c * c + c + 1.0)
    return out


def skew_quantiles(skewness: npt.ArrayLike, z: float) -> tuple[FloatArray, FloatArray]:
    """The quantiles ``(z_lower, z_upper)`` of the module docstring, elementwise.

    ``z_lower`` multiplies the standard error below the estimate and ``z_upper``
    above it; each is ``z`` or more, at most ``2 z``, and only the side of the
    long tail (``a < 0``: below) is widened.

    Examples
    --------
    >>> lo, hi = skew_quantiles([-0.2, 0.0, 0.2], 1.959963984540054)
    >>> [round(float(x), 4) for x in lo], [round(float(x), 4) for x in hi]
    ([2.3391, 1.96, 1.96], [1.96, 1.96, 2.3391])
    """
    a = np.asarray(skewness, dtype=np.float64)
    cap = SKEW_CAP * z
    lower = np.clip(_tau(z, a), z, cap)
    upper = np.clip(-_tau(-z, a), z, cap)
    return lower, upper
