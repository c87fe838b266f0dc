"""Half-width of a ratio estimator's interval as a function of the number of draws.

A ratio estimator ``R̂ = sum_s B_s / sum_s A_s`` over ``n`` draws has the
linearised (delta-method) variance ``theta(n) sigma^2 / n``, where ``sigma^2`` is
the variance of one draw's linearised term ``(B - R A) / E[A]`` (Binette et al.
2022, §2.3 and App. A.2; Binette et al. 2024, §3.4) and ``theta(n)`` the
finite-population correction: 1 with replacement, ``1 - n/N`` for records drawn
without replacement (Binette et al. 2022, Lemma 1) and ``1 - (n-1)/(T-1)`` for
``T`` clusters or blocks drawn without replacement (eq. 7). A normal interval at
level ``1 - alpha`` then has half-width

``h(n) = z sigma sqrt(theta(n) / n)``, with ``z = Phi^{-1}(1 - alpha/2)``,

and the smallest ``n`` with ``h(n) <= h`` is ``n = ceil((z sigma / h)^2)`` with
replacement, ``ceil(n0 / (1 + n0/N))`` (records) or ``ceil(n0 T / (T - 1 + n0))``
(units) without, where ``n0 = (z sigma / h)^2``.

The *assured* half-width allows for the sampling error of the estimated
variance itself: with ``q`` the relative excess, at ``n_ref`` draws, of the
``assurance``-quantile of the estimated per-draw variance over its mean, the
estimated variance at ``n`` draws exceeds ``sigma^2 (1 + q sqrt(n_ref / n))``
with probability about ``1 - assurance`` (its relative spread shrinking as
``1/sqrt(n)``), so that ``h_a(n) = h(n) sqrt(1 + q sqrt(n_ref / n))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from .._errors import InputError

__all__ = [
    "PopulationKind",
    "assured_half_width",
    "expected_half_width",
    "fpc",
    "required_draws",
    "smallest_draws",
]

#: What a design draws without replacement: records (``1 - n/N``), clusters or
#: blocks (``1 - (n-1)/(T-1)``), or ``None`` for draws with replacement.
PopulationKind = Literal["records", "units"]

MIN_DRAWS = 2


def fpc(n: int, population: int | None, kind: PopulationKind | None) -> float:
    """The finite-population correction ``theta(n)`` (1 with replacement).

    Examples
    --------
    >>> fpc(10, 100, "records"), fpc(10, 100, "units"), fpc(10, None, None)
    (0.9, 0.9090909090909091, 1.0)
    """
    if population is None or kind is None:
        return 1.0
    if n >= population:
        return 0.0
    if kind == "records":
        return 1.0 - n / population
    return 1.0 - (n - 1) / (population - 1)


def expected_half_width(
    n: int,
    sigma: float,
    z: float,
    *,
    population: int | None = None,
    kind: PopulationKind | None = None,
) -> float:
    """``z sigma sqrt(theta(n) / n)``: the interval's half-width at ``n`` draws.

    Examples
    --------
    >>> round(expected_half_width(2401, 0.5, 1.959964), 6)
    0.02
    """
    return z * sigma * math.sqrt(fpc(n, population, kind) / n)


def assured_half_width(
    n: int,
    sigma: float,
    z: float,
    *,
    excess: float,
    reference_n: int,
    population: int | None = None,
    kind: PopulationKind | None = None,
) -> float:
    """``h(n) sqrt(1 + q sqrt(n_ref / n))`` (``q = excess``, clipped at 0).

    Examples
    --------
    >>> round(assured_half_width(100, 0.5, 2.0, excess=0.625, reference_n=400), 4)  # 0.1 * 1.5
    0.15
    """
    factor = 1.0 + max(excess, 0.0) * math.sqrt(reference_n / n)
    return expected_half_width(n, sigma, z, population=population, kind=kind) * math.sqrt(factor)


def smallest_draws(width: Callable[[int], float], target: float, *, limit: int | None) -> int:
    """The smallest ``n >= 2`` with ``width(n) <= target``, for a non-increasing ``width``.

    ``limit`` is the largest possible ``n`` (the population without replacement,
    where the width is 0). Doubling then bisection: ``O(log n)`` evaluations.

    Examples
    --------
    >>> smallest_draws(lambda n: 1 / n, 0.01, limit=None)
    100
    """
    if width(MIN_DRAWS) <= target:
        return MIN_DRAWS
    lo, hi = MIN_DRAWS, MIN_DRAWS * 2
    while width(hi) > target:
        if limit is not None and hi >= limit:
            return limit
        lo, hi = hi, hi * 2
        if limit is not None:
            hi = min(hi, limit)
        if hi > 10**12:
            raise InputError(f"the target half-width {target!r} needs more than 10^12 draws")
    while hi - lo > 1:  # width(lo) > target >= width(hi)
        mid = (lo + hi) // 2
        if width(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def required_draws(
    sigma: float,
    half_width: float,
    z: float,
    *,
    population: int | None = None,
    kind: PopulationKind | None = None,
) -> int:
    """``n = ceil((z sigma / h)^2)``, with the finite-population correction.

    The closed form is checked against :func:`expected_half_width` (so that
    rounding never leaves the target unmet at ``n`` or met at ``n - 1``); at
    least 2 draws, at most the population without replacement.

    Examples
    --------
    >>> required_draws(0.5, 0.02, 1.959964)
    2401
    >>> required_draws(0.5, 0.02, 1.959964, population=2401, kind="records")
    1201
    """
    if not (math.isfinite(sigma) and sigma >= 0):
        raise InputError(f"'sigma' must be finite and >= 0; received {sigma!r}")
    if not (math.isfinite(half_width) and half_width > 0):
        raise InputError(f"'half_width' must be > 0; received {half_width!r}")
    n0 = (z * sigma / half_width) ** 2
    if population is None or kind is None:
        n = math.ceil(n0)
    elif kind == "records":
        n = math.ceil(n0 / (1.0 + n0 / population))
    else:
        n = math.ceil(n0 * population / (population - 1 + n0)) if population > 1 else 1
    limit = population if kind is not None else None
    n = max(n, MIN_DRAWS)
    if limit is not None:
        n = min(n, max(limit, MIN_DRAWS))

    def width(k: int) -> float:
        return expected_half_width(k, sigma, z, population=population, kind=kind)

    while width(n) > half_width and (limit is None or n < limit):
        n += 1
    while n > MIN_DRAWS and width(n - 1) <= half_width:
        n -= 1
    return n
