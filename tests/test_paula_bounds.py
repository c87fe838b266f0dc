"""PAULA's bounds: hand-worked Algorithm 2, a brute-force reference, and the guarantees."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ereval import InputError, InputTypeError
from ereval.paula import (
    MonotonicityWarning,
    PaulaPlan,
    load_labels,
    minimum_r_tilde,
    paula_bounds,
    paula_plan,
)

from . import _paula_support as ref

# --------------------------------------------------------------------------- hand-worked

# epsilon = 0.5, Delta = 2, N = 100: r~ = 8, ell = 6, L = 11, m = 4, gamma = 2.125,
# points g_6..g_11 = 12, 18, 26, 39, 58, 87 (see test_paula_plan.test_hand_worked_plan).
HAND_PLAN = paula_plan(100, epsilon=0.5, delta=2)
# Labels: the prefix 1..12 all positive; windows (17,18)=(1,1), (25,26)=(1,0),
# (38,39)=(0,1), (57,58)=(0,0), (86,87)=(0,0).
HAND_LABELS = {r: 1 for r in range(1, 13)} | {
    17: 1,
    18: 1,
    25: 1,
    26: 0,
    38: 0,
    39: 1,
    57: 0,
    58: 0,
    86: 0,
    87: 0,
}


def hand_bounds() -> object:
    ranks, labels = load_labels(HAND_LABELS)
    return paula_bounds(HAND_PLAN, ranks, labels)


def test_hand_worked_algorithm_2() -> None:
    b = hand_bounds()
    # p_delta at the points: 12 -> 1, 18 -> 1, 26 -> 1/2, 39 -> 1/2, 58 -> 0, 87 -> 0.
    assert b.window_positives.tolist() == [2, 2, 1, 1, 0, 0]
    # Y- adds (g_{k+1} - g_k) p_delta(g_{k+1}); Y+ adds (g_{k+1} - g_k) p_delta(g_k):
    # Y-: 12, 12 + 6*1 = 18, 18 + 8*.5 = 22, 22 + 13*.5 = 28.5, 28.5 + 19*0, 28.5 + 29*0
    # Y+: 12, 12 + 6*1 = 18, 18 + 8*1 = 26, 26 + 13*.5 = 32.5, 32.5 + 19*.5 = 42, 42 + 0
    assert b.yield_lower_grid.tolist() == [12, 18, 22, 28.5, 28.5, 28.5]
    assert b.yield_upper_grid.tolist() == [12, 18, 26, 32.5, 42, 42]
    # q-(g_k) = Y-/g_k and q+(g_k) = Y+/g_k; the envelope equals them at the points.
    grid = HAND_PLAN.grid
    np.testing.assert_allclose(b.lower(grid), [1, 1, 22 / 26, 28.5 / 39, 28.5 / 58, 28.5 / 87])
    np.testing.assert_allclose(b.upper(grid), [1, 1, 1, 32.5 / 39, 42 / 58, 42 / 87])
    # Lemma 4: gamma Y- >= Y+ (2.125 * 28.5 = 60.6 >= 42).
    assert np.all(HAND_PLAN.gamma * b.yield_lower_grid >= b.yield_upper_grid)


def test_hand_worked_envelope_between_points() -> None:
    b = hand_bounds()
    # r = 50, between g = 39 and 58; the last point <= r - m = 46 is 39:
    #   upper Y = min(50, Y+(39) + 11, Y+(58), Y+(39) + 11 p_delta(39))
    #           = min(50, 43.5, 42, 32.5 + 5.5) = 38
    #   lower Y = max(Y-(39), Y-(58) - 8) = max(28.5, 20.5) = 28.5
    assert b.yield_at(50).upper == 38 and b.yield_at(50).lower == 28.5
    assert b.precision_at(50).upper == pytest.approx(38 / 50)
    # r = 40: the last point <= 36 is 26: Y+(26) + 14 p_delta(26) = 26 + 7 = 33
    #   (smaller than Y+(39) + 1 = 33.5 and Y+(58) = 42).
    assert b.yield_at(40).upper == 33 and b.yield_at(40).lower == 28.5
    # r = 100 (after g_L = 87): Y+(87) + 13 p_delta(87) = 42; lower Y-(87) = 28.5.
    assert (b.yield_at(100).lower, b.yield_at(100).upper) == (28.5, 42)
    # Step functions (Definition 5) hold q(g_j) for the largest g_j <= r.
    assert b.step_lower([50]).tolist() == [28.5 / 39]
    assert b.step_upper([50, 57, 58]).tolist() == [32.5 / 39, 32.5 / 39, 42 / 58]
    # The prefix is exact: p(5) = 1 for every kind of bound.
    for f in (b.lower, b.upper, b.step_lower, b.step_upper):
        assert f([5]).tolist() == [1.0]


# --------------------------------------------------------------------------- reference


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    epsilon=st.sampled_from([0.1, 0.2, 0.25, 0.5, 1.0]),
    delta=st.integers(1, 6),
    extra=st.integers(0, 10),
)
def test_matches_the_definitions_on_any_list(
    seed: int, epsilon: float, delta: int, extra: int
) -> None:
    rng = np.random.default_rng(seed)
    r_tilde = minimum_r_tilde(epsilon=epsilon, delta=delta) + extra
    n = int(rng.integers(r_tilde, 8 * r_tilde + 2))
    v = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.int64)
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    b = paula_bounds(plan, plan.ranks(), plan.select(v), on_violation="ignore")
    if plan.exhaustive:
        r = np.arange(1, n + 1)
        np.testing.assert_array_equal(b.lower(r), np.cumsum(v) / r)
        np.testing.assert_array_equal(b.upper(r), np.cumsum(v) / r)
        return
    expect = ref.paula_reference(v, epsilon, delta, r_tilde)
    assert b.grid.tolist() == expect["grid"]
    assert [Fraction(x).limit_denominator(delta) for x in b.yield_lower_grid] == expect["y_lo"]
    assert [Fraction(x).limit_denominator(delta) for x in b.yield_upper_grid] == expect["y_hi"]
    # Definition 5 at every rank.
    c = ref.constants(n, epsilon, delta, r_tilde)
    ranks = np.arange(1, n + 1)
    lo_steps, hi_steps = b.step_lower(ranks), b.step_upper(ranks)
    for r in range(1, n + 1):
        if r <= c["g_ell"]:
            want_lo = want_hi = ref.p(v, r)
        else:
            j = ref.floor_log(epsilon, r)
            gj = ref.g(epsilon, j)
            want_lo = Fraction(expect["y_lo"][j - c["ell"]]) / gj
            want_hi = Fraction(expect["y_hi"][j - c["ell"]]) / gj
        assert lo_steps[r - 1] == pytest.approx(float(want_lo), rel=1e-12, abs=1e-15)
        assert hi_steps[r - 1] == pytest.approx(float(want_hi), rel=1e-12, abs=1e-15)


def test_step_reference_on_one_list() -> None:
    # the slow Definition-5 reference, once, on a fixed list
    rng = np.random.default_rng(7)
    v = (rng.random(200) < 0.6).astype(np.int64)
    plan = paula_plan(200, epsilon=0.25, delta=3)
    b = paula_bounds(plan, plan.ranks(), plan.select(v), on_violation="ignore")
    for r in (1, 20, 29, 30, 44, 45, 99, 150, 200):
        assert b.step_lower([r])[0] == pytest.approx(
            float(ref.step_reference(v, 0.25, 3, r, "lower"))
        )
        assert b.step_upper([r])[0] == pytest.approx(
            float(ref.step_reference(v, 0.25, 3, r, "upper"))
        )


# --------------------------------------------------------------------------- guarantees

monotone_cases = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "epsilon": st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]),
        "delta": st.integers(2, 24),
        "factor": st.integers(1, 4),
        "length": st.floats(1.0, 6.0),
    }
)


def monotone_case(case: dict[str, object]) -> tuple[PaulaPlan, np.ndarray]:
    eps = float(case["epsilon"])  # type: ignore[arg-type]
    delta = int(case["delta"])  # type: ignore[call-overload]
    r_tilde = minimum_r_tilde(epsilon=eps, delta=delta) * int(case["factor"])  # type: ignore[call-overload]
    n = int(r_tilde * float(case["length"]))  # type: ignore[arg-type]
    plan = paula_plan(n, epsilon=eps, delta=delta, r_tilde=r_tilde)
    rng = np.random.default_rng(int(case["seed"]))  # type: ignore[call-overload]
    v = ref.monotone_list(n, delta=delta, m=plan.m, r_tilde=r_tilde, rng=rng)
    return plan, v


def check_guarantees(plan: PaulaPlan, v: np.ndarray) -> tuple[bool, bool]:
    """Assert the guarantees on a (Delta, m)-monotone list ``v``; report which applied
    (Lemma 4's condition, A.1)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no MonotonicityWarning on a list satisfying A.2
        b = paula_bounds(plan, plan.ranks(), plan.select(v))
    n = v.size
    r = np.arange(1, n + 1)
    yield_true = np.cumsum(v)
    p = yield_true / r
    lo, hi = b.lower(r), b.upper(r)
    # the envelope contains p(r) at every rank (Lemma 3 and the interpolation)
    assert np.all(lo <= p + 1e-12)
    assert np.all(p <= hi + 1e-12)
    # Lemma 3 at the points
    if b.grid.size:
        y_at = yield_true[b.grid - 1]
        assert np.all(b.yield_lower_grid <= y_at + 1e-9)
        assert np.all(y_at <= b.yield_upper_grid + 1e-9)
    if not b.diagnostic.ratio_condition:
        return False, False
    # Lemma 4 at the points, gamma(1+epsilon) at every rank, gamma+epsilon beyond g_ell+m
    gamma, approx = plan.gamma, plan.approximation
    assert np.all(b.yield_upper_grid <= gamma * b.yield_lower_grid + 1e-9)
    pos = p > 0
    assert np.all(hi[pos] <= approx * lo[pos] * (1 + 1e-12))
    far = (r >= plan.g_ell + plan.m) & pos
    assert np.all(hi[far] <= (gamma + plan.epsilon) * lo[far] * (1 + 1e-12))
    if not ref.a1_holds(v, plan.m, plan.r_tilde):
        return True, False
    # Theorem 3: both step functions are pointwise gamma(1+epsilon)-approximations
    for step in (b.step_lower(r), b.step_upper(r)):
        assert np.all(step <= approx * p + 1e-12)
        assert np.all(p <= approx * step + 1e-12)
    return True, True


@settings(max_examples=80)
@given(case=monotone_cases)
def test_bounds_contain_the_precision_on_monotone_lists(case: dict[str, object]) -> None:
    plan, v = monotone_case(case)
    assume(ref.a2_holds(v, plan.delta, plan.m, plan.r_tilde))
    check_guarantees(plan, v)


def test_guarantees_over_a_seeded_sweep_of_larger_lists() -> None:
    # 30 seeded lists of up to 4,000 items with windows of up to 40 ranks and
    # r~ up to four times its minimum, beyond what the property test favours.
    rng = np.random.default_rng(20170811)
    applied = []
    for _ in range(30):
        eps = float(rng.choice([0.05, 0.1, 0.2, 0.3]))
        delta = int(rng.integers(5, 41))
        r_tilde = minimum_r_tilde(epsilon=eps, delta=delta) * int(rng.integers(1, 5))
        n = min(int(r_tilde * rng.uniform(2.0, 8.0)), 4000)
        if n <= r_tilde:
            continue
        plan = paula_plan(n, epsilon=eps, delta=delta, r_tilde=r_tilde)
        v = ref.monotone_list(n, delta=delta, m=plan.m, r_tilde=r_tilde, rng=rng)
        if ref.a2_holds(v, delta, plan.m, r_tilde):
            applied.append(check_guarantees(plan, v))
    # the sweep really exercised every guarantee on most lists
    assert len(applied) >= 20
    assert sum(a1 for _, a1 in applied) >= 15


def test_monotone_generator_satisfies_a2() -> None:
    # the generator behind the property test really produces (Delta, m)-monotone lists
    rng = np.random.default_rng(3)
    ok = 0
    for _ in range(20):
        plan = paula_plan(
            600, epsilon=0.2, delta=6, r_tilde=2 * minimum_r_tilde(epsilon=0.2, delta=6)
        )
        v = ref.monotone_list(600, delta=6, m=plan.m, r_tilde=plan.r_tilde, rng=rng)
        ok += ref.a2_holds(v, 6, plan.m, plan.r_tilde)
    assert ok >= 18


def test_a2_checker_rejects_a_late_rise() -> None:
    plan = paula_plan(600, epsilon=0.2, delta=6)
    v = np.r_[np.ones(200, np.int64), np.zeros(300, np.int64), np.ones(100, np.int64)]
    assert not ref.a2_holds(v, 6, plan.m, plan.r_tilde)
    assert ref.a2_holds(
        np.r_[np.ones(300, np.int64), np.zeros(300, np.int64)], 6, plan.m, plan.r_tilde
    )


def test_bounds_on_a_huge_list_need_only_the_planned_labels() -> None:
    # N = 2 * 10^9: labels exist only for the 48,292 planned ranks (a smooth decreasing
    # density, sampled deterministically); nothing of size N is ever built.
    plan = paula_plan(2_000_000_000, epsilon=0.03, delta=100)
    ranks = plan.ranks()
    density = 0.95 - 0.5 * np.log(ranks) / np.log(2e9)
    labels = (np.floor(np.cumsum(density)) != np.floor(np.cumsum(density) - density)).astype(int)
    b = paula_bounds(plan, ranks, labels, on_violation="ignore")
    iv = b.precision_at(2_000_000_000)
    assert 0.0 < iv.lower <= iv.upper < 1.0
    table = b.table()
    assert table["rank"].iloc[-1] == 2_000_000_000
    assert len(table) < 800


def test_sums_beyond_int64_stay_exact_until_the_division() -> None:
    # Delta * N > 2^62: the integer sums Delta * Y are kept as Python integers.
    plan = paula_plan(10**18, epsilon=0.5, delta=10)
    b = paula_bounds(plan, plan.ranks(), np.ones(plan.annotations, dtype=int))
    # every planned label positive: Y- = Y+ = g_k at every point
    np.testing.assert_allclose(b.yield_lower_grid, plan.grid.astype(float), rtol=1e-15)
    np.testing.assert_allclose(b.yield_upper_grid, plan.grid.astype(float), rtol=1e-15)
    assert b.precision_at(int(plan.grid[-1])).lower == pytest.approx(1.0, rel=1e-15)


# --------------------------------------------------------------------------- curves


def test_curves_and_read_offs() -> None:
    b = hand_bounds()
    curve = b.curve([5, 40, 50, 100], n_positives=60)
    assert curve["yield"].lower.tolist() == [5, 28.5, 28.5, 28.5]
    assert curve["yield"].upper.tolist() == [5, 33, 38, 42]
    np.testing.assert_allclose(curve["precision"].lower, curve["yield"].lower / [5, 40, 50, 100])
    np.testing.assert_allclose(curve["recall"].lower, np.array([5, 28.5, 28.5, 28.5]) / 60)
    np.testing.assert_allclose(curve["recall"].upper, np.array([5, 33, 38, 42]) / 60)
    # bounds that hold with certainty: level 1, a value only where they meet (rank 5)
    assert curve.level == 1.0 and curve.axis == "rank" and curve.points.tolist() == [5, 40, 50, 100]
    assert curve["precision"].value[0] == 1.0 and np.isnan(curve["precision"].value[1:]).all()
    assert curve.details == {"n_positives": [60.0, 60.0]}
    # an estimated number of positives widens recall: lower / high, upper / low
    est = b.curve([50], n_positives=(40, 80))
    assert est["recall"].lower.tolist() == [28.5 / 80] and est["recall"].upper.tolist() == [38 / 40]
    assert b.recall_at(50, n_positives=(40, 80)).upper == 38 / 40
    # capped at 1
    assert b.curve([100], n_positives=38)["recall"].upper.tolist() == [1.0]
    frame = curve.to_frame()
    assert list(frame.columns) == [
        "rank",
        *(
            f"{q}{s}"
            for q in ("precision", "yield", "recall")
            for s in ("", "_std", "_lower", "_upper")
        ),
    ]
    assert b.curve([40]).quantities == ("precision", "yield")
    iv = b.precision_at(40)
    assert (iv.lower, iv.upper) == (28.5 / 40, 33 / 40)
    assert iv.width == pytest.approx(4.5 / 40)


def test_default_ranks_and_table() -> None:
    b = hand_bounds()
    ranks = b.default_ranks()
    assert ranks[0] == 1 and ranks[-1] == 100
    assert set(range(1, 13)) <= set(ranks.tolist())
    assert set(HAND_PLAN.grid.tolist()) <= set(ranks.tolist())
    table = b.table()
    # log-spaced: ceil(1.5^j) for j = 0..11 (duplicates dropped) and N
    assert table["rank"].tolist() == [1, 2, 3, 4, 6, 8, 12, 18, 26, 39, 58, 87, 100]
    assert table["exact"].tolist() == [True] * 7 + [False] * 6
    assert list(table.columns[:6]) == [
        "rank",
        "exact",
        "precision_lower",
        "precision_upper",
        "step_lower",
        "step_upper",
    ]
    with_recall = b.table([50], n_positives=60)
    assert with_recall["recall_upper"].tolist() == [38 / 60]


def test_exhaustive_plan_gives_the_exact_precision() -> None:
    v = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1])
    plan = paula_plan(10, epsilon=0.2, delta=3)
    b = paula_bounds(plan, plan.ranks(), v, on_violation="ignore")
    r = np.arange(1, 11)
    exact = np.cumsum(v) / r
    for f in (b.lower, b.upper, b.step_lower, b.step_upper):
        np.testing.assert_array_equal(f(r), exact)


# --------------------------------------------------------------------------- bad input


def test_bad_labels() -> None:
    ranks = HAND_PLAN.ranks()
    labels = np.ones(ranks.size, dtype=int)
    with pytest.raises(InputError, match=r"'ranks' has 1 rank\(s\) that are not in the plan: 13"):
        paula_bounds(HAND_PLAN, np.append(ranks, 13), np.append(labels, 1))
    with pytest.raises(
        InputError, match=r"2 planned rank\(s\) have no label: 86-87 \(the plan needs 22"
    ):
        paula_bounds(HAND_PLAN, ranks[:-2], labels[:-2])
    with pytest.raises(
        InputError, match=r"'labels' must hold only 0 and 1; received 1 other value\(s\), e\.g\. 2"
    ):
        paula_bounds(HAND_PLAN, ranks, np.r_[labels[:-1], 2])
    with pytest.raises(
        InputError, match=r"'ranks' has 1 rank\(s\) labelled more than once \(e\.g\. 5\)"
    ):
        paula_bounds(HAND_PLAN, np.r_[ranks[:-1], 5], labels)
    with pytest.raises(InputError, match=r"'ranks' must lie in 1\.\.100 .*e\.g\. 101"):
        paula_bounds(HAND_PLAN, np.r_[ranks[:-1], 101], labels)
    with pytest.raises(InputError, match=r"same length; received 22 ranks and 21 labels"):
        paula_bounds(HAND_PLAN, ranks, labels[:-1])
    with pytest.raises(
        InputTypeError, match=r"'ranks' must hold integer ranks; received dtype float64"
    ):
        paula_bounds(HAND_PLAN, ranks.astype(float), labels)
    with pytest.raises(InputTypeError, match=r"'labels' must hold 0/1 values; received dtype <U1"):
        paula_bounds(HAND_PLAN, ranks, ["1"] * ranks.size)
    with pytest.raises(
        InputError, match=r"'on_violation' must be one of 'warn', 'raise', 'ignore'"
    ):
        paula_bounds(HAND_PLAN, ranks, labels, on_violation="loud")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"'tolerance' must lie in \[0, 1\]; received -0.1"):
        paula_bounds(HAND_PLAN, ranks, labels, tolerance=-0.1)


def test_bad_read_off_arguments() -> None:
    b = hand_bounds()
    with pytest.raises(
        InputError, match=r"'k' must lie in 1\.\.100; received 1 rank\(s\) outside it \(e\.g\. 0\)"
    ):
        b.precision_at(0)
    with pytest.raises(InputTypeError, match="'ranks' must hold integer ranks"):
        b.lower([1.5])
    with pytest.raises(
        InputTypeError, match=r"'k' must be an integer rank; received list \[5, 6\]"
    ):
        b.precision_at([5, 6])  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"'k' must be an integer rank; received 5.0"):
        b.yield_at(5.0)  # type: ignore[arg-type]
    with pytest.raises(
        InputError, match=r"'n_positives' must be at least the 16 positives already seen"
    ):
        b.curve([10], n_positives=15)
    with pytest.raises(
        InputError, match=r"'n_positives' must be a \(low, high\) pair with low <= high"
    ):
        b.curve([10], n_positives=(80, 40))
    with pytest.raises(InputError, match=r"'n_positives' must be positive"):
        b.curve([10], n_positives=(0, 40))
    with pytest.raises(InputError, match=r"'n_positives' must be a number or a \(low, high\) pair"):
        b.curve([10], n_positives=(1, 2, 3))


def test_violation_handling() -> None:
    # p_delta rises from 0 at g = 12 to 1 at g = 18: A.2 is contradicted
    labels = dict(HAND_LABELS) | {11: 0, 12: 0}
    ranks, values = load_labels(labels)
    with pytest.warns(MonotonicityWarning, match="violation"):
        b = paula_bounds(HAND_PLAN, ranks, values)
    assert not b.diagnostic.holds
    with pytest.raises(InputError, match="contradict PAULA's assumptions"):
        paula_bounds(HAND_PLAN, ranks, values, on_violation="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = paula_bounds(HAND_PLAN, ranks, values, on_violation="ignore")
        assert not quiet.diagnostic.holds
        # a tolerance of 1 hides every rise
        assert paula_bounds(HAND_PLAN, ranks, values, tolerance=1.0).diagnostic.holds
