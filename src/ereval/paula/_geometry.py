"""Exact geometric points g_j = ceil((1 + epsilon)^j) and the derived quantities of §4.2.

The paper's parameters are decimal numbers (epsilon = 0.03), so epsilon is taken
as the exact rational its decimal representation denotes: ``0.03`` means 3/100,
not the nearest binary double. Every rounding of a power of ``1 + epsilon``
(ceilings for g_j, floors for m, comparisons for l and L) is then decided exactly:
a fast decimal evaluation with a rigorous error margin, falling back to exact
integer arithmetic in the (practically never seen) cases the margin cannot decide.
Nothing here is of size N: the work is proportional to the number of points,
about log(N) / epsilon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .._validation import check_in_range, check_int

__all__ = ["Geometry", "exact_epsilon", "geometry"]

# Working precision (significant digits) of the decimal evaluations.
_PREC = 60
# Relative error of one decimal power or product is at most 10**(1 - _PREC); the
# margins below are far larger than the accumulated error of any realistic run.
_UNIT = Decimal(10) ** (3 - _PREC)


def exact_epsilon(epsilon: float) -> Fraction:
    """The exact rational denoted by the shortest decimal representation of ``epsilon``.

    Examples
    --------
    >>> from ereval.paula._geometry import exact_epsilon
    >>> exact_epsilon(0.03)
    Fraction(3, 100)
    """
    return Fraction(repr(float(epsilon)))


@dataclass(frozen=True)
class _Power:
    """Exact arithmetic on ``scale * base**j`` for a rational ``base > 1``."""

    base: Fraction

    def _decimal(self, j: int, scale: Fraction) -> tuple[Decimal, Decimal]:
        ctx = Context(prec=_PREC + 10)
        b = ctx.divide(Decimal(self.base.numerator), Decimal(self.base.denominator))
        s = ctx.divide(Decimal(scale.numerator), Decimal(scale.denominator))
        x = ctx.multiply(ctx.power(b, j), s)
        margin = abs(x) * _UNIT * (j.bit_length() + 8)
        return x, margin

    def floor(self, j: int, scale: Fraction = Fraction(1)) -> int:
        """``floor(scale * base**j)``, exactly."""
        x, margin = self._decimal(j, scale)
        lo = int((x - margin).to_integral_value(rounding=ROUND_FLOOR))
        hi = int((x + margin).to_integral_value(rounding=ROUND_FLOOR))
        if lo == hi:
            return lo
        exact = scale * self.base**j
        return exact.numerator // exact.denominator

    def ceil(self, j: int, scale: Fraction = Fraction(1)) -> int:
        """``ceil(scale * base**j)``, exactly."""
        x, margin = self._decimal(j, scale)
        lo = int((x - margin).to_integral_value(rounding=ROUND_CEILING))
        hi = int((x + margin).to_integral_value(rounding=ROUND_CEILING))
        if lo == hi:
            return lo
        exact = scale * self.base**j
        return -((-exact.numerator) // exact.denominator)

    def ceil_range(self, first: int, last: int) -> npt.NDArray[np.int64]:
        """``ceil(base**j)`` for ``j = first, ..., last`` (empty when ``last < first``)."""
        count = last - first + 1
        out = np.empty(max(count, 0), dtype=np.int64)
        if count <= 0:
            return out
        ctx = Context(prec=_PREC + 10)
        b = ctx.divide(Decimal(self.base.numerator), Decimal(self.base.denominator))
        x, _ = self._decimal(first, Fraction(1))
        for i in range(count):
            if i:
                x = ctx.multiply(x, b)
            # Error: that of the first power plus one rounding per product.
            margin = x * _UNIT * (first.bit_length() + 8 + i)
            lo = (x - margin).to_integral_value(rounding=ROUND_CEILING)
            hi = (x + margin).to_integral_value(rounding=ROUND_CEILING)
            out[i] = int(lo) if lo == hi else self.ceil(first + i)
        return out

    def smallest_power_at_least(self, target: int) -> int:
        """The smallest ``j >= 0`` with ``base**j >= target``, i.e. ``ceil(log_base target)``."""
        if target <= 1:
            return 0
        j = max(0, math.ceil(math.log(target) / math.log(float(self.base))))
        # For an integer target, base**j >= target  <=>  floor(base**j) >= target.
        while self.floor(j) < target:
            j += 1
        while j > 0 and self.floor(j - 1) >= target:
            j -= 1
        return j

    def largest_power_at_most(self, target: int) -> int:
        """The largest ``j >= 0`` with ``base**j <= target``, i.e. ``floor(log_base target)``."""
        # For an integer target, base**j <= target  <=>  ceil(base**j) <= target.
        j = max(0, math.floor(math.log(target) / math.log(float(self.base))))
        while j > 0 and self.ceil(j) > target:
            j -= 1
        while self.ceil(j + 1) <= target:
            j += 1
        return j


@dataclass(frozen=True)
class Geometry:
    """The quantities of §4.2 for a list of ``n`` items (no window parameter needed).

    Attributes
    ----------
    n, epsilon, r_tilde : the inputs.
    ell : int
        ``ceil(log_{1+epsilon} r_tilde)``.
    L : int
        ``floor(log_{1+epsilon} n)``.
    m : int
        ``floor(epsilon * (1+epsilon)**ell - 1)``.
    g_ell : int
        ``g_ell = ceil((1+epsilon)**ell)``.
    """

    n: int
    epsilon: float
    r_tilde: int
    ell: int
    L: int
    m: int
    g_ell: int
    power: _Power

    @property
    def gamma(self) -> float:
        """``gamma = 1 + epsilon + (2 + epsilon) / m`` (§4.2); ``inf`` when ``m < 1``."""
        if self.m < 1:
            return math.inf
        eps = exact_epsilon(self.epsilon)
        return float(1 + eps + (2 + eps) / self.m)

    def grid(self) -> npt.NDArray[np.int64]:
        """The points ``g_ell, ..., g_L`` (empty when ``L < ell``)."""
        return self.power.ceil_range(self.ell, self.L)


def geometry(n: int, epsilon: float, r_tilde: int) -> Geometry:
    """Validate ``n``, ``epsilon``, ``r_tilde`` and compute ell, L, m and g_ell exactly."""
    n = check_int("n", n, minimum=1)
    eps_f = check_in_range("epsilon", epsilon, low=0.0, high=1.0, low_open=True)
    r_tilde = check_int("r_tilde", r_tilde, minimum=1)
    eps = exact_epsilon(eps_f)
    power = _Power(1 + eps)
    ell = power.smallest_power_at_least(r_tilde)
    big_l = power.largest_power_at_most(n)
    m = power.floor(ell, eps) - 1
    g_ell = power.ceil(ell)
    return Geometry(
        n=n, epsilon=eps_f, r_tilde=r_tilde, ell=ell, L=big_l, m=m, g_ell=g_ell, power=power
    )
