"""The monotonicity diagnostic: fires on violating lists, never on monotone ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ereval import InputError
from ereval.paula import check_monotonicity, minimum_r_tilde, paula_plan

from . import _paula_support as ref


def report_for(plan: object, v: np.ndarray, **kw: float) -> object:
    return check_monotonicity(plan, plan.ranks(), plan.select(v), **kw)  # type: ignore[attr-defined]


def test_late_rise_is_reported_where_it_is_seen() -> None:
    # epsilon = 0.25, Delta = 4: r~ = 24, g_ell = 29, m = 6; points ... 1010, 1263, 1578,
    # 1973. Labels: 1 up to 500, 0 up to 1500, 1 after: p_delta is 0 at 1263 and 1 at
    # 1578 and 1973, a rise A.2 forbids.
    plan = paula_plan(2000, epsilon=0.25, delta=4)
    v = np.r_[np.ones(500, int), np.zeros(1000, int), np.ones(500, int)]
    rep = report_for(plan, v)
    assert not rep.holds
    pairs = [(x.assumption, x.quantity, x.earlier_rank, x.later_rank) for x in rep.violations]
    # the latest earlier witness is reported for each later point
    assert pairs == [("A.2", "local_precision", 1263, 1578), ("A.2", "local_precision", 1263, 1973)]
    assert rep.violations[0].earlier_value == 0.0 and rep.violations[0].later_value == 1.0
    assert rep.max_rise == 1.0
    assert rep.unreliable_from == 1264  # bounds up to 1263 use nothing beyond it
    assert rep.ratio_condition  # p(29) = 1 >= p_delta(29) = 1
    text = rep.summary()
    assert (
        "2 violation(s)" in text
        and "from rank 1264" in text
        and "rises from 0 at rank 1263" in text
    )
    d = rep.to_dict()
    assert (
        d["n_violations"] == 2 and d["holds"] is False and d["violations"][0]["later_rank"] == 1578
    )


def test_clean_report_and_ratio_condition() -> None:
    plan = paula_plan(2000, epsilon=0.25, delta=4)
    v = np.r_[np.ones(800, int), np.zeros(1200, int)]
    rep = report_for(plan, v)
    assert rep.holds and rep.unreliable_from is None and rep.max_rise == 0.0
    assert rep.summary().startswith("annotations are consistent")
    # Lemma 4's condition fails when the last Delta labels of the prefix are better
    # than the prefix as a whole: p(29) = 25/29 < p_delta(29) = 1.
    w = v.copy()
    w[:4] = 0
    rep2 = report_for(plan, w)
    assert not rep2.ratio_condition
    assert "gamma ratio between the bounds is not guaranteed" in rep2.summary()


def test_a1_violation_from_assumption_free_bounds() -> None:
    # epsilon = 0.25, Delta = 4, N = 60: r~ = 24, m = 6, points 29, 36, 45, 56.
    # Labels: ranks 1-26 negative, 27-29 positive, every window positive.
    # p(29) = 3/29 exactly; at 36 the 3 + 4 known positives give p(36) >= 7/36 with
    # no assumption at all, and 36 - 29 >= m: precision provably rises (A.1 fails).
    # p_delta(29) = 3/4 < p_delta(36) = 1 contradicts A.2 as well.
    plan = paula_plan(60, epsilon=0.25, delta=4)
    assert plan.grid.tolist() == [29, 36, 45, 56] and plan.m == 6
    v = np.zeros(60, int)
    v[plan.ranks() - 1] = 1
    v[:26] = 0
    rep = report_for(plan, v)
    first = {(x.assumption, x.later_rank): x for x in rep.violations}
    a1 = first[("A.1", 36)]
    assert (a1.earlier_rank, a1.earlier_value, a1.later_value) == (29, 3 / 29, 7 / 36)
    a2 = first[("A.2", 36)]
    assert (a2.earlier_rank, a2.earlier_value, a2.later_value) == (29, 0.75, 1.0)
    assert rep.unreliable_from == 30
    assert not ref.a1_holds(v, plan.m, plan.r_tilde)


def test_tolerance_hides_small_rises_only() -> None:
    plan = paula_plan(2000, epsilon=0.25, delta=4)
    v = np.r_[np.ones(500, int), np.zeros(1000, int), np.ones(500, int)]
    assert not report_for(plan, v, tolerance=0.5).holds  # the rise is 1
    assert report_for(plan, v, tolerance=1.0).holds
    with pytest.raises(InputError, match=r"'tolerance' must lie in \[0, 1\]; received 1.5"):
        report_for(plan, v, tolerance=1.5)


monotone_cases = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "epsilon": st.sampled_from([0.1, 0.2, 0.3, 0.5]),
        "delta": st.integers(2, 16),
        "factor": st.integers(1, 3),
        "length": st.floats(1.5, 5.0),
    }
)


def build(case: dict[str, float]) -> tuple[object, np.ndarray]:
    eps, delta = float(case["epsilon"]), int(case["delta"])
    r_tilde = minimum_r_tilde(epsilon=eps, delta=delta) * int(case["factor"])
    n = int(r_tilde * case["length"])
    plan = paula_plan(n, epsilon=eps, delta=delta, r_tilde=r_tilde)
    v = ref.monotone_list(
        n, delta=delta, m=plan.m, r_tilde=r_tilde, rng=np.random.default_rng(int(case["seed"]))
    )
    return plan, v


@settings(max_examples=40)
@given(case=monotone_cases)
def test_silent_on_monotone_lists(case: dict[str, float]) -> None:
    plan, v = build(case)
    assume(ref.a2_holds(v, plan.delta, plan.m, plan.r_tilde))  # type: ignore[attr-defined]
    rep = report_for(plan, v)
    assert not [x for x in rep.violations if x.assumption == "A.2"]
    if ref.a1_holds(v, plan.m, plan.r_tilde):  # type: ignore[attr-defined]
        assert rep.holds


@settings(max_examples=40)
@given(case=monotone_cases, where=st.floats(0.3, 0.9), width=st.floats(0.05, 0.3))
def test_fires_when_a_later_window_rises(
    case: dict[str, float], where: float, width: float
) -> None:
    # Take a monotone list and make the labels of a later stretch all positive, after
    # a stretch of negatives: the window of the first point inside it then has a
    # higher local precision than the window of a point at least m earlier.
    plan, v = build(case)
    ends = plan.window_ends  # type: ignore[attr-defined]
    assume(ends.size >= 3)
    k = max(2, int(where * ends.size))
    k = min(k, ends.size - 1)
    later = int(ends[k])
    earlier = int(ends[k - 1])
    w = v.copy()
    w[earlier - plan.delta : earlier] = 0  # type: ignore[attr-defined]
    w[later - plan.delta : later] = 1  # type: ignore[attr-defined]
    stretch = int(width * (later - earlier))
    w[later - plan.delta - stretch : later - plan.delta] = 1  # type: ignore[attr-defined]
    rep = report_for(plan, w)
    assert not rep.holds
    assert any(
        x.assumption == "A.2" and x.later_rank == later and x.earlier_rank <= earlier
        for x in rep.violations
    )
    assert rep.unreliable_from is not None and rep.unreliable_from <= earlier + 1
    assert not ref.a2_holds(w, plan.delta, plan.m, plan.r_tilde)  # type: ignore[attr-defined]


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**32 - 1),
    epsilon=st.sampled_from([0.1, 0.25, 0.5]),
    delta=st.integers(1, 8),
)
def test_reports_are_sound_on_any_list(seed: int, epsilon: float, delta: int) -> None:
    # Whatever the list, a reported A.2 (A.1) violation means the brute-force check of
    # A.2 (A.1) fails: the diagnostic never cries wolf.
    rng = np.random.default_rng(seed)
    r_tilde = minimum_r_tilde(epsilon=epsilon, delta=delta)
    n = int(rng.integers(r_tilde, 6 * r_tilde + 2))
    v = (rng.random(n) < np.linspace(rng.uniform(0.3, 1), rng.uniform(0, 1), n)).astype(np.int64)
    plan = paula_plan(n, epsilon=epsilon, delta=delta)
    rep = report_for(plan, v)
    kinds = {x.assumption for x in rep.violations}
    if "A.2" in kinds:
        assert not ref.a2_holds(v, delta, plan.m, plan.r_tilde)
    if "A.1" in kinds:
        assert not ref.a1_holds(v, plan.m, plan.r_tilde)
    for x in rep.violations:
        assert x.later_rank - x.earlier_rank >= plan.m
        assert x.later_value > x.earlier_value
