"""The Clopper-Pearson (beta) interval with the design's effective sample size.

Korn and Graubard (1998) give a proportion ``q`` estimated from a complex
sample the exact binomial interval of ``n*`` Bernoulli draws, ``n*`` being the
design's effective sample size (:func:`ereval.estimators._intervals.effective_sample_size`).
With ``x = q n*`` "successes", each end is a quantile of a beta distribution::

    lower = Beta^{-1}(alpha_lower; x, n* - x + 1)      (0 when x = 0)
    upper = Beta^{-1}(1 - alpha_upper; x + 1, n* - x)  (1 when x = n*)

which for an integer ``x`` is the set of ``p`` at which neither binomial tail
probability of ``x`` falls below its ``alpha`` (Clopper and Pearson 1934). The
two tails are given separately here (``alpha = Phi(-z)`` on each side for the
usual interval), so that a skewed estimate can be given a longer side
(:mod:`ereval.estimators._skewness`).

Near 0 and 1 the interval is longer towards the edge than Wilson's score
interval: when a sample shows one large error among many draws (``x`` within
a unit or so of ``n*``), the truth can be much closer to the edge than the
estimate — a Poisson count of 1 has a 95% interval from 0.025 to 5.57 — and
Wilson's end on that side, which solves a normal equation, stops short of it.
This is the form of R's ``survey::svyciprop(method = "beta")`` and of the
National Center for Health Statistics' standards for proportions.

References: C. J. Clopper and E. S. Pearson (1934), The use of confidence or
fiducial limits illustrated in the case of the binomial, Biometrika 26;
E. L. Korn and B. I. Graubard (1998), Confidence intervals for proportions with
small expected number of positive counts estimated from survey data, Survey
Methodology 24, 193-201.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["beta_interval"]

FloatArray = npt.NDArray[np.float64]


def beta_interval(
    value: npt.ArrayLike,
    n_star: npt.ArrayLike,
    *,
    z_lower: npt.ArrayLike,
    z_upper: npt.ArrayLike,
) -> tuple[FloatArray, FloatArray]:
    """Clopper-Pearson ends of ``q = value`` from ``n*`` effective draws, elementwise.

    Parameters
    ----------
    value : array_like
        Estimates ``q`` in ``[0, 1]`` (clipped into it).
    n_star : array_like
        Effective sample sizes; ``inf`` gives the point ``q`` (a census), 0 the
        whole ``[0, 1]`` (the data say nothing).
    z_lower, z_upper : array_like
        Normal quantiles of the two tails: the lower end has tail probability
        ``Phi(-z_lower)``, the upper one ``Phi(-z_upper)`` (both
        ``z_{(1+level)/2}`` for the equal-tailed interval).

    Returns
    -------
    lower, upper : ndarray
        Widened where needed to hold ``q``; NaN where ``value`` or ``n_star`` is.

    Examples
    --------
    7 of 10, 95% (Clopper and Pearson's table gives 0.348 and 0.933):

    >>> lo, hi = beta_interval(0.7, 10.0, z_lower=1.959963984540054, z_upper=1.959963984540054)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.3475, 0.9333)
    """
    from scipy.special import betaincinv, ndtr

    q = np.clip(np.asarray(value, dtype=np.float64), 0.0, 1.0)
    ns = np.asarray(n_star, dtype=np.float64)
    finite = np.isfinite(ns) & (ns > 0)
    nf = np.where(finite, ns, 1.0)
    x = q * nf
    tail_lo = ndtr(-np.asarray(z_lower, dtype=np.float64))
    tail_hi = ndtr(-np.asarray(z_upper, dtype=np.float64))
    has_lo = finite & (x > 0)
    has_hi = finite & (nf - x > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = betaincinv(np.where(has_lo, x, 1.0), np.where(has_lo, nf - x + 1.0, 1.0), tail_lo)
        hi = betaincinv(
            np.where(has_hi, x + 1.0, 1.0), np.where(has_hi, nf - x, 1.0), 1.0 - tail_hi
        )
    census = np.isinf(ns)
    lower = np.where(census, q, np.where(has_lo, np.minimum(lo, q), 0.0))
    upper = np.where(census, q, np.where(has_hi, np.maximum(hi, q), 1.0))
    bad = np.isnan(q) | np.isnan(ns)
    nan = np.float64(np.nan)
    return np.where(bad, nan, lower), np.where(bad, nan, upper)
