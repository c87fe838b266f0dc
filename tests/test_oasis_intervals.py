"""The interval maths of ``ereval.oasis._intervals``: brute force, Monte Carlo, hand cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ereval.oasis._intervals import (
    PRIOR_EVENTS,
    Cells,
    beta_prior,
    combine_intervals,
    measure_of,
    model_interval,
    one_draw_interval,
)

Z95 = 1.959963984540054


def _g(c: np.ndarray, alpha: float) -> float:
    den = alpha * c[1] + (1 - alpha) * c[2]
    return c[0] / den if den > 0 else math.nan


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.5, 1.0])
def test_one_draw_interval_matches_a_loop(alpha: float) -> None:
    rng = np.random.default_rng(1)
    counts = np.array([30.0, 50.0, 60.0])
    steps = rng.normal(0, 8, (40, 3))
    steps[:5] = [[-30.0, -50.0, -60.0]] * 5  # moves that leave F undefined
    weights = rng.uniform(0.1, 2.0, 40)
    f = _g(counts, alpha)
    down = up = 0.0
    for step, w in zip(steps, weights, strict=True):
        moved = _g(counts + step, alpha)
        if math.isnan(moved):
            down += w * f**2
            up += w * (1 - f) ** 2
            continue
        d = min(max(moved, 0.0), 1.0) - f
        if d < 0:
            down += w * d * d
        else:
            up += w * d * d
    lo, hi = one_draw_interval(counts, alpha, steps, weights, level=0.95)
    assert lo == pytest.approx(f - Z95 * math.sqrt(down), rel=1e-12)
    assert hi == pytest.approx(f + Z95 * math.sqrt(up), rel=1e-12)


def test_one_draw_interval_is_the_wald_interval_for_small_symmetric_moves() -> None:
    # each kind of draw both added (expected number 1) and removed: for small steps the two
    # sides are the delta-method variance sum_j (grad g . step_j)^2
    counts = np.array([400.0, 500.0, 700.0])
    rng = np.random.default_rng(2)
    kinds = rng.uniform(0, 1, (30, 3)) * [1.0, 1.5, 1.5]
    kinds[:, 1] = np.maximum(kinds[:, 1], kinds[:, 0])
    kinds[:, 2] = np.maximum(kinds[:, 2], kinds[:, 0])
    steps = np.concatenate([kinds, -kinds])
    lo, hi = one_draw_interval(counts, 0.5, steps, np.ones(60), level=0.95)
    den = 0.5 * counts[1] + 0.5 * counts[2]
    f = counts[0] / den
    grad = np.array([1.0, -0.5 * f, -0.5 * f]) / den
    var = float(np.sum((kinds @ grad) ** 2))
    assert f - lo == pytest.approx(Z95 * math.sqrt(var), rel=0.02)
    assert hi - f == pytest.approx(Z95 * math.sqrt(var), rel=0.02)


def test_one_draw_interval_of_an_undefined_measure_is_nan() -> None:
    lo, hi = one_draw_interval(np.zeros(3), 0.5, np.ones((2, 3)), np.ones(2), level=0.95)
    assert math.isnan(lo) and math.isnan(hi)


def test_a_single_draw_gives_the_whole_range() -> None:
    # one true positive of weight 10: without it F is undefined
    lo, hi = one_draw_interval(
        np.array([10.0, 10.0, 10.0]), 0.5, -np.array([[10.0, 10.0, 10.0]]), np.ones(1), level=0.95
    )
    assert lo <= 0.0 and hi >= 1.0


def test_beta_prior_holds_the_rarer_outcome_as_pseudo_events() -> None:
    a, b = beta_prior(np.array([0.5, 0.001, 0.999, 0.0]))
    assert a[:3].tolist() == pytest.approx([1.0, 1.0, 999.0])
    assert b[:3].tolist() == pytest.approx([1.0, 999.0, 1.0])
    assert np.minimum(a, b).tolist() == pytest.approx([PRIOR_EVENTS] * 4)
    a2, b2 = beta_prior(np.array([0.2]), events=3.0)
    assert (a2[0], b2[0]) == pytest.approx((3.0, 12.0))


def test_cells_moments_are_those_of_beta_binomial_counts() -> None:
    cells = Cells.from_labels(
        np.array([20.0, 300.0, 0.0]),
        np.array([5.0, 40.0, 10.0]),
        np.array([2.0, 0.0, 10.0]),
        np.array([0.3, 0.01, 0.9]),
    )
    mean, var = cells.moments()
    dists = [
        stats.betabinom(int(u), a, b)
        for u, a, b in zip(cells.unlabelled, cells.a, cells.b, strict=True)
    ]
    assert mean == pytest.approx(sum(d.mean() for d in dists))
    assert var == pytest.approx(sum(d.var() for d in dists))
    # posterior: prior (1 / 0.3 pseudo-pairs around 0.3) plus the labels
    assert cells.a[0] == pytest.approx(1.0 + 2.0) and cells.b[0] == pytest.approx(
        1 / 0.3 * 0.7 + 3.0
    )


def _model_mc(known, alpha, above, below, rng, draws=200_000):  # type: ignore[no-untyped-def]
    def total(cells: Cells) -> np.ndarray:
        out = np.zeros(draws)
        for u, a, b in zip(cells.unlabelled, cells.a, cells.b, strict=True):
            out += rng.binomial(int(u), rng.beta(a, b, draws))
        return out

    x1, x0 = total(above), total(below)
    tp_l, pp, p_l = known
    f = (tp_l + x1) / (alpha * pp + (1 - alpha) * (p_l + x1 + x0))
    return np.quantile(f, [0.025, 0.975])


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_model_interval_against_monte_carlo(alpha: float) -> None:
    # rare matches below the threshold (5,000 pairs, probabilities 0.2%, few labels) and a
    # predicted side with a few unlabelled pairs of uncertain precision
    above = Cells.from_labels(
        np.array([12.0, 3.0]), np.array([30.0, 5.0]), np.array([27.0, 4.0]), np.array([0.9, 0.7])
    )
    below = Cells.from_labels(
        np.array([4000.0, 900.0]),
        np.array([60.0, 40.0]),
        np.array([0.0, 1.0]),
        np.array([0.002, 0.01]),
    )
    known = (31.0, 50.0, 32.0)  # 31 TP labelled, 50 predicted, 32 matches labelled
    lo, hi = model_interval(known, alpha, above, below, level=0.95)
    mc = _model_mc(known, alpha, above, below, np.random.default_rng(3))
    # the gamma approximation of the counts: within 0.03 of the Monte Carlo quantiles
    # (whose own error is below 0.002 with 200,000 draws)
    assert lo == pytest.approx(mc[0], abs=0.03)
    assert hi == pytest.approx(mc[1], abs=0.03)


def test_model_interval_without_unlabelled_pairs_is_the_exact_value() -> None:
    empty = Cells(np.zeros(2), np.ones(2), np.ones(2))
    lo, hi = model_interval((8.0, 10.0, 12.0), 0.5, empty, empty, level=0.95)
    assert lo == pytest.approx(8 / 11, abs=1e-4) and hi == pytest.approx(8 / 11, abs=1e-4)


def test_model_interval_reaches_the_range_ends() -> None:
    # nothing labelled; the predicted pairs may all be matches or none: precision spans [0, 1]
    above = Cells.from_labels(np.array([4.0]), np.array([0.0]), np.array([0.0]), np.array([0.5]))
    none = Cells(np.zeros(1), np.ones(1), np.ones(1))
    lo, hi = model_interval((0.0, 4.0, 0.0), 1.0, above, none, level=0.95)
    assert lo < 0.05 and hi > 0.95


def test_combine_intervals_takes_the_hull_and_clamps() -> None:
    std, (lo, hi) = combine_intervals(0.5, (0.3, 0.6), (0.4, 0.8), level=0.95)
    assert (lo, hi) == (0.3, 0.8) and std == pytest.approx(0.5 / (2 * Z95))
    std, (lo, hi) = combine_intervals(0.9, (0.7, 1.3), None, level=0.95)
    assert (lo, hi) == (0.7, 1.0) and std == pytest.approx(0.6 / (2 * Z95))
    std, interval = combine_intervals(math.nan, (0.1, 0.2), (0.1, 0.2), level=0.95)
    assert math.isnan(std) and all(math.isnan(v) for v in interval)


def test_measure_of() -> None:
    c = np.array([[3.0, 4.0, 6.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    assert measure_of(c, 0.5).tolist()[0] == pytest.approx(0.6)
    assert math.isnan(measure_of(c, 0.5)[1]) and measure_of(c, 0.5)[2] == 0.0
    assert measure_of(c, 1.0)[0] == 0.75 and measure_of(c, 0.0)[0] == 0.5
