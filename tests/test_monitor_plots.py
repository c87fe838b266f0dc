"""Figures of summary statistics and monitoring (matplotlib is in the test extras)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ereval._monitor import monitor
from ereval.estimators import as_sample
from ereval.plots import (
    entropy_curve_figure,
    monitoring_figure,
    plot_monitoring,
    plot_summary,
    size_distribution_figure,
)
from ereval.summary import summarize

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def _monitoring() -> object:
    rng = np.random.default_rng(2)
    truth = {r: int(c) for r, c in enumerate(rng.integers(0, 400, 1000))}
    k = len(set(truth.values()))
    census = as_sample(truth, design="cluster", weights="uniform", replace=False, population_size=k)
    merged = {r: c // 3 for r, c in truth.items()}
    return monitor({"a": truth, "b": truth, "c": merged}, sample=census)


def test_monitoring_figure_data(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _monitoring()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    panels = monitoring_figure(m, ["average_cluster_size", "pairwise_precision"])  # type: ignore[arg-type]
    size, precision = panels
    assert [line.label for line in size.panel.lines] == ["all records", "estimate", "flagged"]
    assert size.ticks == ("a", "b", "c")
    np.testing.assert_allclose(size.panel.lines[0].y, m.statistics["average_cluster_size"])  # type: ignore[attr-defined]
    assert len(precision.bands) == 1 and precision.bands[0].upper[0] == 1.0
    flagged = precision.panel.lines[-1]
    assert flagged.label == "flagged" and flagged.x.tolist() == [2.0]


def test_summary_figure_data() -> None:
    s = summarize({1: 1, 2: 1, 3: 2, 4: 3, 5: 2, 6: 4, 7: 4, 8: 4})
    sizes = size_distribution_figure(s)
    assert sizes.lines[0].x.tolist() == [1, 2, 3] and sizes.lines[0].y.tolist() == [1, 2, 1]
    assert sizes.yscale == "log"
    curve = entropy_curve_figure(s, [0, 1, 2])
    np.testing.assert_allclose(curve.lines[0].y, [3.0, 2**1.5, 16 / 6])


def test_renderers_draw() -> None:
    figure = plot_monitoring(_monitoring())  # type: ignore[arg-type]
    assert len([ax for ax in figure.axes if ax.get_visible()]) >= 4
    figure = plot_summary(summarize([[1, 2], [3], [4, 5, 6]]))
    assert figure.axes[0].get_xscale() == "log" and figure.axes[0].get_yscale() == "log"
