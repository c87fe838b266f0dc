"""The Wilson score interval of the ratio estimators: hand cases, properties, coverage near 1.

The default, skew-corrected beta interval has its own tests (test_estimators_skew_beta.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval._simulate import simulate
from ereval.estimators import estimate, ratio_interval, wilson_interval
from ereval.estimators._intervals import PSEUDO_UNIT, check_interval, effective_units

Z95 = 1.959963984540054


def test_no_error_seen_in_equal_draws_by_hand() -> None:
    # q = 1, V = 0, n_k = 200: n* = (1 - 1/200)/200 / (0.5/200^2) = 398;
    # the lower end of (1 - p)^2 = z^2 p (1 - p) / n* is n* / (n* + z^2)
    lo, hi = wilson_interval(1.0, 0.0, 200.0, level=0.95)
    n_star = (1 - 1 / 200) / 200 / (PSEUDO_UNIT / 200**2)
    assert float(lo) == pytest.approx(n_star / (n_star + Z95**2), rel=1e-12)
    assert float(hi) == 1.0
    # and symmetrically at 0
    lo0, hi0 = wilson_interval(0.0, 0.0, 200.0, level=0.95)
    assert float(lo0) == 0.0 and float(hi0) == pytest.approx(1 - float(lo), rel=1e-12)


def test_a_census_has_width_zero() -> None:
    lo, hi = wilson_interval(0.97, 0.0, 50.0, level=0.95, theta=0.0)
    assert (float(lo), float(hi)) == (0.97, 0.97)


def test_effective_units_is_kish() -> None:
    a = np.array([[1.0, 1.0, 1.0, 1.0], [4.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    out = effective_units(a)
    assert out[0] == 4.0 and out[1] == 1.0 and math.isnan(out[2])


def test_one_effective_draw_says_nothing() -> None:
    # n_k = 1: every denominator in one draw; no variance can be told
    lo, hi = wilson_interval(1.0, 0.0, 1.0, level=0.95)
    assert (float(lo), float(hi)) == (0.0, 1.0)


def test_nan_in_nan_out() -> None:
    lo, hi = wilson_interval([math.nan, 0.5], [0.01, math.nan], [10.0, 10.0], level=0.9)
    assert np.isnan(lo).all() and np.isnan(hi).all()


def test_normal_method_and_non_proportions_keep_the_clamped_normal_interval() -> None:
    a = np.ones(10)
    lo, hi = ratio_interval(0.99, 0.01, a, level=0.95, method="normal", bounds=(0.0, 1.0))
    assert (float(lo), float(hi)) == (pytest.approx(0.99 - Z95 * 0.01), 1.0)
    lo, hi = ratio_interval(
        0.99, 0.01, a, level=0.95, method="wilson", bounds=(0.0, 1.0), proportion=False
    )
    assert float(lo) == pytest.approx(0.99 - Z95 * 0.01)
    lo, hi = ratio_interval(
        2.0, 0.1, a, level=0.95, method="wilson", bounds=(1.0, math.inf), proportion=True
    )
    assert (float(lo), float(hi)) == (
        pytest.approx(2.0 - Z95 * 0.1),
        pytest.approx(2.0 + Z95 * 0.1),
    )


def test_bad_method_is_named() -> None:
    with pytest.raises(
        ValueError, match="'interval' must be one of 'skew_beta', 'wilson', 'normal'"
    ):
        check_interval("wald")
    with pytest.raises(ValueError, match="'interval'"):
        estimate({1: 1, 2: 1}, {1: "a", 2: "a"}, design="record", interval="wald")  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(
    q=st.floats(0.0, 1.0),
    v=st.floats(0.0, 0.05),
    nk=st.floats(1.5, 2000.0),
    level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_the_ends_solve_the_score_equation(q: float, v: float, nk: float, level: float) -> None:
    """Brute force: the ends are the roots of (q - p)^2 = z^2 p (1 - p) / n*, widened to hold q."""
    lo, hi = (float(x) for x in wilson_interval(q, v, nk, level=level))
    assert 0.0 <= lo <= q <= hi <= 1.0
    z = float(__import__("statistics").NormalDist().inv_cdf(0.5 + level / 2))
    n_star = max(q * (1 - q), (1 - 1 / nk) / nk) / (v + PSEUDO_UNIT / nk**2)
    grid = np.linspace(0.0, 1.0, 20001)
    inside = (q - grid) ** 2 <= z * z * grid * (1 - grid) / n_star + 1e-15
    if inside.any():
        assert lo == pytest.approx(min(grid[inside].min(), q), abs=1e-4)
        assert hi == pytest.approx(max(grid[inside].max(), q), abs=1e-4)
    # a larger variance never narrows the interval
    lo2, hi2 = (float(x) for x in wilson_interval(q, v * 2 + 1e-6, nk, level=level))
    assert lo2 <= lo + 1e-12 and hi2 >= hi - 1e-12


def _census_like(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """People seen in 1 to 6 sources, 1% in many; a prediction that splits a few of them."""
    rng = np.random.default_rng(seed)
    k = np.maximum(rng.binomial(6, 0.45, size=6000), 1)
    big = rng.random(k.size) < 0.01
    k[big] += rng.integers(5, 40, size=int(big.sum()))
    truth = np.repeat(np.arange(k.size), k)
    pred = truth.copy()
    # split one record off 40 people of 3+ records: pairwise recall about 0.99
    people = rng.choice(np.flatnonzero(k >= 3), size=40, replace=False)
    starts = np.concatenate([[0], np.cumsum(k)[:-1]])
    pred[starts[people]] = truth.max() + 1 + np.arange(people.size)
    return truth, pred


@pytest.mark.parametrize("design", ["record", "cluster"])
def test_coverage_near_one_at_200_draws(design: str) -> None:
    """Seeded Monte Carlo: at 200 draws, values within 0.01 of 1, the beta and Wilson intervals
    hold 95%; normal not."""
    truth, pred = _census_like(7)
    keys = "pairwise_recall,b3_recall,completeness,b3_entity_recall,cluster_recall"
    repeats = 600
    kw = {"weights": "cluster_size"} if design == "cluster" else {}
    out = {
        iv: simulate(
            truth,
            pred,
            sample_size=200,
            repeats=repeats,
            design=design,  # type: ignore[arg-type]
            estimators=keys,
            naive=False,
            seed=11,
            interval=iv,  # type: ignore[arg-type]
            **kw,
        ).summary.set_index("estimator")
        for iv in ("skew_beta", "wilson", "normal")
    }
    se = math.sqrt(0.95 * 0.05 / repeats)
    wilson = out["wilson"]
    assert (wilson["true_value"] > 0.98).all(), wilson["true_value"]
    for iv in ("skew_beta", "wilson"):
        for key, row in out[iv].iterrows():
            assert row["coverage"] >= 0.95 - 3 * se - 0.01, (iv, key, row["coverage"])
    # the normal interval collapses when the sample sees no error
    normal = out["normal"]
    assert normal.loc["pairwise_recall", "coverage"] < 0.95 - 3 * se
    assert (normal["coverage"] <= wilson["coverage"] + 1e-12).all()
