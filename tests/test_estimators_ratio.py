"""The bias-corrected ratio estimator, its Taylor variance and the finite-population correction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import InputError
from ereval.estimators import (
    Estimate,
    confidence_interval,
    fpc_theta,
    normal_quantile,
    ratio_estimate,
    ratio_of_means,
)


def _eq7_eq8(b: np.ndarray, a: np.ndarray, theta: float = 1.0) -> tuple[float, float]:
    """Binette et al. 2022, eqs. 7-8, transcribed term by term."""
    n = len(a)
    ab, bb = a.mean(), b.mean()
    corr = sum((a[s] / ab) * (b[s] / bb - a[s] / ab) for s in range(n))
    est = (bb / ab) * (1 + theta / (n * (n - 1)) * corr)
    var = (
        (bb / ab) ** 2 * theta / (n * (n - 1)) * sum((a[s] / ab - b[s] / bb) ** 2 for s in range(n))
    )
    return est, math.sqrt(var)


def test_hand_computed_case() -> None:
    # B = (1, 0, 0), A = (3, 1, 0): Bbar = 1/3, Abar = 4/3, R = 1/4.
    # A/Abar = (9/4, 3/4, 0), B/Bbar = (3, 0, 0):
    # sum (A/Abar)(B/Bbar - A/Abar) = 9/4 * 3/4 - 3/4 * 3/4 = 18/16, so
    # E = 1/4 * (1 + (18/16) / 6) = 0.296875;
    # sum (A/Abar - B/Bbar)^2 = 9/16 + 9/16 + 0 = 18/16, V = 1/16 * (18/16) / 6.
    est, std = ratio_of_means([1.0, 0.0, 0.0], [3.0, 1.0, 0.0])
    assert float(est) == 0.296875
    assert float(std) == pytest.approx(math.sqrt(1 / 16 * 18 / 16 / 6), rel=1e-15)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("theta", [1.0, 0.37])
def test_matches_the_printed_formula(seed: int, theta: float) -> None:
    rng = np.random.default_rng(seed)
    a = rng.gamma(2.0, size=12)
    b = a * rng.uniform(0.2, 1.0, size=12)
    est, std = ratio_of_means(b, a, theta=theta)
    ref_est, ref_std = _eq7_eq8(b, a, theta)
    assert float(est) == pytest.approx(ref_est, rel=1e-13)
    assert float(std) == pytest.approx(ref_std, rel=1e-13)


def test_vectorised_rows_equal_single_estimates() -> None:
    rng = np.random.default_rng(7)
    a = rng.gamma(1.5, size=(6, 9))
    b = a * rng.uniform(size=(6, 9))
    est, std = ratio_of_means(b, a)
    for r in range(6):
        e1, s1 = ratio_of_means(b[r], a[r])
        assert est[r] == pytest.approx(float(e1), rel=1e-14)
        assert std[r] == pytest.approx(float(s1), rel=1e-14)


def test_zero_numerator_gives_zero_with_zero_variance() -> None:
    est, std = ratio_of_means([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    assert float(est) == 0.0 and float(std) == 0.0


def test_zero_denominator_is_nan() -> None:
    est, std = ratio_of_means([0.0, 0.0], [0.0, 0.0])
    assert math.isnan(float(est)) and math.isnan(float(std))


def test_constant_denominator_is_the_sample_mean() -> None:
    # A_s = 1: no bias correction, and V = sum (B_s - Bbar)^2 / (n (n-1))  (2022, eq. 10)
    b = np.array([0.2, 0.9, 0.4, 0.7])
    est, std = ratio_of_means(b, np.ones(4))
    assert float(est) == pytest.approx(b.mean())
    assert float(std) == pytest.approx(b.std(ddof=1) / 2.0)


def test_fewer_than_two_units_is_an_error() -> None:
    with pytest.raises(InputError, match="at least 2 sampled units; received 1"):
        ratio_of_means([1.0], [2.0])


def test_shape_mismatch_is_an_error() -> None:
    with pytest.raises(InputError, match="same shape"):
        ratio_of_means([1.0, 2.0], [1.0, 2.0, 3.0])


def test_fpc_theta() -> None:
    assert fpc_theta(10, None) == 1.0
    assert fpc_theta(10, 101) == pytest.approx(0.91)
    assert fpc_theta(5, 5) == 0.0  # a census: no sampling variance
    with pytest.raises(InputError, match="at least the number of units"):
        fpc_theta(10, 5)
    with pytest.raises(InputError, match="population_size"):
        fpc_theta(3, 1)


def test_fpc_scales_variance_and_correction() -> None:
    b, a = np.array([1.0, 0.0, 2.0, 1.0]), np.array([2.0, 1.0, 3.0, 2.0])
    e1, s1 = ratio_of_means(b, a, theta=1.0)
    e0, s0 = ratio_of_means(b, a, theta=0.25)
    r = b.mean() / a.mean()
    assert float(s0) == pytest.approx(0.5 * float(s1))
    assert float(e0) - r == pytest.approx(0.25 * (float(e1) - r))


def test_ratio_estimate_result_and_interval() -> None:
    kw = {"level": 0.9, "design": "cluster", "name": "m"}
    e = ratio_estimate([1.0, 0.0, 0.0], [3.0, 1.0, 0.0], interval="normal", **kw)  # type: ignore[arg-type]
    assert isinstance(e, Estimate)
    z = normal_quantile(0.9)
    assert z == pytest.approx(1.6448536269514722)
    assert e.interval == pytest.approx((e.value - z * e.std, e.value + z * e.std))
    assert (e.n, e.level, e.method) == (3, 0.9, "ratio estimator (ratio form, cluster design)")
    with pytest.raises(AttributeError):
        e.value = 0.0  # type: ignore[misc]
    # the default widens the long side of a skewed estimate: Abar = 4/3, R = 1/4,
    # u = (B - R A) / Abar = (3/16, -3/16, 0): a = 0, so here it is the normal interval
    d = ratio_estimate([1.0, 0.0, 0.0], [3.0, 1.0, 0.0], **kw)  # type: ignore[arg-type]
    assert d.interval == pytest.approx(e.interval)
    assert (
        d.method == "ratio estimator (ratio form, cluster design, skew-corrected normal interval)"
    )


def test_affine_map() -> None:
    base = ratio_estimate([1.0, 2.0, 0.5], [2.0, 3.0, 1.0])
    mapped = ratio_estimate([1.0, 2.0, 0.5], [2.0, 3.0, 1.0], offset=1.0, scale=-2.0)
    assert mapped.value == pytest.approx(1.0 - 2.0 * base.value)
    assert mapped.std == pytest.approx(2.0 * base.std)


def test_undefined_estimate_has_a_note() -> None:
    e = ratio_estimate([0.0, 0.0], [0.0, 0.0])
    assert math.isnan(e.value) and "denominator is zero for every sampled unit" in e.warnings[0]


@pytest.mark.parametrize("level", [0.0, 1.0, -0.5, 1.5, float("nan")])
def test_level_must_be_inside_zero_one(level: float) -> None:
    with pytest.raises(InputError, match="'level'"):
        normal_quantile(level)


def test_confidence_interval_nan_propagates() -> None:
    assert all(math.isnan(x) for x in confidence_interval(0.5, math.nan, 0.95))
    lo, hi = confidence_interval(0.5, 0.1, 0.95)
    assert lo == pytest.approx(0.5 - 1.959963984540054 * 0.1)
    assert hi == pytest.approx(0.5 + 1.959963984540054 * 0.1)
