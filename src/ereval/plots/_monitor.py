"""Figures of summary statistics and monitoring (Binette et al. 2024, Figures 4-6).

* :func:`monitoring_figure`: per statistic, its value over releases (all records
  and the fixed subset, by default the records in every release), the estimates
  (over the sample's population, and over the fixed subset when one is chosen)
  with their intervals as bands, and the flagged releases;
* :func:`size_distribution_figure`: clusters per size, on log scales;
* :func:`entropy_curve_figure`: the Hill numbers ``H_q`` against ``q``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._monitor import DEFAULT_MONITORED, Monitoring
from .._optional import require
from ..summary import Summary
from ._figure import Line, Panel, draw_panel, new_figure

__all__ = [
    "Band",
    "MonitorPanel",
    "entropy_curve_figure",
    "monitoring_figure",
    "plot_monitoring",
    "plot_summary",
    "size_distribution_figure",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Band:
    """A shaded interval ``[lower, upper]`` along ``x``."""

    x: FloatArray
    lower: FloatArray
    upper: FloatArray
    label: str
    color: str | None = None


@dataclass(frozen=True, eq=False)
class MonitorPanel:
    """One statistic over releases: its lines, bands and the release labels of the x axis."""

    panel: Panel
    bands: tuple[Band, ...]
    ticks: tuple[str, ...]


def _f(values: Any) -> FloatArray:
    return np.asarray(values, dtype=np.float64)


def monitoring_figure(
    monitoring: Monitoring, statistics: Sequence[str] | None = None
) -> list[MonitorPanel]:
    """Figure data of :func:`plot_monitoring`: one :class:`MonitorPanel` per statistic.

    ``statistics`` defaults to the monitored statistics that have values, then
    every estimated key that is not a summary statistic (performance, Figure 6).
    """
    labels = monitoring.releases
    x = _f(np.arange(len(labels)))
    if statistics is None:
        present = [
            s
            for s in monitoring.monitored
            if s in monitoring.statistics.columns
            and np.isfinite(monitoring.statistics[s].astype(float)).any()
        ]
        estimated = dict.fromkeys(k for est in monitoring.estimates.values() for k in est)
        statistics = [*present, *(k for k in estimated if k not in DEFAULT_MONITORED)]
    out: list[MonitorPanel] = []
    for stat in statistics:
        lines: list[Line] = []
        bands: list[Band] = []
        if stat in monitoring.statistics.columns:
            y = _f(monitoring.statistics[stat])
            lines.append(Line(x, y, "all records", "tab:blue", marker="o"))
            yc = _f(monitoring.common[stat].reindex(list(labels)))
            if not np.allclose(y, yc, equal_nan=True):
                fixed_label = (
                    "records in every release"
                    if monitoring.subset in ("", "the records in every release")
                    else "fixed subset"
                )
                lines.append(Line(x, yc, f"{fixed_label} ({monitoring.n_common:,})", "tab:green"))
        if any(stat in est for est in monitoring.estimates.values()):
            curve = monitoring.curve(stat)
            band = curve[stat]
            lines.append(Line(x, band.value, "estimate", "black", dashed=True, marker="."))
            bands.append(Band(x, band.lower, band.upper, f"{curve.level:.0%} interval", "gray"))
        if any(stat in est for est in monitoring.common_estimates.values()):
            band = monitoring.curve(stat, subset=True)[stat]
            lines.append(Line(x, band.value, "estimate, fixed subset", "tab:green", dashed=True))
            bands.append(Band(x, band.lower, band.upper, "interval, fixed subset", "tab:green"))
        flags = monitoring.flags[monitoring.flags["statistic"] == stat]
        if not flags.empty:
            where = {label: k for k, label in enumerate(labels)}
            fx = _f([where[r] for r in flags["release"]])
            fy = _f(flags["value"])
            lines.append(Line(fx, fy, "flagged", "tab:red", marker="X", width=0.0))
        panel = Panel(tuple(lines), "release", stat.replace("_", " "), title=stat)
        out.append(MonitorPanel(panel, tuple(bands), tuple(labels)))
    return out


def plot_monitoring(monitoring: Monitoring, statistics: Sequence[str] | None = None) -> Any:
    """Draw :func:`monitoring_figure` on a grid of axes; return the matplotlib Figure.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (``pip install 'ereval[plot]'``).
    """
    panels = monitoring_figure(monitoring, statistics)
    cols = min(3, max(len(panels), 1))
    rows = max(1, math.ceil(len(panels) / cols))
    figure = new_figure(feature="plotting monitoring", size=(4.6 * cols, 3.4 * rows))
    axes = np.atleast_1d(figure.subplots(rows, cols, squeeze=False)).ravel()
    for ax, mp in zip(axes, panels, strict=False):
        for band in mp.bands:
            ax.fill_between(
                band.x, band.lower, band.upper, color=band.color, alpha=0.25, label=band.label
            )
        draw_panel(ax, mp.panel, legend_size="x-small")
        ax.set_xticks(range(len(mp.ticks)))
        ax.set_xticklabels(mp.ticks, rotation=30, ha="right", fontsize="small")
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    return figure


def size_distribution_figure(summary: Summary) -> Panel:
    """Clusters per size (log-log points)."""
    line = Line(
        _f(summary.sizes), _f(summary.counts), "clusters", "tab:blue", marker="o", width=0.8
    )
    title = (
        f"{summary.n_clusters:,} clusters of {summary.n_records:,} records "
        f"(mean size {summary.average_cluster_size:.3g})"
    )
    return Panel((line,), "cluster size", "number of clusters", title=title, yscale="log")


def entropy_curve_figure(summary: Summary, qs: Any = None) -> Panel:
    """Hill numbers ``H_q`` of the cluster-size distribution against ``q``."""
    q, h = summary.entropy_curve(qs)
    line = Line(q, h, "H_q", "tab:purple")
    title = f"entropy curve (H_0 = {summary.hill(0):g}, H_inf = {summary.hill(math.inf):.3g})"
    return Panel((line,), "order q", "Hill number H_q", title=title)


def plot_summary(summary: Summary) -> Any:
    """Draw the size distribution (log scales) and the entropy curve side by side.

    Returns the matplotlib Figure.
    """
    figure = new_figure(feature="plotting a summary", size=(10.0, 4.0))
    left, right = figure.subplots(1, 2)
    draw_panel(left, size_distribution_figure(summary), legend=False)
    left.set_xscale("log")
    ticker = require("matplotlib.ticker", feature="plotting a summary")
    left.xaxis.set_major_formatter(ticker.ScalarFormatter())
    left.xaxis.set_minor_formatter(ticker.NullFormatter())
    draw_panel(right, entropy_curve_figure(summary), legend=False)
    return figure
