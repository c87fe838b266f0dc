"""Logarithmic stratified sampling, PAULA's probabilistic baseline (§4.4.1, Algorithm 1)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError
from .._validation import check_binary_array, check_in_range, check_rng
from ._geometry import Geometry, geometry
from ._sampling import _precision, _prob, _rank_array

__all__ = [
    "StratifiedDesign",
    "StratifiedEstimate",
    "stratified_annotations",
    "stratified_design",
    "stratified_sample_size",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _stratified_geometry(n: int, epsilon: float, r_tilde: int) -> Geometry:
    geo = geometry(n, epsilon, r_tilde)
    if geo.m < 1:
        raise InputError(
            f"'r_tilde' is too small for epsilon={geo.epsilon!r}: m = floor(epsilon * "
            f"(1+epsilon)^ell - 1) = {geo.m} must be >= 1 (§4.2); received {r_tilde}"
        )
    return geo


def _beta(beta: Any, geo: Geometry) -> float:
    if beta is None:
        return geo.gamma
    return check_in_range("beta", beta, low=1.0, low_open=True)


def stratified_sample_size(
    n: int,
    *,
    epsilon: float,
    r_tilde: int,
    p_min: float,
    failure_probability: float,
    beta: float | None = None,
) -> int:
    r"""The per-point sample size :math:`s` of logarithmic stratified sampling (Algorithm 1).

    .. math:: s = \left\lceil \frac{1}{2(\beta-1)^2 p_{\min}^2}
              \ln\frac{L-\ell}{\delta/2} \right\rceil

    so that, by Hoeffding and a union bound over the :math:`L - \ell` points, every
    estimate :math:`S_k/s` is within :math:`(\beta-1)p_{\min}` of
    :math:`p(g_k)` with probability at least :math:`1-\delta`. Zero when
    :math:`L \le \ell` (nothing to estimate).

    Parameters
    ----------
    n : int
        Length of the list.
    epsilon : float
        Geometric spacing in (0, 1].
    r_tilde : int
        :math:`\tilde r`; needs :math:`m \ge 1`.
    p_min : float
        Lower bound on the precision, in (0, 1].
    failure_probability : float
        :math:`\delta \in (0, 1)`.
    beta : float, optional
        Target approximation :math:`\beta > 1` at the points; :math:`\gamma` of §4.2
        by default (the comparison of §4.4.4).

    Returns
    -------
    int

    References
    ----------
    Sabharwal and Sedghi (2017), §4.4.1, Algorithm 1, Lemma 1.
    """
    geo = _stratified_geometry(n, epsilon, r_tilde)
    p = _precision("p_min", p_min)
    delta = _prob("failure_probability", failure_probability)
    b = _beta(beta, geo)
    strata = geo.L - geo.ell
    if strata <= 0:
        return 0
    return math.ceil(math.log(strata / (delta / 2.0)) / (2.0 * (b - 1.0) ** 2 * p**2))


def stratified_annotations(
    n: int,
    *,
    epsilon: float,
    r_tilde: int,
    p_min: float,
    failure_probability: float,
    beta: float | None = None,
) -> float:
    r"""Annotations of logarithmic stratified sampling, Theorem 2.

    .. math:: g_\ell + \frac{\epsilon (L-\ell)}{2(\beta-1)^2(1+\epsilon)p_{\min}^2}
              \ln\frac{L-\ell}{\delta/2}

    the prefix plus, per point, the :math:`\epsilon/(1+\epsilon)` share of the
    :math:`s` samples drawn afresh. The value of the formula is returned (the
    paper's count, with :math:`s` not rounded); round it up for a count.

    Parameters are those of :func:`stratified_sample_size`.

    Returns
    -------
    float

    References
    ----------
    Sabharwal and Sedghi (2017), §4.4.1 Theorem 2, §4.4.4.

    Examples
    --------
    §4.4.4: :math:`\delta` = 0.05, :math:`\epsilon` = 0.03, :math:`p_{\min}` = 0.5,
    :math:`\tilde r` = 1000, so :math:`\ell` = 234, :math:`\gamma` = 1.1 and the
    factor :math:`\epsilon/(2(\gamma-1)^2(1+\epsilon)p_{\min}^2)` = 5.83 (the paper
    rounds it to 5.8):

    >>> from ereval.paula import stratified_annotations
    >>> kw = dict(epsilon=0.03, r_tilde=1000, p_min=0.5, failure_probability=0.05)
    >>> total = stratified_annotations(10_000, **kw)
    >>> round((total - 1010) / (311 - 234), 1)  # per point; g_ell = 1010; the paper: 46.6
    46.8
    """
    geo = _stratified_geometry(n, epsilon, r_tilde)
    p = _precision("p_min", p_min)
    delta = _prob("failure_probability", failure_probability)
    b = _beta(beta, geo)
    strata = geo.L - geo.ell
    if strata <= 0:
        return float(min(geo.g_ell, geo.n))
    eps = geo.epsilon
    per_point = eps / (2.0 * (b - 1.0) ** 2 * (1.0 + eps) * p**2) * math.log(strata / (delta / 2.0))
    return geo.g_ell + strata * per_point


@dataclass(frozen=True, eq=False)
class StratifiedEstimate:
    r"""The output of Algorithm 1: estimates :math:`q(g_k) = S_k/s` and their intervals.

    Attributes
    ----------
    grid : numpy.ndarray
        :math:`g_\ell, \dots, g_L`.
    estimate_grid : numpy.ndarray
        :math:`q(g_k)`; exact at :math:`g_\ell`.
    half_width : float
        :math:`(\beta-1)p_{\min}`: with probability at least :math:`1-\delta` every
        :math:`|q(g_k) - p(g_k)|` is at most this.
    """

    n: int
    grid: IntArray
    estimate_grid: FloatArray
    half_width: float
    _prefix_yield: IntArray = field(repr=False)

    def _step(self, r: IntArray, values: FloatArray) -> FloatArray:
        p_end = self._prefix_yield.size - 1
        out = np.empty(r.size, dtype=np.float64)
        exact = r <= p_end
        out[exact] = self._prefix_yield[r[exact]] / r[exact]
        rest = ~exact
        if rest.any():
            k = np.searchsorted(self.grid, r[rest], side="right") - 1
            out[rest] = values[k]
        return out

    def estimate(self, ranks: Any) -> FloatArray:
        r""":math:`step^q_{\epsilon,\ell}(r)` (Definition 5): exact up to :math:`g_\ell`,
        then :math:`q(g_j)` for the largest :math:`g_j \le r`."""
        return self._step(_rank_array("ranks", ranks, self.n), self.estimate_grid)

    def interval(self, ranks: Any) -> tuple[FloatArray, FloatArray]:
        """The simultaneous Hoeffding interval at the step points, clipped to [0, 1]."""
        r = _rank_array("ranks", ranks, self.n)
        lo = np.clip(self.estimate_grid - self.half_width, 0.0, 1.0)
        hi = np.clip(self.estimate_grid + self.half_width, 0.0, 1.0)
        if self.grid.size:
            lo[0] = hi[0] = self.estimate_grid[0]
        return self._step(r, lo), self._step(r, hi)


@dataclass(frozen=True, eq=False)
class StratifiedDesign:
    r"""The random samples of Algorithm 1, drawn before any label is seen.

    Each sample is a rank with the first and last point index (``birth``,
    ``death``, offsets from :math:`\ell`) of the sets :math:`X_k` it belongs to:
    :math:`X_\ell` holds :math:`s` uniform draws from :math:`1..g_\ell`; each
    member of :math:`X_k` stays in :math:`X_{k+1}` with probability
    :math:`g_k/g_{k+1}`, and fresh uniform draws from :math:`g_k+1..g_{k+1}` bring
    :math:`X_{k+1}` back to :math:`s` members. Each :math:`X_k` is thus a uniform
    sample with replacement of :math:`1..g_k`.
    """

    n: int
    epsilon: float
    r_tilde: int
    ell: int
    L: int
    s: int
    beta: float
    p_min: float
    failure_probability: float
    grid: IntArray = field(repr=False)
    sample_rank: IntArray = field(repr=False)
    sample_birth: IntArray = field(repr=False)
    sample_death: IntArray = field(repr=False)

    @property
    def prefix_end(self) -> int:
        """Last rank of the annotated prefix."""
        return int(min(self.grid[0], self.n)) if self.grid.size else self.n

    def ranks(self) -> IntArray:
        """The distinct ranks to annotate: the prefix and every sampled rank beyond it."""
        prefix = np.arange(1, self.prefix_end + 1, dtype=np.int64)
        later = np.unique(self.sample_rank[self.sample_rank > self.prefix_end])
        return np.concatenate([prefix, later])

    @property
    def annotations(self) -> int:
        """Number of distinct items to annotate."""
        return int(self.ranks().size)

    def estimate(self, ranks: Any, labels: Any) -> StratifiedEstimate:
        """Run Algorithm 1 on the labels of :meth:`ranks` (every one, nothing else)."""
        from ._labels import _range_text

        r = _rank_array("ranks", ranks, self.n)
        v = check_binary_array("labels", labels)
        if r.size != v.size:
            raise InputError(
                f"'ranks' and 'labels' must have the same length; received {r.size} and {v.size}"
            )
        order = np.argsort(r, kind="stable")
        r, v = r[order], v[order]
        want = self.ranks()
        if r.size != want.size or not np.array_equal(r, want):
            extra = np.setdiff1d(r, want)
            missing = np.setdiff1d(want, r)
            if extra.size:
                raise InputError(
                    f"'ranks' has {extra.size} rank(s) not in the design: {_range_text(extra)}"
                )
            if missing.size:
                raise InputError(
                    f"{missing.size} rank(s) of the design have no label: {_range_text(missing)}"
                )
            raise InputError("'ranks' has duplicate ranks")
        p_end = self.prefix_end
        prefix_yield = np.concatenate([[0], np.cumsum(v[:p_end], dtype=np.int64)])
        if self.grid.size == 0 or self.L <= self.ell:
            est = prefix_yield[self.grid] / self.grid if self.grid.size else np.empty(0)
            return StratifiedEstimate(self.n, self.grid, est.astype(np.float64), 0.0, prefix_yield)
        label_of = v[np.searchsorted(r, self.sample_rank)].astype(np.int64)
        k = self.L - self.ell + 1
        diff = np.zeros(k + 1, dtype=np.int64)
        np.add.at(diff, self.sample_birth, label_of)
        np.add.at(diff, self.sample_death + 1, -label_of)
        sums = np.cumsum(diff[:k])
        est = sums / self.s
        est[0] = prefix_yield[self.grid[0]] / self.grid[0]
        half = (self.beta - 1.0) * self.p_min
        return StratifiedEstimate(self.n, self.grid, est.astype(np.float64), half, prefix_yield)


def stratified_design(
    n: int,
    *,
    epsilon: float,
    r_tilde: int,
    p_min: float,
    failure_probability: float,
    beta: float | None = None,
    seed: Any = None,
) -> StratifiedDesign:
    r"""Draw the samples of logarithmic stratified sampling (Algorithm 1).

    The samples depend only on chance, not on labels, so the whole design is drawn
    up front; label :meth:`StratifiedDesign.ranks` and call
    :meth:`StratifiedDesign.estimate`. Expected annotations: :math:`g_\ell` plus
    about :math:`s\,\epsilon/(1+\epsilon)` per point (Theorem 2).

    Parameters
    ----------
    n, epsilon, r_tilde, p_min, failure_probability, beta :
        As for :func:`stratified_sample_size`.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    StratifiedDesign

    References
    ----------
    Sabharwal and Sedghi (2017), §4.4.1, Algorithm 1, Lemma 1, Theorem 2.
    """
    geo = _stratified_geometry(n, epsilon, r_tilde)
    rng = check_rng(seed)
    p = _precision("p_min", p_min)
    delta = _prob("failure_probability", failure_probability)
    b = _beta(beta, geo)
    s = stratified_sample_size(
        n, epsilon=epsilon, r_tilde=r_tilde, p_min=p, failure_probability=delta, beta=b
    )
    grid = geo.grid() if geo.L >= geo.ell else np.empty(0, dtype=np.int64)
    ranks_parts: list[IntArray] = []
    births: list[IntArray] = []
    deaths: list[IntArray] = []
    if s > 0 and grid.size > 1:
        alive_rank = rng.integers(1, grid[0] + 1, size=s, dtype=np.int64)
        alive_birth = np.zeros(s, dtype=np.int64)
        for k in range(grid.size - 1):
            keep = rng.random(alive_rank.size) < grid[k] / grid[k + 1]
            ranks_parts.append(alive_rank[~keep])
            births.append(alive_birth[~keep])
            deaths.append(np.full(int((~keep).sum()), k, dtype=np.int64))
            fresh = s - int(keep.sum())
            new = rng.integers(grid[k] + 1, grid[k + 1] + 1, size=fresh, dtype=np.int64)
            alive_rank = np.concatenate([alive_rank[keep], new])
            alive_birth = np.concatenate([alive_birth[keep], np.full(fresh, k + 1, dtype=np.int64)])
        ranks_parts.append(alive_rank)
        births.append(alive_birth)
        deaths.append(np.full(alive_rank.size, grid.size - 1, dtype=np.int64))
    empty = np.empty(0, dtype=np.int64)
    return StratifiedDesign(
        n=geo.n,
        epsilon=geo.epsilon,
        r_tilde=geo.r_tilde,
        ell=geo.ell,
        L=geo.L,
        s=s,
        beta=b,
        p_min=p,
        failure_probability=delta,
        grid=grid,
        sample_rank=np.concatenate(ranks_parts) if ranks_parts else empty,
        sample_birth=np.concatenate(births) if births else empty,
        sample_death=np.concatenate(deaths) if deaths else empty,
    )
