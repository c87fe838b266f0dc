"""The skew-corrected beta interval: hand cases, brute-force references, properties, coverage.

References used here: the Clopper-Pearson ends are checked against a direct
inversion of the binomial tails (root finding on ``scipy.stats.binom``, not the
incomplete beta function the implementation uses) and the closed forms at
``x = 0`` and ``x = n``; Hall's (1992) quantiles against his forward
transformation ``g(T) = T + a T^2/3 + a^2 T^3/27 + a/6``; the skewness against a
direct sum over the linearised terms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from ereval import example
from ereval._simulate import simulate
from ereval.estimators import beta_interval, estimate, ratio_interval
from ereval.estimators._intervals import (
    DEFAULT_INTERVAL,
    PSEUDO_UNIT,
    effective_sample_size,
    effective_units,
)
from ereval.estimators._skewness import SKEW_CAP, ratio_skewness, skew_quantiles

Z95 = 1.959963984540054


def _binomial_tail_ends(x: int, n: int, alpha: float) -> tuple[float, float]:
    """Clopper-Pearson by brute force: p with P(X >= x) = alpha/2 and P(X <= x) = alpha/2."""
    lo = 0.0 if x == 0 else optimize.brentq(lambda p: stats.binom.sf(x - 1, n, p) - alpha / 2, 0, 1)
    hi = 1.0 if x == n else optimize.brentq(lambda p: stats.binom.cdf(x, n, p) - alpha / 2, 0, 1)
    return lo, hi


def test_default_is_the_skew_corrected_beta_interval() -> None:
    assert DEFAULT_INTERVAL == "skew_beta"


@pytest.mark.parametrize(("x", "n"), [(7, 10), (1, 29), (15, 148), (81, 263), (199, 200)])
def test_beta_interval_inverts_the_binomial_tails(x: int, n: int) -> None:
    lo, hi = beta_interval(x / n, float(n), z_lower=Z95, z_upper=Z95)
    ref_lo, ref_hi = _binomial_tail_ends(x, n, 0.05)
    assert float(lo) == pytest.approx(ref_lo, abs=1e-9)
    assert float(hi) == pytest.approx(ref_hi, abs=1e-9)


def test_beta_interval_closed_forms_at_the_edges() -> None:
    # x = 0: the upper end solves (1 - p)^n = alpha/2; x = n: the lower end p^n = alpha/2
    lo, hi = beta_interval(0.0, 20.0, z_lower=Z95, z_upper=Z95)
    assert (float(lo), float(hi)) == (0.0, pytest.approx(1 - 0.025 ** (1 / 20)))
    assert float(hi) == pytest.approx(0.1684, abs=1e-4)
    lo, hi = beta_interval(1.0, 20.0, z_lower=Z95, z_upper=Z95)
    assert (float(lo), float(hi)) == (pytest.approx(0.025 ** (1 / 20)), 1.0)


def test_beta_interval_tails_are_separate() -> None:
    # a larger z_lower moves only the lower end, to the alpha = Phi(-z_lower) quantile
    lo1, hi1 = beta_interval(0.7, 50.0, z_lower=Z95, z_upper=Z95)
    lo2, hi2 = beta_interval(0.7, 50.0, z_lower=3.0, z_upper=Z95)
    assert float(hi2) == float(hi1) and float(lo2) < float(lo1)
    assert float(lo2) == pytest.approx(stats.beta.ppf(stats.norm.cdf(-3.0), 35.0, 16.0))


def test_beta_interval_census_nothing_and_nan() -> None:
    lo, hi = beta_interval([0.97, 0.97, math.nan], [math.inf, 0.0, 10.0], z_lower=Z95, z_upper=Z95)
    assert (lo[0], hi[0]) == (0.97, 0.97)
    assert (lo[1], hi[1]) == (0.0, 1.0)
    assert math.isnan(lo[2]) and math.isnan(hi[2])


@settings(max_examples=100, deadline=None)
@given(q=st.floats(0.0, 1.0), n=st.floats(1.0, 5000.0), zl=st.floats(1.0, 4.0))
def test_beta_interval_properties(q: float, n: float, zl: float) -> None:
    lo, hi = (float(v) for v in beta_interval(q, n, z_lower=zl, z_upper=Z95))
    assert 0.0 <= lo <= q <= hi <= 1.0
    # more draws never widen it; a larger quantile never narrows it
    lo2, hi2 = (float(v) for v in beta_interval(q, 2 * n, z_lower=zl, z_upper=Z95))
    assert lo2 >= lo - 1e-9 and hi2 <= hi + 1e-9
    lo3, _ = (float(v) for v in beta_interval(q, n, z_lower=zl + 0.5, z_upper=Z95))
    assert lo3 <= lo + 1e-12


def test_skewness_by_hand() -> None:
    # B = (1,...,1, 0), A = (1,...,1, 4): Abar = 1.3, R = 0.9/1.3; u_s = (B_s - R A_s)/Abar
    b = np.r_[np.ones(9), 0.0]
    a = np.r_[np.ones(9), 4.0]
    r = 0.9 / 1.3
    u = (b - r * a) / 1.3
    expected = (u**3).sum() / (u**2).sum() ** 1.5
    assert float(ratio_skewness(b, a)) == pytest.approx(expected)
    assert float(ratio_skewness(b, a)) == pytest.approx(-0.84327404)
    # the pseudo-unit damps it; a negative scale turns it over
    damped = (u**3).sum() / ((u**2).sum() + 2.0) ** 1.5
    assert float(ratio_skewness(b, a, pseudo=2.0)) == pytest.approx(damped)
    assert float(ratio_skewness(b, a, scale=-1.0)) == pytest.approx(-expected)
    # no error seen: every term is 0, the skewness 0
    assert float(ratio_skewness(np.ones(5), np.ones(5))) == 0.0


@settings(max_examples=100, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.floats(0.0, 100.0), st.floats(0.01, 100.0)), min_size=2, max_size=40
    ),
    factor=st.floats(0.01, 100.0),
)
def test_skewness_properties(data: list[tuple[float, float]], factor: float) -> None:
    b = np.array([min(x, y) for x, y in data])
    a = np.array([y for _, y in data])
    s = float(ratio_skewness(b, a))
    assert -1.0 <= s <= 1.0
    # invariant under a common rescaling of B and A, and of the draws' order
    assert float(ratio_skewness(b * factor, a * factor)) == pytest.approx(s, abs=1e-9)
    assert float(ratio_skewness(b[::-1], a[::-1])) == pytest.approx(s, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(a=st.floats(-1.0, 1.0))
def test_skew_quantiles_invert_halls_transformation(a: float) -> None:
    """Brute force: g(tau) returns the normal quantile, where it is not capped."""
    zl, zu = (float(v[0]) for v in skew_quantiles([a], Z95))
    assert Z95 <= zl <= SKEW_CAP * Z95 and Z95 <= zu <= SKEW_CAP * Z95

    def g(t: float) -> float:
        return t + a * t * t / 3 + a * a * t**3 / 27 + a / 6

    if a < 0 and Z95 < zl < SKEW_CAP * Z95:
        assert g(zl) == pytest.approx(Z95, abs=1e-9)
        assert zu == Z95  # the short side is not shortened
    if a > 0 and Z95 < zu < SKEW_CAP * Z95:
        assert g(-zu) == pytest.approx(-Z95, abs=1e-9)
        assert zl == Z95


def test_skew_quantiles_hand_values() -> None:
    # a = -0.2: tau(z) = -15 ((1 - 0.2 (z + 1/30))^(1/3) - 1)
    zl, zu = skew_quantiles(np.array([-0.2]), Z95)
    assert float(zl[0]) == pytest.approx(-15 * ((1 - 0.2 * (Z95 + 1 / 30)) ** (1 / 3) - 1))
    assert float(zu[0]) == Z95
    # large |a|: capped at 2 z
    zl, _ = skew_quantiles(np.array([-0.5]), Z95)
    assert float(zl[0]) == SKEW_CAP * Z95


def test_ratio_interval_matches_a_direct_computation() -> None:
    """The skew_beta interval of a ratio estimate, recomputed step by step."""
    rng = np.random.default_rng(5)
    a = rng.integers(1, 30, size=60).astype(float)
    b = a.copy()
    b[[3, 17]] = [0.0, 2.0]  # two draws with large errors
    from ereval.estimators import ratio_of_means

    est, std = (float(x) for x in ratio_of_means(b, a))
    lo, hi = ratio_interval(
        est, std, a, numerator=b, level=0.95, bounds=(0.0, 1.0), proportion=True
    )
    n = a.size
    n_k = a.sum() ** 2 / (a * a).sum()
    n_star = max(est * (1 - est), (1 - 1 / n_k) / n_k) / (std**2 + PSEUDO_UNIT / n_k**2)
    assert float(effective_units(a)) == pytest.approx(n_k)
    assert float(effective_sample_size(est, std**2, n_k)) == pytest.approx(n_star)
    u = (b - b.mean() / a.mean() * a) / a.mean()
    skew = (u**3).sum() / ((u**2).sum() + PSEUDO_UNIT * n * (n - 1) / n_k**2) ** 1.5
    assert skew < 0
    t = (3 / skew) * (np.cbrt(1 + skew * (Z95 - skew / 6)) - 1)
    z_lower = min(max(t, Z95), 2 * Z95)
    x = est * n_star
    ref_lo = stats.beta.ppf(stats.norm.cdf(-z_lower), x, n_star - x + 1)
    ref_hi = stats.beta.ppf(stats.norm.cdf(Z95), x + 1, n_star - x)
    assert (float(lo), float(hi)) == (pytest.approx(ref_lo), pytest.approx(ref_hi))
    # the long (lower) side is longer than the equal-tailed beta interval's
    eq_lo, eq_hi = beta_interval(est, n_star, z_lower=Z95, z_upper=Z95)
    assert float(lo) < float(eq_lo) and float(hi) == pytest.approx(float(eq_hi))


def test_non_proportions_get_a_skew_widened_normal_interval() -> None:
    a = np.ones(40)
    b = np.r_[np.full(39, 2.0), 30.0]  # one large value: skewed to the right
    est, std = 2.7, 0.7
    lo, hi = ratio_interval(est, std, a, numerator=b, level=0.95, bounds=(1.0, math.inf))
    assert float(lo) == pytest.approx(est - Z95 * std)
    assert float(hi) > est + Z95 * std
    with pytest.raises(ValueError, match="'numerator'"):
        ratio_interval(est, std, a, level=0.95, bounds=(1.0, math.inf))


@pytest.mark.parametrize("design", ["record", "cluster"])
def test_coverage_under_rare_large_wrong_merges(design: str) -> None:
    """Seeded Monte Carlo (a second): the bundled example's last release merges whole families
    (pairwise precision 0.77); samples that miss the rare large wrong merges estimate it too
    high with a small standard error, so the equal-tailed intervals miss on the long side."""
    truth = example.load("truth.csv")
    pred = example.load("releases/2024-10-01.csv")
    repeats = 800
    kw = {"weights": "cluster_size"} if design == "cluster" else {}
    res = {
        iv: simulate(
            truth,
            pred,
            sample_size=200,
            repeats=repeats,
            design=design,  # type: ignore[arg-type]
            estimators="pairwise_precision,pairwise_f1",
            naive=False,
            seed=4,
            interval=iv,  # type: ignore[arg-type]
            **kw,
        ).summary.set_index("estimator")
        for iv in ("skew_beta", "wilson")
    }
    se = math.sqrt(0.95 * 0.05 / repeats)
    skew, wilson = res["skew_beta"], res["wilson"]
    assert (skew["true_value"] < 0.9).all(), skew["true_value"]
    for key in skew.index:
        assert skew.loc[key, "coverage"] >= 0.95 - 3 * se - 0.01, (key, skew.loc[key, "coverage"])
        assert wilson.loc[key, "coverage"] < 0.95 - 3 * se, (key, wilson.loc[key, "coverage"])


def test_estimate_uses_the_default() -> None:
    pred = {i: i // 3 for i in range(30)}
    sample = {i: i // 3 for i in range(12)}
    est = estimate(pred, sample, design="cluster", weights="uniform", metrics="pairwise_recall")
    assert est["pairwise_recall"].method.endswith("skew-corrected beta interval)")
