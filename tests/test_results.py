"""The one result shape, :class:`ereval.Estimate`, and its range and warning rules."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import math

import numpy as np
import pytest

from ereval import Estimate
from ereval.results import (
    UNIT_RANGE,
    clamp_interval,
    normal_estimate,
    normal_quantile,
    problem_warning,
    range_problems,
)

Z95 = 1.959963984540054


def test_fields_and_to_dict() -> None:
    e = Estimate(0.25, 0.1, (0.05, 0.45), 0.95, 40, "m", ("w",))
    assert [f.name for f in dataclasses.fields(e)] == [
        "value",
        "std",
        "interval",
        "level",
        "n",
        "method",
        "warnings",
    ]
    assert (e.lower, e.upper) == (0.05, 0.45) and e.width == pytest.approx(0.4)
    assert e.to_dict() == {
        "value": 0.25,
        "std": 0.1,
        "interval": [0.05, 0.45],
        "level": 0.95,
        "n": 40,
        "method": "m",
        "warnings": ["w"],
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.value = 0.0  # type: ignore[misc]


def test_clamp_keeps_inside_intervals_and_nan() -> None:
    lo, hi = clamp_interval([0.2, np.nan], [0.7, np.nan], UNIT_RANGE)
    assert lo[0] == 0.2 and hi[0] == 0.7
    assert np.isnan(lo[1]) and np.isnan(hi[1])
    lo, hi = clamp_interval(-3.0, 5.0, None)
    assert (float(lo), float(hi)) == (-3.0, 5.0)


def test_clamp_cuts_each_end_and_replaces_an_interval_outside_the_range() -> None:
    # 1.29 +- 1.96 * 0.153: [0.99, 1.59] -> [0.99, 1]
    lo, hi = clamp_interval(1.29 - 0.3, 1.29 + 0.3, UNIT_RANGE)
    assert (float(lo), float(hi)) == (pytest.approx(0.99), 1.0)
    # wholly above or below the range: no possible value in it -> the whole range
    lo, hi = clamp_interval([1.1, -0.5], [1.7, -0.1], UNIT_RANGE)
    assert lo.tolist() == [0.0, 0.0] and hi.tolist() == [1.0, 1.0]
    # a half-open range (average cluster size is at least 1)
    lo, hi = clamp_interval([0.4, 0.2], [2.5, 0.8], (1.0, math.inf))
    assert lo.tolist() == [1.0, 1.0] and hi.tolist() == [2.5, math.inf]


def test_clamping_never_changes_whether_a_possible_value_is_covered() -> None:
    # every interval end and true value on a grid, including the edges of the range
    grid = np.linspace(-1.5, 2.5, 41)
    lo, hi = np.meshgrid(grid, grid, indexing="ij")
    keep = lo <= hi
    lo, hi = lo[keep], hi[keep]
    c_lo, c_hi = clamp_interval(lo, hi, UNIT_RANGE)
    for t in np.linspace(0.0, 1.0, 11):
        before = (lo <= t) & (t <= hi)
        after = (c_lo <= t) & (t <= c_hi)
        # never lost; gained only where the interval held no possible value at all
        assert not (before & ~after).any()
        gained = after & ~before
        assert ((hi[gained] < 0.0) | (lo[gained] > 1.0)).all()


def test_normal_estimate_interval_is_clamped() -> None:
    e = normal_estimate(0.97, 0.02, level=0.95, n=400, method="m", bounds=UNIT_RANGE)
    assert e.interval == (pytest.approx(0.97 - Z95 * 0.02), 1.0)
    assert e.warnings == ()
    free = normal_estimate(0.97, 0.02, level=0.95, n=400, method="m")
    assert free.upper == pytest.approx(0.97 + Z95 * 0.02)


def test_normal_estimate_nan_has_nan_interval_and_no_range_warning() -> None:
    e = normal_estimate(math.nan, math.nan, level=0.9, n=3, method="m", bounds=UNIT_RANGE)
    assert math.isnan(e.lower) and math.isnan(e.upper) and e.warnings == ()
    no_std = normal_estimate(0.5, math.nan, level=0.9, n=1, method="m", bounds=UNIT_RANGE)
    assert no_std.value == 0.5 and math.isnan(no_std.lower)


def test_value_outside_its_range_is_reported_with_what_to_do() -> None:
    e = normal_estimate(
        1.29,
        0.153,
        level=0.95,
        n=12,
        method="m",
        bounds=UNIT_RANGE,
        quantity="'cluster_precision_cluster'",
        advice="label more clusters",
    )
    assert e.value == 1.29  # the point estimate itself is never clamped
    assert e.upper == 1.0
    assert e.warnings == (
        "'cluster_precision_cluster' = 1.29 lies outside [0, 1]: label more clusters",
    )


def test_interval_wider_than_the_range_is_reported() -> None:
    # 2 z sd = 3.92 * 0.26 > 1: the interval would cover more than [0, 1]
    problems = range_problems(0.5, 0.26, level=0.95, bounds=UNIT_RANGE)
    assert len(problems) == 1 and "standard error (0.26) too large" in problems[0]
    # just inside: 3.92 * 0.25 < 1
    assert range_problems(0.5, 0.25, level=0.95, bounds=UNIT_RANGE) == []
    # at a lower level the same sd fits
    assert range_problems(0.5, 0.26, level=0.5, bounds=UNIT_RANGE) == []
    # no finite range, no width rule
    assert range_problems(50.0, 100.0, level=0.95, bounds=(1.0, math.inf)) == []
    assert range_problems(0.5, 1.46, level=0.95, bounds=None) == []


def test_problems_are_joined_into_one_sentence() -> None:
    assert problem_warning("'x'", [], "act") is None
    assert problem_warning("'x'", ["a", "b", "c"], "act") == "'x' a, b and c: act"
    assert problem_warning("'x'", ["a"], "") == "'x' a"
    e = normal_estimate(
        1.5,
        0.4,
        level=0.95,
        n=5,
        method="m",
        bounds=UNIT_RANGE,
        quantity="'x'",
        advice="act",
        problems=["has a flaw"],
        warnings=["first"],
    )
    assert e.warnings[0] == "first"
    assert e.warnings[1].startswith("'x' has a flaw, = 1.5 lies outside [0, 1] and has a standard")
    assert e.warnings[1].endswith(": act") and len(e.warnings) == 2


def test_normal_quantile() -> None:
    assert normal_quantile(0.95) == pytest.approx(Z95)
    with pytest.raises(ValueError, match="'level'"):
        normal_quantile(1.0)


@pytest.mark.parametrize(
    "module",
    [
        "ereval.results",
        "ereval.estimators",
        "ereval.estimators._ratio",
        "ereval.estimators._metrics",
        "ereval.estimators._designs",
        "ereval._simulate",
        "ereval.oasis",
        "ereval.oasis._estimates",
        "ereval.oasis._adaptive",
        "ereval.oasis._oracles",
        "ereval.cli._oracle",
    ],
)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
