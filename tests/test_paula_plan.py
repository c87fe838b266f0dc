"""PAULA's annotation plan: the paper's counts, hand-worked plans and exact geometry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval import InputError, InputTypeError
from ereval.paula import minimum_r_tilde, paula_plan

from . import _paula_support as ref

# --------------------------------------------------------------------------- the paper


@pytest.mark.parametrize(
    ("n", "epsilon", "annotations", "where"),
    [
        (217_077, 0.03, 17_392, "§4.4.3, Science KB"),
        (35_615, 0.03, 11_292, "§5.2, PPDB subset, top of Figure 2"),
        (169_000_000, 0.03, 39_892, "§5.2, all of PPDB 2.0 ('40K')"),
        (2_000_000_000, 0.03, 48_292, "abstract, 2B items ('48K')"),
        (35_615, 0.05, 7_822, "§5.2, bottom of Figure 2"),
        (217_076, 0.03, 17_392, "§5.3 gives the Science KB as 217,076 triples"),
    ],
)
def test_paper_annotation_counts(n: int, epsilon: float, annotations: int, where: str) -> None:
    plan = paula_plan(n, epsilon=epsilon, delta=100)
    assert plan.annotations == annotations, where
    assert plan.ranks().size == annotations
    assert sum(b - a + 1 for a, b in plan.rank_ranges()) == annotations


def test_paper_constants_for_epsilon_003() -> None:
    # r~ = ceil(102 / 0.03) = 3400; ell = ceil(log_1.03 3400) = ceil(275.09) = 276;
    # g_276 = ceil(1.03^276) = ceil(3491.2) = 3492; m = floor(0.03 * 3491.2 - 1) = 103;
    # gamma = 1.03 + 2.03 / 103 = 1.049709; L = floor(log_1.03 217077) = 415;
    # annotations = 3492 + 100 * (415 - 276) = 17392.
    plan = paula_plan(217_077, epsilon=0.03, delta=100)
    assert (plan.r_tilde, plan.ell, plan.g_ell, plan.m, plan.L) == (3400, 276, 3492, 103, 415)
    assert plan.gamma == pytest.approx(1.03 + 2.03 / 103, rel=1e-15)
    # gamma (1 + epsilon) = 1.0609 + 2.0909 / 103 = 1.0812 exactly
    assert plan.approximation == pytest.approx(1.0812, rel=1e-14)


def test_paper_constants_for_epsilon_005() -> None:
    # r~ = ceil(102 / 0.05) = 2040; ell = ceil(log_1.05 2040) = ceil(156.0x) = 157;
    # g_157 = ceil(2121.6) = 2122; m = floor(0.05 * 2121.6 - 1) = 105;
    # L = floor(log_1.05 35615) = 214; 2122 + 100 * 57 = 7822.
    plan = paula_plan(35_615, epsilon=0.05, delta=100)
    assert (plan.r_tilde, plan.ell, plan.g_ell, plan.m, plan.L) == (2040, 157, 2122, 105, 214)


def test_stratified_setting_of_section_444() -> None:
    # r~ = 1000, epsilon = 0.03: ell = 234, m = floor(0.03 * 1008.x - 1) = 29, gamma = 1.1;
    # L = 311 for N = 10,000 and 389 for N = 100,000 (§4.4.4).
    for n, big_l in [(10_000, 311), (100_000, 389)]:
        c = ref.constants(n, 0.03, 1, r_tilde=1000)
        assert (c["ell"], c["m"], c["L"]) == (234, 29, big_l)


# --------------------------------------------------------------------------- hand-worked


def test_hand_worked_plan() -> None:
    # epsilon = 0.5, Delta = 2: r~ = ceil(4 / 0.5) = 8; 1.5^5 = 7.59 < 8 <= 1.5^6 = 11.39,
    # so ell = 6 and g_6 = 12; m = floor(0.5 * 11.39 - 1) = 4; gamma = 1.5 + 2.5 / 4;
    # N = 100: L = floor(log_1.5 100) = 11 (1.5^11 = 86.5, 1.5^12 = 129.7).
    # g_7..g_11 = ceil(17.09, 25.63, 38.44, 57.67, 86.50) = 18, 26, 39, 58, 87.
    plan = paula_plan(100, epsilon=0.5, delta=2)
    assert (plan.r_tilde, plan.ell, plan.g_ell, plan.m, plan.L) == (8, 6, 12, 4, 11)
    assert plan.gamma == 2.125
    assert plan.grid.tolist() == [12, 18, 26, 39, 58, 87]
    assert plan.rank_ranges() == [(1, 12), (17, 18), (25, 26), (38, 39), (57, 58), (86, 87)]
    assert plan.annotations == 12 + 2 * 5 == 22
    assert list(plan.iter_ranks()) == plan.ranks().tolist()
    assert plan.ranks().tolist() == [*range(1, 13), 17, 18, 25, 26, 38, 39, 57, 58, 86, 87]


def test_epsilon_one_uses_exact_powers_of_two() -> None:
    # epsilon = 1: g_j = 2^j exactly, a case where every power is an integer.
    plan = paula_plan(10**6, epsilon=1.0, delta=3)
    # r~ = 5, ell = 3 (2^3 = 8), m = floor(8 - 1) = 7, L = floor(log2 1e6) = 19
    assert (plan.r_tilde, plan.ell, plan.g_ell, plan.m, plan.L) == (5, 3, 8, 7, 19)
    assert plan.grid.tolist() == [2**j for j in range(3, 20)]


def test_explicit_r_tilde() -> None:
    plan = paula_plan(10**5, epsilon=0.1, delta=10, r_tilde=500)
    c = ref.constants(10**5, 0.1, 10, r_tilde=500)
    assert (plan.ell, plan.L, plan.m, plan.g_ell) == (c["ell"], c["L"], c["m"], c["g_ell"])
    assert plan.r_tilde == 500


def test_minimum_r_tilde_is_exact() -> None:
    # 102 / 0.03 is exactly 3400 (the binary double 0.03 would give 3400.0000000000005)
    assert minimum_r_tilde(epsilon=0.03, delta=100) == 3400
    assert minimum_r_tilde(epsilon=0.07, delta=5) == math.ceil(7 / 0.07 - 1e-9) == 100
    assert minimum_r_tilde(epsilon=0.3, delta=1) == 10


# --------------------------------------------------------------------------- small lists


def test_exhaustive_when_the_prefix_covers_the_list() -> None:
    plan = paula_plan(50, epsilon=0.1, delta=5)  # r~ = 70 > 50
    assert plan.exhaustive
    assert plan.annotations == 50
    assert plan.rank_ranges() == [(1, 50)]
    assert plan.approximation == 1.0
    assert plan.window_ends.size == 0


def test_list_ending_right_after_g_ell() -> None:
    # L = ell: only the prefix is annotated and nothing of the list is left out of it
    # unless n > g_ell.
    plan = paula_plan(13, epsilon=0.5, delta=2)
    assert (plan.ell, plan.L) == (6, 6)
    assert not plan.exhaustive
    assert plan.annotations == 12
    assert plan.rank_ranges() == [(1, 12)]


@settings(max_examples=40)
@given(
    n=st.integers(1, 5_000),
    epsilon=st.sampled_from([0.05, 0.1, 0.13, 0.2, 0.25, 0.3, 0.5, 0.77, 1.0]),
    delta=st.integers(1, 12),
    extra=st.integers(0, 40),
)
def test_plan_matches_the_definitions(n: int, epsilon: float, delta: int, extra: int) -> None:
    r_tilde = minimum_r_tilde(epsilon=epsilon, delta=delta) + extra
    plan = paula_plan(n, epsilon=epsilon, delta=delta, r_tilde=r_tilde)
    c = ref.constants(n, epsilon, delta, r_tilde)
    assert (plan.ell, plan.L, plan.m, plan.g_ell) == (c["ell"], c["L"], c["m"], c["g_ell"])
    assert plan.m >= delta + 1  # §4.2: m > epsilon (1+epsilon)^ell - 2 >= Delta
    expected = ref.planned_ranks(n, epsilon, delta, r_tilde)
    assert plan.ranks().tolist() == expected
    assert plan.annotations == len(expected)
    if not plan.exhaustive:
        assert plan.annotations == plan.g_ell + delta * (plan.L - plan.ell)
    everything = np.arange(-2, n + 3)
    assert np.flatnonzero(plan.contains(everything)).tolist() == [r + 2 for r in expected]


@settings(max_examples=25)
@given(
    digits=st.integers(1, 999),
    scale=st.sampled_from([1_000, 10_000]),
    first=st.integers(0, 400),
)
def test_geometric_points_are_exact(digits: int, scale: int, first: int) -> None:
    epsilon = digits / scale
    plan = paula_plan(10**15, epsilon=epsilon, delta=1)
    last = min(first + 30, plan.L)
    got = plan.geometric_points(min(first, last), last)
    assert got.tolist() == [ref.g(epsilon, j) for j in range(min(first, last), last + 1)]


def test_huge_list_plan_is_small() -> None:
    plan = paula_plan(2_000_000_000, epsilon=0.03, delta=100)
    ranks = plan.ranks()
    assert ranks.size == 48_292
    assert np.all(np.diff(ranks) > 0)
    assert ranks[-1] == plan.grid[-1] <= 2_000_000_000 < math.ceil(1.03 ** (plan.L + 1))
    assert plan.to_dict()["ranges"][0] == [1, 3492]


def test_select_picks_planned_labels() -> None:
    plan = paula_plan(100, epsilon=0.5, delta=2)
    v = np.arange(100) % 3
    assert plan.select(v).tolist() == (v[plan.ranks() - 1]).tolist()
    with pytest.raises(InputError, match=r"'labels' must have one entry per item .*n=100.*99"):
        plan.select(v[:99])


def test_to_dict_keys() -> None:
    d = paula_plan(35_615, epsilon=0.05, delta=100).to_dict()
    assert d["annotations"] == 7822
    assert set(d) >= {"n", "epsilon", "delta", "r_tilde", "ell", "L", "m", "gamma", "ranges"}
    assert sum(b - a + 1 for a, b in d["ranges"]) == 7822


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        (
            {"epsilon": 1.5, "delta": 100},
            InputError,
            r"'epsilon' must lie in \(0, 1\]; received 1.5",
        ),
        (
            {"epsilon": 0.0, "delta": 100},
            InputError,
            r"'epsilon' must lie in \(0, 1\]; received 0.0",
        ),
        ({"epsilon": -0.1, "delta": 100}, InputError, r"'epsilon' must lie in \(0, 1\]"),
        ({"epsilon": float("nan"), "delta": 100}, InputError, r"'epsilon' must be finite"),
        ({"epsilon": "0.03", "delta": 100}, InputTypeError, r"'epsilon' must be a real number"),
        ({"epsilon": 0.03, "delta": 0}, InputError, r"'delta' must be an integer >= 1; received 0"),
        ({"epsilon": 0.03, "delta": 2.5}, InputTypeError, r"'delta' must be an integer"),
        (
            {"epsilon": 0.03, "delta": 100, "r_tilde": 3399},
            InputError,
            r"'r_tilde' must be at least ceil\(\(delta \+ 2\) / epsilon\) = 3400 .*received 3399",
        ),
        (
            {"epsilon": 0.03, "delta": 100, "r_tilde": 0},
            InputError,
            r"'r_tilde' must be an integer >= 1",
        ),
    ],
)
def test_bad_parameters(kwargs: dict[str, object], exc: type[Exception], pattern: str) -> None:
    with pytest.raises(exc, match=pattern):
        paula_plan(1000, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("n", "exc", "pattern"),
    [
        (0, InputError, "'n' must be an integer >= 1; received 0"),
        (-5, InputError, "'n' must be an integer >= 1"),
        (10.0, InputTypeError, "'n' must be an integer; received 10.0"),
        (2**63, InputError, r"'n' must be at most 2\*\*62 items"),
    ],
)
def test_bad_n(n: object, exc: type[Exception], pattern: str) -> None:
    with pytest.raises(exc, match=pattern):
        paula_plan(n, epsilon=0.1, delta=5)  # type: ignore[arg-type]


def test_geometric_points_stay_in_the_list() -> None:
    plan = paula_plan(1000, epsilon=0.5, delta=2)
    assert plan.geometric_points(0, 3).tolist() == [1, 2, 3, 4]  # ceil(1, 1.5, 2.25, 3.375)
    with pytest.raises(InputError, match="'last' must be at most L = 17"):
        plan.geometric_points(0, 18)
