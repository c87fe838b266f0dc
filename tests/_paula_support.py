"""Independent references for the PAULA tests: the paper's definitions, evaluated directly.

Everything here follows the text of Sabharwal & Sedghi (2017) literally, with exact
rational arithmetic and plain loops, and shares no code with ``ereval.paula``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt


def eps_fraction(epsilon: float) -> Fraction:
    return Fraction(str(epsilon))


def constants(n: int, epsilon: float, delta: int, r_tilde: int | None = None) -> dict[str, int]:
    """§4.2 by exact loops: r~, ell, L, m, g_ell."""
    e = eps_fraction(epsilon)
    b = 1 + e
    if r_tilde is None:
        r_tilde = math.ceil(Fraction(delta + 2) / e)
    ell, x = 0, Fraction(1)
    while x < r_tilde:  # ell = ceil(log_{1+e} r~): smallest j with (1+e)^j >= r~
        ell += 1
        x *= b
    big_l, y = 0, Fraction(1)
    while y * b <= n:  # L = floor(log_{1+e} n): largest j with (1+e)^j <= n
        big_l += 1
        y *= b
    m = math.floor(e * x - 1)
    return {"r_tilde": r_tilde, "ell": ell, "L": big_l, "m": m, "g_ell": math.ceil(x)}


def g(epsilon: float, j: int) -> int:
    """Definition 4, exactly."""
    return math.ceil((1 + eps_fraction(epsilon)) ** j)


def floor_log(epsilon: float, r: int) -> int:
    """floor(log_{1+e} r) by an exact loop."""
    b = 1 + eps_fraction(epsilon)
    j, x = 0, Fraction(1)
    while x * b <= r:
        j += 1
        x *= b
    return j


def planned_ranks(n: int, epsilon: float, delta: int, r_tilde: int | None = None) -> list[int]:
    """The prefix 1..g_ell and Delta ranks before each g_k, k = ell+1..L (or 1..n)."""
    c = constants(n, epsilon, delta, r_tilde)
    if c["g_ell"] >= n:
        return list(range(1, n + 1))
    out = set(range(1, c["g_ell"] + 1))
    for k in range(c["ell"] + 1, c["L"] + 1):
        gk = g(epsilon, k)
        out.update(range(gk - delta + 1, gk + 1))
    return sorted(out)


def p(v: npt.NDArray[np.int64], r: int) -> Fraction:
    """Eq. (1)."""
    return Fraction(int(sum(int(x) for x in v[:r])), r)


def p_delta(v: npt.NDArray[np.int64], r: int, delta: int) -> Fraction:
    """Definition 1."""
    if r <= delta:
        return p(v, r)
    return Fraction(int(sum(int(x) for x in v[r - delta : r])), delta)


def paula_reference(
    v: npt.NDArray[np.int64], epsilon: float, delta: int, r_tilde: int | None = None
) -> dict[str, list[Fraction] | list[int]]:
    """Definition 6 summed directly (not by recurrence), exact."""
    n = v.size
    c = constants(n, epsilon, delta, r_tilde)
    ell, big_l = c["ell"], c["L"]
    gs = [g(epsilon, j) for j in range(ell, big_l + 1)]
    g_ell = gs[0]
    y_lo, y_hi = [], []
    for k in range(ell, big_l + 1):
        lo = g_ell * p(v, g_ell)
        hi = g_ell * p(v, g_ell)
        for j in range(ell, k):
            gj, gj1 = g(epsilon, j), g(epsilon, j + 1)
            lo += (gj1 - gj) * p_delta(v, gj1, delta)
            hi += (gj1 - gj) * p_delta(v, gj, delta)
        y_lo.append(lo)
        y_hi.append(hi)
    return {"grid": gs, "y_lo": y_lo, "y_hi": y_hi}


def step_reference(
    v: npt.NDArray[np.int64],
    epsilon: float,
    delta: int,
    r: int,
    which: str,
    r_tilde: int | None = None,
) -> Fraction:
    """Definition 5 applied to Algorithm 2's q- or q+."""
    c = constants(v.size, epsilon, delta, r_tilde)
    if r <= c["g_ell"]:
        return p(v, r)
    j = floor_log(epsilon, r)
    ref = paula_reference(v, epsilon, delta, r_tilde)
    ys = ref["y_lo"] if which == "lower" else ref["y_hi"]
    return Fraction(ys[j - c["ell"]]) / g(epsilon, j)


# --------------------------------------------------------------------------- assumptions
def a2_holds(v: npt.NDArray[np.int64], delta: int, m: int, start: int) -> bool:
    """(Delta, m)-monotonicity from rank ``start`` (Definition 3 with the labels' average
    over (a, b]): p_delta(a) >= mean(v[a+1..b]) >= p_delta(b) for all start <= a,
    b >= a + m. Exact integer comparisons, O(n^2)."""
    n = v.size
    cum = np.concatenate([[0], np.cumsum(v, dtype=np.int64)])
    for a in range(start, n - m + 1):
        b = np.arange(a + m, n + 1)
        inside = cum[b] - cum[a]
        length = b - a
        w_a = cum[a] - cum[a - delta] if a >= delta else None
        if w_a is None:  # p_delta(a) = p(a)
            if np.any(inside * a > length * cum[a]):
                return False
        elif np.any(inside * delta > length * w_a):
            return False
        w_b = cum[b] - cum[b - delta]
        if np.any(inside * delta < length * w_b):
            return False
    return True


def a1_holds(v: npt.NDArray[np.int64], m: int, start: int) -> bool:
    """m-monotonicity from rank ``start`` (Definition 2): p(a) >= p(b), b >= a + m."""
    n = v.size
    r = np.arange(1, n + 1)
    prec = np.cumsum(v) / r
    suffix_max = np.maximum.accumulate(prec[::-1])[::-1]  # max of p over ranks >= i+1
    for a in range(start, n - m + 1):
        if suffix_max[a + m - 1] > prec[a - 1] + 1e-15:
            # confirm exactly
            best = int(np.argmax(prec[a + m - 1 :])) + a + m
            if Fraction(int(np.sum(v[:best])), best) > Fraction(int(np.sum(v[:a])), a):
                return False
    return True


def monotone_list(
    n: int, *, delta: int, m: int, r_tilde: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """A random list meant to satisfy (Delta, m)-monotonicity from ``r_tilde``.

    Labels up to ``r_tilde - delta`` are free (Bernoulli, fairly precise); after that
    the labels are the exact rounding of a steeply decreasing density (they are
    1 wherever the running integral of the density crosses an integer), steep enough
    that rounding cannot reverse the order of local precisions. Check with
    :func:`a2_holds`.
    """
    s_min = 2.0 * (1.0 / (delta * m) + 1.0 / (delta * max(m - delta, 1)))
    slope = s_min * rng.uniform(1.0, 3.0)
    f0 = rng.uniform(0.3, 1.0)
    start = max(r_tilde - delta, 0)
    i = np.arange(start + 1, n + 1)
    density = np.clip(f0 - slope * (i - start), 0.0, 1.0)
    integral = np.concatenate([[0.0], np.cumsum(density)]) + rng.uniform()
    tail = np.diff(np.floor(integral)).astype(np.int64)
    head = (rng.random(start) < rng.uniform(f0, 1.0)).astype(np.int64)
    return np.concatenate([head, tail])[:n]
