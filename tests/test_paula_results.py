"""PAULA's read-offs are :class:`ereval.Estimate` results: an interval without an estimate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ereval import Estimate
from ereval.paula import load_labels, paula_bounds, paula_plan

from .test_paula_bounds import HAND_LABELS, HAND_PLAN, hand_bounds


def test_precision_at_is_an_interval_without_a_point_estimate() -> None:
    b = hand_bounds()
    e = b.precision_at(50)  # type: ignore[attr-defined]
    assert isinstance(e, Estimate)
    assert e.interval == (pytest.approx(28.5 / 50), pytest.approx(38 / 50))
    assert math.isnan(e.value) and math.isnan(e.std)
    assert (e.level, e.n, e.method, e.warnings) == (1.0, HAND_PLAN.annotations, "paula", ())
    d = e.to_dict()
    assert d["interval"] == [pytest.approx(0.57), pytest.approx(0.76)] and d["level"] == 1.0


def test_in_the_annotated_prefix_the_bounds_meet_at_the_exact_value() -> None:
    b = hand_bounds()
    k = HAND_PLAN.prefix_end
    e = b.precision_at(k)  # type: ignore[attr-defined]
    assert e.lower == e.upper == e.value and e.std == 0.0
    y = b.yield_at(50)  # type: ignore[attr-defined]
    assert (y.lower, y.upper) == (28.5, 38) and math.isnan(y.value)
    r = b.recall_at(50, n_positives=(40, 80))  # type: ignore[attr-defined]
    assert r.interval == (28.5 / 80, 38 / 40)


def test_bounds_past_a_violation_carry_a_warning() -> None:
    labels = dict(HAND_LABELS) | {11: 0, 12: 0}
    ranks, values = load_labels(labels)
    b = paula_bounds(HAND_PLAN, ranks, values, on_violation="ignore")
    start = b.diagnostic.unreliable_from
    assert start is not None
    assert b.precision_at(start - 1).warnings == ()
    (warning,) = b.precision_at(HAND_PLAN.n).warnings
    assert warning.startswith(f"the bounds on Prec@{HAND_PLAN.n} are not guaranteed")
    assert f"from rank {start} on" in warning


def test_large_list_bounds() -> None:
    plan = paula_plan(10_000, epsilon=0.1, delta=10)
    truth = (np.arange(10_000) < 7_000).astype(int)
    e = paula_bounds(plan, plan.ranks(), plan.select(truth)).precision_at(10_000)
    assert e.lower <= 0.7 <= e.upper and e.n == 580
