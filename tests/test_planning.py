"""Sample-size planning: the formulas by hand, their properties, and plans checked by
simulation on seeded populations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ereval import InputError
from ereval.estimators import draw_sample
from ereval.planning import (
    assured_half_width,
    check_plan,
    expected_half_width,
    fpc,
    plan,
    plan_designs,
    required_draws,
)
from ereval.planning._formulas import smallest_draws
from ereval.simulate import inject_errors

Z95 = 1.959963984540054


# --------------------------------------------------------------------------- by hand
def test_required_draws_by_hand_with_replacement() -> None:
    # n0 = (1.959964 * 0.5 / 0.02)^2 = 48.9991^2 = 2400.91 -> 2401
    assert required_draws(0.5, 0.02, Z95) == 2401
    # (2 * 1 / 0.1)^2 = 400 exactly: 400 draws give exactly the target
    assert required_draws(1.0, 0.1, 2.0) == 400
    assert expected_half_width(400, 1.0, 2.0) == pytest.approx(0.1)


def test_required_draws_by_hand_records_without_replacement() -> None:
    # n0 = 400, N = 400: n = 400 / (1 + 400/400) = 200; theta(200) = 1/2
    # h(200) = 2 * 1 * sqrt(0.5 / 200) = 0.1 exactly
    assert required_draws(1.0, 0.1, 2.0, population=400, kind="records") == 200
    assert fpc(200, 400, "records") == 0.5


def test_required_draws_by_hand_units_without_replacement() -> None:
    # n0 = (2 * 0.5 / 0.05)^2 = 400, T = 1000: n = 400 * 1000 / (999 + 400) = 285.9 -> 286
    # h(286) = sqrt((714/999) / 286) = 0.049990 <= 0.05 < h(285) = sqrt((715/999) / 285) = 0.050113
    assert required_draws(0.5, 0.05, 2.0, population=1000, kind="units") == 286
    assert expected_half_width(286, 0.5, 2.0, population=1000, kind="units") == pytest.approx(
        0.049990, abs=1e-6
    )
    assert expected_half_width(285, 0.5, 2.0, population=1000, kind="units") == pytest.approx(
        0.050113, abs=1e-6
    )


def test_assured_half_width_by_hand() -> None:
    # h(100) = 2 * 0.5 / 10 = 0.1; factor 1 + 0.625 * sqrt(400/100) = 2.25; sqrt = 1.5
    assert assured_half_width(100, 0.5, 2.0, excess=0.625, reference_n=400) == pytest.approx(0.15)
    # no excess: the expected half-width
    assert assured_half_width(100, 0.5, 2.0, excess=0.0, reference_n=400) == pytest.approx(0.1)


def test_edges() -> None:
    assert required_draws(0.0, 0.01, Z95) == 2  # no variance: the minimum of two draws
    assert required_draws(5.0, 0.001, Z95, population=50, kind="units") == 50  # a census
    assert fpc(50, 50, "units") == 0.0
    with pytest.raises(InputError, match="'half_width'"):
        required_draws(0.5, 0.0, Z95)
    with pytest.raises(InputError, match="'sigma'"):
        required_draws(math.nan, 0.1, Z95)


# --------------------------------------------------------------------------- properties
kinds = st.sampled_from([None, "records", "units"])


@settings(max_examples=150, deadline=None)
@given(
    sigma=st.floats(0.01, 3.0),
    h=st.floats(0.005, 0.3),
    level=st.floats(0.5, 0.995),
    kind=kinds,
    population=st.integers(3, 50_000),
)
def test_planned_n_meets_the_target_and_one_less_does_not(
    sigma: float, h: float, level: float, kind: str | None, population: int
) -> None:
    from ereval.results import normal_quantile

    z = normal_quantile(level)
    pop = None if kind is None else population
    n = required_draws(sigma, h, z, population=pop, kind=kind)  # type: ignore[arg-type]
    width = expected_half_width(n, sigma, z, population=pop, kind=kind)  # type: ignore[arg-type]
    assert width <= h
    if n > 2:
        before = expected_half_width(n - 1, sigma, z, population=pop, kind=kind)  # type: ignore[arg-type]
        assert before > h


@settings(max_examples=150, deadline=None)
@given(
    sigma=st.floats(0.01, 3.0),
    n=st.integers(2, 20_000),
    more=st.integers(1, 5_000),
    kind=kinds,
    excess=st.floats(0.0, 3.0),
)
def test_more_draws_never_widen(
    sigma: float, n: int, more: int, kind: str | None, excess: float
) -> None:
    pop = None if kind is None else 30_000
    k = kind  # type: ignore[assignment]
    assert expected_half_width(n + more, sigma, Z95, population=pop, kind=k) <= expected_half_width(
        n, sigma, Z95, population=pop, kind=k
    )
    a1 = assured_half_width(n, sigma, Z95, excess=excess, reference_n=300, population=pop, kind=k)
    a2 = assured_half_width(
        n + more, sigma, Z95, excess=excess, reference_n=300, population=pop, kind=k
    )
    assert a2 <= a1
    assert a1 >= expected_half_width(n, sigma, Z95, population=pop, kind=k)


@settings(max_examples=100, deadline=None)
@given(sigma=st.floats(0.05, 2.0), h=st.floats(0.01, 0.2), excess=st.floats(0.0, 2.0))
def test_smallest_draws_is_the_first_n_meeting_the_target(
    sigma: float, h: float, excess: float
) -> None:
    def width(k: int) -> float:
        return assured_half_width(k, sigma, Z95, excess=excess, reference_n=200)

    n = smallest_draws(width, h, limit=None)
    assert width(n) <= h
    assert n == 2 or width(n - 1) > h
    assert n >= required_draws(sigma, h, Z95)


# --------------------------------------------------------------------------- plans
def _skewed_population(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """About 1,500 records in clusters of Zipf-like sizes (many singletons, a few of 20+),
    and a prediction with 8% of records moved."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(1.8, size=700), 40)
    records = np.arange(int(sizes.sum()))
    clusters = np.repeat(np.arange(sizes.shape[0]), sizes)
    truth = pd.DataFrame({"record_id": records, "cluster_id": clusters})
    moved = inject_errors(truth, rate=0.08, seed=rng)
    pred = pd.DataFrame({"record_id": moved.records, "cluster_id": moved.clusters})
    return truth, pred


@pytest.fixture(scope="module")
def population() -> tuple[pd.DataFrame, pd.DataFrame]:
    return _skewed_population(7)


def test_plan_on_the_truth_meets_the_target_in_simulation(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    truth, pred = population
    result = plan(
        pred,
        truth=truth,
        half_width=0.06,
        design=["record", "cluster"],
        metrics=["pairwise_precision", "b3_recall"],
        repeats=200,
        seed=1,
    )
    assert set(result.table["design"]) == {"record", "cluster"}
    assert (result.table["n"] <= result.table["design_n"]).all()
    assert (result.table["assured_half_width"] <= 0.06 + 1e-12).all()
    check = check_plan(truth, pred, result, repeats=300, seed=2)
    # the bar is 0.9; three Monte Carlo standard errors of a share near 0.9 at 300 repeats
    # (3 * sqrt(0.09 / 300) = 0.052) allow for the check's own sampling error
    assert (check["share"] >= 0.9 - 0.052).all(), check


def test_plan_half_width_curve_is_monotone_and_meets_target_at_the_plan(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    truth, pred = population
    result = plan(pred, truth=truth, half_width=0.05, metrics="pairwise_f1", repeats=100, seed=3)
    for _, rows in result.curve.groupby(["design", "metric"]):
        rows = rows.sort_values("n")
        assert (np.diff(rows["expected_half_width"].to_numpy()) <= 1e-15).all()
        assert (np.diff(rows["assured_half_width"].to_numpy()) <= 1e-15).all()
    row = result.table.iloc[0]
    assert row["assured_half_width"] <= 0.05
    assert row["expected_half_width"] <= row["assured_half_width"]


def test_plan_without_labels_states_its_assumption(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    _, pred = population
    result = plan(pred, half_width=0.05, error_rate=0.05, repeats=50, seed=4)
    assert result.settings["basis"] == "assumed"
    assert any("assumption" in note and "0.05" in note for note in result.notes)
    assert (result.table["basis"] == "model").all()
    d = result.to_dict()
    assert set(d) == {"settings", "notes", "plan", "curve"}


def test_plan_from_a_pilot_uses_it_as_a_floor(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    truth, pred = population
    pilot = draw_sample(truth, n=150, design="record", seed=5)
    result = plan(pred, pilot=pilot, half_width=0.05, metrics="pairwise_precision", repeats=50)
    assert result.settings["basis"] == "pilot"
    assert any("pilot of 150 draws" in note for note in result.notes)


def test_plan_without_replacement_stays_within_the_population() -> None:
    truth = pd.DataFrame({"record_id": range(60), "cluster_id": np.arange(60) // 3})
    pred = pd.DataFrame({"record_id": range(60), "cluster_id": np.arange(60) // 4})
    result = plan(
        pred, truth=truth, half_width=0.001, design="cluster", replace=False, repeats=30, seed=0
    )
    assert result.draws("cluster") <= 20


def test_all_designs_skips_what_the_inputs_do_not_allow(
    population: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    truth, pred = population
    result = plan(pred, truth=truth, half_width=0.1, design="all", repeats=30, seed=0)
    assert "block" not in set(result.table["design"])
    assert any("'block' left out" in n for n in result.notes)
    assert "record" in plan_designs()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"half_width": 0.0}, "'half_width'"),
        ({"half_width": 1.5}, "'half_width'"),
        ({"half_width": 0.1, "metrics": "nope"}, "'metrics' has unknown name 'nope'"),
        ({"half_width": 0.1, "design": "nope"}, "'design' must be 'all' or one of"),
        ({"half_width": 0.1, "assurance": 0.2}, "'assurance'"),
        ({"half_width": 0.1, "repeats": 5}, "'repeats'"),
        ({"half_width": 0.1, "error_rate": 0.9}, "'error_rate'"),
        ({"half_width": 0.1, "design_options": {"nope": {}}}, "'design_options'"),
    ],
)
def test_bad_options(kwargs: dict[str, object], match: str) -> None:
    pred = pd.DataFrame({"record_id": range(10), "cluster_id": np.arange(10) // 2})
    with pytest.raises(InputError, match=match):
        plan(pred, **kwargs)  # type: ignore[arg-type]
