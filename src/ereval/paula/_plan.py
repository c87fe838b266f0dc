"""The PAULA annotation plan: which ranks to label (Sabharwal & Sedghi 2017, §4.2, Thm. 3)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import as_1d_array, check_in_range, check_int, describe

if TYPE_CHECKING:
    import pandas as pd

from ..results import FrameRepr, json_ready
from ._geometry import Geometry, _Power, exact_epsilon, geometry

__all__ = ["PaulaPlan", "minimum_r_tilde", "paula_plan"]

# Ranks are int64; 2**62 leaves room for sums of ranks without overflow.
_MAX_N = 2**62


def minimum_r_tilde(*, epsilon: float, delta: int) -> int:
    r"""The smallest admissible :math:`\tilde r`, :math:`\lceil (\Delta + 2)/\epsilon \rceil`.

    §4.2 of Sabharwal & Sedghi (2017) requires
    :math:`\tilde r \ge \lceil (\Delta+2)/\epsilon \rceil`, which makes
    :math:`m \ge \Delta + 1` so that (Delta, m)-monotonicity is defined. ``epsilon`` is
    read as the decimal it prints as, so the division is exact.

    Parameters
    ----------
    epsilon : float
        Geometric spacing, in (0, 1].
    delta : int
        Window width :math:`\Delta \ge 1`.

    Returns
    -------
    int

    References
    ----------
    A. Sabharwal and H. Sedghi, UAI 2017, §4.2.

    Examples
    --------
    >>> from ereval.paula import minimum_r_tilde
    >>> minimum_r_tilde(epsilon=0.03, delta=100)
    3400
    """
    eps = check_in_range("epsilon", epsilon, low=0.0, high=1.0, low_open=True)
    delta = check_int("delta", delta, minimum=1)
    frac = (delta + 2) / exact_epsilon(eps)
    return -((-frac.numerator) // frac.denominator)


@dataclass(frozen=True, eq=False)
class PaulaPlan(FrameRepr):
    r"""Which ranks of a list of ``n`` items to annotate, and the constants of §4.2.

    Build it with :func:`paula_plan`. The plan annotates the prefix
    :math:`1..g_\ell` and, for each :math:`k = \ell+1..L`, the window of
    :math:`\Delta` ranks :math:`g_k - \Delta + 1 .. g_k`; the windows are disjoint
    because :math:`g_{k+1} - g_k \ge m \ge \Delta + 1`. When
    :math:`g_\ell \ge n` the plan is *exhaustive*: every item is annotated and the
    precision function is known exactly.

    Attributes
    ----------
    n : int
        Length of the ranked list.
    epsilon : float
        Geometric spacing :math:`\epsilon`.
    delta : int
        Window width :math:`\Delta`.
    r_tilde : int
        :math:`\tilde r`, the rank after which the monotonicity assumptions are made.
    ell, L, m : int
        :math:`\ell = \lceil\log_{1+\epsilon}\tilde r\rceil`,
        :math:`L = \lfloor\log_{1+\epsilon} n\rfloor`,
        :math:`m = \lfloor\epsilon(1+\epsilon)^\ell - 1\rfloor`.
    gamma : float
        :math:`\gamma = 1 + \epsilon + (2+\epsilon)/m`.
    g_ell : int
        :math:`g_\ell = \lceil(1+\epsilon)^\ell\rceil`; the prefix is
        ``1..min(g_ell, n)``.
    grid : numpy.ndarray
        The geometric points :math:`g_\ell, \dots, g_L` (int64; empty if exhaustive
        with :math:`L < \ell`).
    """

    n: int
    epsilon: float
    delta: int
    r_tilde: int
    ell: int
    L: int
    m: int
    gamma: float
    g_ell: int
    grid: npt.NDArray[np.int64] = field(repr=False)

    @property
    def prefix_end(self) -> int:
        """Last rank of the fully annotated prefix, ``min(g_ell, n)``."""
        return min(self.g_ell, self.n)

    @property
    def exhaustive(self) -> bool:
        """True when the prefix covers the whole list (every item is annotated)."""
        return self.prefix_end >= self.n

    @property
    def window_ends(self) -> npt.NDArray[np.int64]:
        r"""The points :math:`g_{\ell+1}, \dots, g_L` whose windows are annotated."""
        if self.exhaustive:
            return np.empty(0, dtype=np.int64)
        return self.grid[1:]

    @property
    def annotations(self) -> int:
        r"""Number of items to annotate: :math:`g_\ell + \Delta (L - \ell)` (Theorem 3).

        Exhaustive plans annotate all ``n`` items.
        """
        if self.exhaustive:
            return self.n
        return self.g_ell + self.delta * (self.L - self.ell)

    @property
    def approximation(self) -> float:
        r"""The guaranteed approximation factor :math:`\gamma (1 + \epsilon)` (Theorem 3)."""
        if self.exhaustive:
            return 1.0
        return self.gamma * (1.0 + self.epsilon)

    def geometric_points(self, first: int, last: int) -> npt.NDArray[np.int64]:
        r"""The points :math:`g_j = \lceil(1+\epsilon)^j\rceil` for ``j = first..last``
        (Definition 4), computed exactly; duplicates (small ``j``) are kept. Only
        points within the list: ``0 <= first`` and ``last <= L``."""
        first = check_int("first", first, minimum=0)
        last = check_int("last", last)
        if last > self.L:
            raise InputError(
                f"'last' must be at most L = {self.L} (points beyond the list of n={self.n} "
                f"items are not needed); received {last}"
            )
        return _Power(1 + exact_epsilon(self.epsilon)).ceil_range(first, last)

    def rank_ranges(self) -> list[tuple[int, int]]:
        """The ranks to annotate as sorted, disjoint, inclusive ``(first, last)`` ranges.

        Examples
        --------
        >>> from ereval.paula import paula_plan
        >>> paula_plan(100, epsilon=0.5, delta=2).rank_ranges()
        [(1, 12), (17, 18), (25, 26), (38, 39), (57, 58), (86, 87)]
        """
        ranges = [(1, self.prefix_end)]
        ranges.extend((int(g) - self.delta + 1, int(g)) for g in self.window_ends)
        return ranges

    def iter_ranks(self) -> Iterator[int]:
        """Yield the ranks to annotate in increasing order, one at a time."""
        for first, last in self.rank_ranges():
            yield from range(first, last + 1)

    def ranks(self) -> npt.NDArray[np.int64]:
        """All ranks to annotate, sorted (1-based; ``annotations`` entries)."""
        prefix = np.arange(1, self.prefix_end + 1, dtype=np.int64)
        ends = self.window_ends
        if ends.size == 0:
            return prefix
        offsets = np.arange(-self.delta + 1, 1, dtype=np.int64)
        windows = (ends[:, None] + offsets[None, :]).ravel()
        return np.concatenate([prefix, windows])

    def contains(self, ranks: Any) -> npt.NDArray[np.bool_]:
        """Whether each of ``ranks`` is one of the ranks to annotate (vectorised)."""
        r = np.asarray(ranks, dtype=np.int64)
        inside = (r >= 1) & (r <= self.prefix_end)
        ends = self.window_ends
        if ends.size:
            idx = np.searchsorted(ends, r, side="left")
            ok = idx < ends.size
            nxt = ends[np.minimum(idx, ends.size - 1)]
            inside |= ok & (r > nxt - self.delta)
        return inside

    def select(self, labels: Any) -> npt.NDArray[Any]:
        """Pick the planned ranks out of a full label vector of length ``n``.

        Useful in simulations, where the whole list is labelled: the result is
        aligned with :meth:`ranks`.
        """
        arr = as_1d_array("labels", labels)
        if arr.size != self.n:
            raise InputError(
                f"'labels' must have one entry per item of the list (n={self.n}); "
                f"received {arr.size}"
            )
        return arr[self.ranks() - 1]

    def to_dict(self, *, include_ranges: bool = True) -> dict[str, Any]:
        """A JSON-ready summary; ``ranges`` lists the inclusive rank ranges to annotate."""
        out: dict[str, Any] = {
            "n": self.n,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "r_tilde": self.r_tilde,
            "ell": self.ell,
            "L": self.L,
            "m": self.m,
            "gamma": self.gamma,
            "approximation": self.approximation,
            "g_ell": self.g_ell,
            "prefix_end": self.prefix_end,
            "exhaustive": self.exhaustive,
            "n_windows": int(self.window_ends.size),
            "annotations": self.annotations,
        }
        if include_ranges:
            out["ranges"] = [[a, b] for a, b in self.rank_ranges()]
        ready: dict[str, Any] = json_ready(out)
        return ready

    def to_frame(self) -> pd.DataFrame:
        """One row per inclusive rank range to annotate: ``first, last, items``."""
        import pandas as pd

        ranges = self.rank_ranges()
        return pd.DataFrame(
            [(a, b, b - a + 1) for a, b in ranges], columns=["first", "last", "items"]
        )


def paula_plan(n: int, *, epsilon: float, delta: int, r_tilde: int | None = None) -> PaulaPlan:
    r"""Plan the annotations of PAULA for a ranked list of ``n`` items.

    With :math:`\ell = \lceil\log_{1+\epsilon}\tilde r\rceil`,
    :math:`L = \lfloor\log_{1+\epsilon} n\rfloor` and the geometric points
    :math:`g_j = \lceil(1+\epsilon)^j\rceil` (Definition 4), PAULA annotates

    * every rank :math:`1, \dots, g_\ell` (the prefix, where the precision function
      is known exactly), and
    * the :math:`\Delta` ranks :math:`g_k - \Delta + 1, \dots, g_k` before each later
      point :math:`g_k`, :math:`k = \ell + 1, \dots, L` (the local precisions
      :math:`p_\Delta(g_k)` of Definition 1),

    that is :math:`g_\ell + \Delta(L - \ell)` items (Theorem 3), and returns bounds
    within a factor :math:`\gamma(1+\epsilon)`, where
    :math:`m = \lfloor \epsilon(1+\epsilon)^\ell - 1 \rfloor` and
    :math:`\gamma = 1 + \epsilon + (2+\epsilon)/m` (§4.2). Nothing of size ``n`` is
    built: the plan costs :math:`O(\log(n)/\epsilon)` time and memory.

    Parameters
    ----------
    n : int
        Number of items in the ranked list, :math:`N \ge 1`.
    epsilon : float
        Geometric spacing :math:`\epsilon \in (0, 1]`. It is read as the decimal it
        prints as (``0.03`` is exactly 3/100), so the integer quantities are exact.
    delta : int
        Monotonicity window :math:`\Delta \ge 1` (the paper uses 50 to 100).
    r_tilde : int, optional
        :math:`\tilde r`, the rank from which the monotonicity assumptions A.1/A.2 are
        made; at least :math:`\lceil(\Delta+2)/\epsilon\rceil`, which is the default.

    Returns
    -------
    PaulaPlan

    Raises
    ------
    InputError
        ``epsilon`` outside (0, 1], ``delta < 1``, ``n < 1`` or ``r_tilde`` below
        :math:`\lceil(\Delta+2)/\epsilon\rceil`.

    References
    ----------
    A. Sabharwal and H. Sedghi, "How Good Are My Predictions? Efficiently
    Approximating Precision-Recall Curves for Massive Datasets", UAI 2017, §4.2 and
    Algorithm 2.

    Examples
    --------
    The Science KB of §4.4.3 (N = 217,077, epsilon = 0.03, Delta = 100):

    >>> from ereval.paula import paula_plan
    >>> plan = paula_plan(217_077, epsilon=0.03, delta=100)
    >>> plan.r_tilde, plan.ell, plan.L, plan.m, plan.g_ell, plan.annotations
    (3400, 276, 415, 103, 3492, 17392)
    >>> round(plan.gamma, 4), round(plan.approximation, 4)
    (1.0497, 1.0812)
    """
    n = check_int("n", n, minimum=1)
    if n > _MAX_N:
        raise InputError(f"'n' must be at most 2**62 items; received {n}")
    minimum = minimum_r_tilde(epsilon=epsilon, delta=delta)
    delta = int(delta)
    if r_tilde is None:
        r_tilde = minimum
    else:
        r_tilde = check_int("r_tilde", r_tilde, minimum=1)
        if r_tilde < minimum:
            raise InputError(
                f"'r_tilde' must be at least ceil((delta + 2) / epsilon) = {minimum} for "
                f"epsilon={float(epsilon)!r} and delta={delta} (§4.2), so that m >= delta; "
                f"received {describe(r_tilde)}"
            )
    geo = geometry(n, epsilon, r_tilde)
    return _plan_from_geometry(geo, delta)


def _plan_from_geometry(geo: Geometry, delta: int) -> PaulaPlan:
    # r_tilde >= ceil((delta + 2) / epsilon) makes m >= delta + 1, so the windows
    # before consecutive points never overlap and gamma is finite.
    grid = geo.grid() if geo.L >= geo.ell else np.empty(0, dtype=np.int64)
    return PaulaPlan(
        n=geo.n,
        epsilon=geo.epsilon,
        delta=delta,
        r_tilde=geo.r_tilde,
        ell=geo.ell,
        L=geo.L,
        m=geo.m,
        gamma=geo.gamma,
        g_ell=geo.g_ell,
        grid=grid,
    )
