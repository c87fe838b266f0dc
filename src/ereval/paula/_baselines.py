"""The sampling baselines of PAULA's paper and the annotation counts they need.

Uniform random sampling with Hoeffding intervals (§2.1 and §3, eqs. 2-5),
logarithmic stratified sampling (§4.4.1, Algorithm 1), and the comparison of the
annotations each method needs for a given approximation factor (Figure 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import (
    as_1d_array,
    check_binary_array,
    check_in_range,
    check_int,
    check_rng,
    examples,
)
from ._geometry import Geometry, geometry
from ._plan import paula_plan

__all__ = [
    "AnnotationCounts",
    "SampledPrecision",
    "StratifiedDesign",
    "StratifiedEstimate",
    "annotation_counts",
    "hoeffding_half_width",
    "hoeffding_sample_size",
    "random_sampling_annotations",
    "random_sampling_curve",
    "random_sampling_threshold",
    "stratified_annotations",
    "stratified_design",
    "stratified_sample_size",
    "uniform_sample_ranks",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _prob(name: str, value: Any) -> float:
    return check_in_range(name, value, low=0.0, high=1.0, low_open=True, high_open=True)


def _precision(name: str, value: Any) -> float:
    return check_in_range(name, value, low=0.0, high=1.0, low_open=True)


def _positive(name: str, value: Any) -> float:
    return check_in_range(name, value, low=0.0, low_open=True)


# --------------------------------------------------------------------------- eqs. 2-5
def hoeffding_sample_size(*, epsilon: float, precision: float, failure_probability: float) -> float:
    r"""Samples for a :math:`(1+\epsilon)`-approximation of one precision value, eq. (2).

    .. math:: z \ge \frac{1}{2\epsilon^2 p(r)^2} \ln\frac{2}{\delta}

    from the two-sided Hoeffding bound
    :math:`\Pr[|\tilde p(r) - p(r)| \ge \epsilon p(r)] \le 2 e^{-2 z \epsilon^2 p(r)^2}`.
    The value of the formula is returned; round it up for a count.

    Parameters
    ----------
    epsilon : float
        Relative error, > 0.
    precision : float
        The precision :math:`p(r) \in (0, 1]` (a lower bound on it in practice).
    failure_probability : float
        :math:`\delta \in (0, 1)`; 0.05 for 95 % confidence.

    Returns
    -------
    float

    References
    ----------
    Sabharwal and Sedghi (2017), §2.1, eq. (2); Hoeffding (1963).

    Examples
    --------
    >>> from ereval.paula import hoeffding_sample_size
    >>> round(hoeffding_sample_size(epsilon=0.1, precision=0.5, failure_probability=0.05), 1)
    737.8
    """
    eps = _positive("epsilon", epsilon)
    p = _precision("precision", precision)
    delta = _prob("failure_probability", failure_probability)
    return math.log(2.0 / delta) / (2.0 * eps**2 * p**2)


def hoeffding_half_width(z: int, *, failure_probability: float) -> float:
    r"""Half-width of the :math:`1-\delta` Hoeffding interval from ``z`` samples, eq. (3).

    .. math:: \tilde p(r) \pm \sqrt{\frac{1}{2z}\ln\frac{2}{\delta}}

    Parameters
    ----------
    z : int
        Number of samples, >= 1.
    failure_probability : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float

    References
    ----------
    Sabharwal and Sedghi (2017), §2.1, eq. (3).

    Examples
    --------
    >>> from ereval.paula import hoeffding_half_width
    >>> round(hoeffding_half_width(2000, failure_probability=0.05), 4)
    0.0304
    """
    z = check_int("z", z, minimum=1)
    delta = _prob("failure_probability", failure_probability)
    return math.sqrt(math.log(2.0 / delta) / (2.0 * z))


def random_sampling_threshold(
    n: int, s: int, *, alpha: float, precision: float, failure_probability: float
) -> float:
    r"""Rank from which ``s`` uniform samples give a :math:`(1+\alpha)`-approximation, eq. (4).

    .. math:: n_{\alpha,s} = \frac{N}{2 s \alpha^2 p(r)^2} \ln\frac{2N}{\delta}

    (eq. (2) at every rank with confidence :math:`\delta/N`, union bound over the
    :math:`N` ranks). The value of the formula is returned.

    Parameters
    ----------
    n : int
        Length :math:`N` of the list.
    s : int
        Number of uniform samples.
    alpha : float
        Relative error :math:`\alpha > 0`.
    precision : float
        :math:`p(r) \in (0, 1]`.
    failure_probability : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float

    References
    ----------
    Sabharwal and Sedghi (2017), §3, eq. (4).

    Examples
    --------
    >>> from ereval.paula import random_sampling_threshold
    >>> round(random_sampling_threshold(217_077, 17_392, alpha=0.0812, precision=0.7,
    ...                                 failure_probability=0.05))
    30862
    """
    n = check_int("n", n, minimum=1)
    s = check_int("s", s, minimum=1)
    a = _positive("alpha", alpha)
    p = _precision("precision", precision)
    delta = _prob("failure_probability", failure_probability)
    return n / (2.0 * s * a**2 * p**2) * math.log(2.0 * n / delta)


def random_sampling_annotations(
    n: int, *, alpha: float, precision: float, failure_probability: float
) -> float:
    r"""Annotations for a :math:`(1+\alpha)`-approximation of the whole precision
    function by uniform random sampling, eq. (5).

    Annotating the top :math:`n_{\alpha,s}` items plus :math:`s` uniform samples
    costs :math:`s + n_{\alpha,s}`, smallest at :math:`s = n_{\alpha,s}`:

    .. math:: \sqrt{\frac{2N}{\alpha^2 p(r)^2} \ln\frac{2N}{\delta}}

    The value of the formula is returned; round it up for a count.

    Convention: to compare with PAULA at equal accuracy use
    :math:`\alpha = \gamma(1+\epsilon) - 1` exactly (``plan.approximation - 1``),
    which is what :func:`annotation_counts` does. For the Science KB
    (N = 217,077, :math:`\epsilon` = 0.03, :math:`\Delta` = 100, so
    :math:`\gamma(1+\epsilon) = 1.0812`, :math:`\delta` = 0.05, p = 0.7) that gives
    46,335.5. The paper quotes 47,030 (§1, §4.4.3): that is this formula with
    :math:`\alpha` rounded to 0.08 (47,030.5, truncated). The exact factor is used
    here because it is the accuracy PAULA guarantees; rounding it down would
    overstate the samples the baseline needs.

    Parameters
    ----------
    n : int
        Length :math:`N` of the list.
    alpha : float
        Relative error :math:`\alpha > 0`.
    precision : float
        :math:`p(r) \in (0, 1]`.
    failure_probability : float
        :math:`\delta \in (0, 1)`.

    Returns
    -------
    float

    References
    ----------
    Sabharwal and Sedghi (2017), §3, eq. (5).

    Examples
    --------
    >>> from ereval.paula import random_sampling_annotations
    >>> kw = dict(precision=0.7, failure_probability=0.05)
    >>> round(random_sampling_annotations(217_077, alpha=0.0812, **kw), 1)
    46335.5
    >>> int(random_sampling_annotations(217_077, alpha=0.08, **kw))  # the paper's 47,030
    47030
    """
    n = check_int("n", n, minimum=1)
    a = _positive("alpha", alpha)
    p = _precision("precision", precision)
    delta = _prob("failure_probability", failure_probability)
    return math.sqrt(2.0 * n / (a**2 * p**2) * math.log(2.0 * n / delta))


# --------------------------------------------------------------------------- §3 estimator
def uniform_sample_ranks(n: int, s: int, *, seed: Any = None) -> IntArray:
    """``s`` distinct ranks drawn uniformly from ``1..n``, sorted (never builds ``1..n``).

    Parameters
    ----------
    n : int
        Length of the list.
    s : int
        Sample size, ``0 <= s <= n``.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int64

    References
    ----------
    Sabharwal and Sedghi (2017), §3: the uniform sample :math:`T'` of the baseline.
    """
    n = check_int("n", n, minimum=1)
    s = check_int("s", s, minimum=0)
    if s > n:
        raise InputError(f"'s' must be at most n={n} (sampling without replacement); received {s}")
    rng = check_rng(seed)
    return np.sort(rng.choice(n, size=s, replace=False).astype(np.int64) + 1)


@dataclass(frozen=True, eq=False)
class SampledPrecision:
    """Precision estimated from a uniform sample, with Hoeffding intervals.

    Attributes
    ----------
    ranks : numpy.ndarray
        Ranks at which the precision was estimated.
    estimate : numpy.ndarray
        Precision of the sampled items among the top ``r`` (NaN with no sample).
    lower, upper : numpy.ndarray
        Eq. (3) interval clipped to [0, 1] ([0, 1] with no sample).
    n_samples : numpy.ndarray
        Number ``z`` of sampled items among the top ``r``.
    failure_probability : float
        The :math:`\\delta` of each interval (already divided by N when simultaneous).
    """

    ranks: IntArray
    estimate: FloatArray
    lower: FloatArray
    upper: FloatArray
    n_samples: IntArray
    failure_probability: float

    def to_frame(self) -> pd.DataFrame:
        """One row per rank."""
        return pd.DataFrame(
            {
                "rank": self.ranks,
                "estimate": self.estimate,
                "lower": self.lower,
                "upper": self.upper,
                "n_samples": self.n_samples,
            }
        )


def _rank_array(name: str, values: Any, n: int) -> IntArray:
    arr = as_1d_array(name, values)
    if arr.dtype.kind not in "iu":
        raise InputTypeError(f"'{name}' must hold integer ranks; received dtype {arr.dtype}")
    out = arr.astype(np.int64)
    bad = out[(out < 1) | (out > n)]
    if bad.size:
        raise InputError(
            f"'{name}' must lie in 1..{n}; received {bad.size} rank(s) outside it "
            f"(e.g. {examples(bad)})"
        )
    return out


def random_sampling_curve(
    n: int,
    sample_ranks: Any,
    sample_labels: Any,
    *,
    ranks: Any = None,
    failure_probability: float = 0.05,
    simultaneous: bool = False,
) -> SampledPrecision:
    r"""Estimate the precision function from a uniform sample of the list (§3).

    The estimate of :math:`p(r)` is the precision of the sampled items that rank
    in the top :math:`r` (the paper's :math:`p'(rs/N)` with the expected count
    :math:`rs/N` replaced by the observed count :math:`z_r`). Given
    :math:`z_r`, those items are a uniform sample of the top :math:`r`, so
    eq. (3) gives the interval :math:`\tilde p(r) \pm \sqrt{\ln(2/\delta')/(2 z_r)}`
    with :math:`\delta' = \delta`, or :math:`\delta' = \delta/N` for intervals that
    hold at all :math:`N` ranks at once (union bound, as in §3).

    Parameters
    ----------
    n : int
        Length of the list.
    sample_ranks : array-like of int
        The distinct sampled ranks (e.g. :func:`uniform_sample_ranks`).
    sample_labels : array-like of {0, 1}
        Their labels.
    ranks : array-like of int, optional
        Where to estimate; the sampled ranks and ``n`` by default.
    failure_probability : float, default 0.05
        :math:`\delta \in (0, 1)`.
    simultaneous : bool, default False
        Use :math:`\delta/N` so that the intervals hold jointly.

    Returns
    -------
    SampledPrecision

    References
    ----------
    Sabharwal and Sedghi (2017), §2.1 eq. (3) and §3.
    """
    n = check_int("n", n, minimum=1)
    sr = _rank_array("sample_ranks", sample_ranks, n)
    sl = check_binary_array("sample_labels", sample_labels)
    if sr.size != sl.size:
        raise InputError(
            f"'sample_ranks' and 'sample_labels' must have the same length; received "
            f"{sr.size} and {sl.size}"
        )
    order = np.argsort(sr, kind="stable")
    sr, sl = sr[order], sl[order]
    if sr.size > 1 and np.any(sr[1:] == sr[:-1]):
        dup = np.unique(sr[1:][sr[1:] == sr[:-1]])
        raise InputError(
            f"'sample_ranks' must be distinct; received duplicates (e.g. {examples(dup)})"
        )
    delta = _prob("failure_probability", failure_probability)
    if not isinstance(simultaneous, bool):
        raise InputTypeError(f"'simultaneous' must be a bool; received {simultaneous!r}")
    if simultaneous:
        delta = delta / n
    r = np.unique(np.append(sr, n)) if ranks is None else _rank_array("ranks", ranks, n)
    z = np.searchsorted(sr, r, side="right").astype(np.int64)
    pos = np.concatenate([[0], np.cumsum(sl, dtype=np.int64)])[z]
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.where(z > 0, pos / np.maximum(z, 1), np.nan)
        half = np.where(z > 0, np.sqrt(math.log(2.0 / delta) / (2.0 * np.maximum(z, 1))), np.inf)
    lower = np.where(z > 0, np.clip(est - half, 0.0, 1.0), 0.0)
    upper = np.where(z > 0, np.clip(est + half, 0.0, 1.0), 1.0)
    return SampledPrecision(r, est.astype(np.float64), lower, upper, z, delta)


# --------------------------------------------------------------------------- Algorithm 1
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


# --------------------------------------------------------------------------- Figure 1
@dataclass(frozen=True)
class AnnotationCounts:
    r"""Annotations each method needs for the same guaranteed approximation (Figure 1).

    Attributes
    ----------
    n, epsilon, delta : the list length, spacing and window.
    approximation : float
        :math:`1 + \alpha = \gamma(1+\epsilon)`, the factor all three guarantee.
    paula : int
        :math:`g_\ell + \Delta(L-\ell)` (Theorem 3), deterministic.
    stratified : int
        Theorem 2 with :math:`\beta = \gamma`, rounded up; holds with probability
        :math:`1-\delta`.
    random_sampling : int
        Eq. (5) with :math:`\alpha = \gamma(1+\epsilon) - 1` and
        :math:`p = p_{\min}`, rounded up; holds with probability :math:`1-\delta`.
    """

    n: int
    epsilon: float
    delta: int
    approximation: float
    paula: int
    stratified: int
    random_sampling: int

    @property
    def alpha(self) -> float:
        """:math:`\\alpha = \\gamma(1+\\epsilon) - 1`."""
        return self.approximation - 1.0


def annotation_counts(
    n: int,
    *,
    epsilon: float,
    delta: int,
    p_min: float,
    failure_probability: float,
    r_tilde: int | None = None,
) -> AnnotationCounts:
    r"""Annotations needed by PAULA, stratified and random sampling at equal accuracy.

    All three methods are set to guarantee the same factor
    :math:`1 + \alpha = \gamma(1+\epsilon)`: PAULA deterministically
    (:math:`g_\ell + \Delta(L-\ell)`, Theorem 3), logarithmic stratified sampling
    with :math:`\beta = \gamma` (Theorem 2) and uniform random sampling
    (eq. (5) with :math:`p = p_{\min}`), both with probability :math:`1-\delta`.
    Both logarithmic methods use the same :math:`\tilde r`, hence the same
    :math:`\ell`, :math:`L` and :math:`\gamma`. No count exceeds ``n``: labelling
    the whole list is always enough.

    Parameters
    ----------
    n : int
        Length of the list (Figure 1 uses :math:`10^7`).
    epsilon : float
        Geometric spacing in (0, 1].
    delta : int
        PAULA's window :math:`\Delta` (Figure 1: 100).
    p_min : float
        Lower bound on the precision for the sampling methods (Figure 1: 0.5).
    failure_probability : float
        :math:`\delta` of the sampling methods, e.g. 0.05.
    r_tilde : int, optional
        Default :math:`\lceil(\Delta+2)/\epsilon\rceil`.

    Returns
    -------
    AnnotationCounts

    References
    ----------
    Sabharwal and Sedghi (2017), §4.4.3-4.4.4, §5.1 and Figure 1.

    Examples
    --------
    >>> from ereval.paula import annotation_counts
    >>> c = annotation_counts(217_077, epsilon=0.03, delta=100, p_min=0.7,
    ...                       failure_probability=0.05)
    >>> c.paula, c.random_sampling, round(c.approximation, 4)
    (17392, 46336, 1.0812)
    """
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    p = _precision("p_min", p_min)
    fail = _prob("failure_probability", failure_probability)
    approx = plan.gamma * (1.0 + plan.epsilon)
    strat = stratified_annotations(
        plan.n, epsilon=plan.epsilon, r_tilde=plan.r_tilde, p_min=p, failure_probability=fail
    )
    rand = random_sampling_annotations(
        plan.n, alpha=approx - 1.0, precision=p, failure_probability=fail
    )
    return AnnotationCounts(
        n=plan.n,
        epsilon=plan.epsilon,
        delta=plan.delta,
        approximation=approx,
        paula=plan.annotations,
        stratified=min(math.ceil(strat), plan.n),
        random_sampling=min(math.ceil(rand), plan.n),
    )
