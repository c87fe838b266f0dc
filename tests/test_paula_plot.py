"""The figure of PAULA's bounds, ``ereval.plots.plot_paula_bounds`` (matplotlib is in the test extras)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ereval import InputError, MissingDependencyError
from ereval.paula import paula_bounds, paula_plan
from ereval.plots import paula_bounds_figure
from ereval.plots import plot_paula_bounds as plot_bounds

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def test_figure_data_needs_no_matplotlib(
    bounds_and_truth: tuple[object, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    b, v = bounds_and_truth
    panel = paula_bounds_figure(b, kind="precision", truth=v, show_steps=True)  # type: ignore[arg-type]
    labels = [line.label for line in panel.lines]
    assert labels == [
        "true precision",
        "lower bound",
        "upper bound",
        "step q- (Def. 5)",
        "step q+ (Def. 5)",
    ]
    curve = b.curve()  # type: ignore[attr-defined]
    np.testing.assert_array_equal(panel.lines[1].x, curve.points)
    np.testing.assert_array_equal(panel.lines[1].y, curve["precision"].lower)
    np.testing.assert_array_equal(panel.lines[0].y, np.cumsum(v)[curve.points - 1] / curve.points)
    assert [line.kind for line in panel.lines[3:]] == ["step", "step"]
    assert (panel.xlabel, panel.ylabel, panel.ylim) == ("rank r", "precision", (0.0, 1.02))


@pytest.fixture(scope="module")
def bounds_and_truth() -> tuple[object, np.ndarray]:
    v = np.r_[np.ones(700, np.int64), np.zeros(1300, np.int64)]
    plan = paula_plan(2000, epsilon=0.25, delta=4)
    return paula_bounds(plan, plan.ranks(), plan.select(v)), v


@pytest.mark.parametrize("kind", ["precision", "precision-yield", "pr"])
def test_each_kind_draws_both_bounds(
    bounds_and_truth: tuple[object, np.ndarray], kind: str
) -> None:
    import matplotlib.pyplot as plt

    b, v = bounds_and_truth
    ax = plot_bounds(b, kind=kind, n_positives=700, truth=v, show_steps=True)  # type: ignore[arg-type]
    labels = [line.get_label() for line in ax.get_lines()]
    assert {"true precision", "lower bound", "upper bound"} <= set(labels)
    assert ("step q- (Def. 5)" in labels) == (kind == "precision")
    lower = next(line for line in ax.get_lines() if line.get_label() == "lower bound")
    curve = b.curve(n_positives=700)  # type: ignore[attr-defined]
    np.testing.assert_allclose(lower.get_ydata(), curve["precision"].lower)
    expected_x = {
        "precision": curve.points,
        "precision-yield": curve["yield"].lower,
        "pr": curve["recall"].lower,
    }[kind]
    np.testing.assert_allclose(lower.get_xdata(), expected_x)
    plt.close(ax.figure)


def test_draws_on_given_axes(bounds_and_truth: tuple[object, np.ndarray]) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert plot_bounds(bounds_and_truth[0], ax=ax) is ax  # type: ignore[arg-type]
    plt.close(fig)


def test_bad_arguments(bounds_and_truth: tuple[object, np.ndarray]) -> None:
    b, v = bounds_and_truth
    with pytest.raises(InputError, match=r"kind='pr' needs 'n_positives'"):
        plot_bounds(b, kind="pr")  # type: ignore[arg-type]
    with pytest.raises(
        InputError, match=r"'kind' must be one of 'precision', 'precision-yield', 'pr'"
    ):
        plot_bounds(b, kind="roc")  # type: ignore[arg-type]
    with pytest.raises(
        InputError, match=r"'truth' must have one label per item \(n=2000\); received 10"
    ):
        plot_bounds(b, truth=v[:10])  # type: ignore[arg-type]


def test_missing_matplotlib(
    bounds_and_truth: tuple[object, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ereval\[plot\]'"):
        plot_bounds(bounds_and_truth[0])  # type: ignore[arg-type]
