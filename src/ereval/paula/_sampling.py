"""Uniform random sampling, the common baseline of PAULA's paper (§2.1, §3, eqs. 2-5)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError, InputTypeError
from .._validation import (
    as_1d_array,
    check_binary_array,
    check_in_range,
    check_int,
    check_rng,
    examples,
)
from ..results import EstimateCurve, EstimateSeries

__all__ = [
    "hoeffding_half_width",
    "hoeffding_sample_size",
    "random_sampling_annotations",
    "random_sampling_curve",
    "random_sampling_threshold",
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
) -> EstimateCurve:
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
    ereval.results.EstimateCurve
        On the axis ``"rank"``, the quantity ``precision``: the estimate (NaN with no
        sample among the top ``r``), no std (NaN), the eq. (3) interval clipped to
        [0, 1] ([0, 1] with no sample) and ``n`` the number :math:`z_r` of sampled
        items among the top ``r``; level :math:`1 - \delta'`; ``details``:
        ``failure_probability`` (:math:`\delta'`, already divided by N when
        simultaneous).

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
    series = EstimateSeries(
        est.astype(np.float64),
        np.full(r.shape, np.nan),
        lower.astype(np.float64),
        upper.astype(np.float64),
        z,
        ((),) * r.shape[0],
    )
    return EstimateCurve(
        "rank",
        r,
        {"precision": series},
        1.0 - delta,
        "uniform sampling (Hoeffding)",
        {"failure_probability": delta},
    )
