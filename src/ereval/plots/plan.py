"""The figure of a sampling plan: interval half-width against the number of draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..planning import PlanResult
from ._figure import Line, Panel, draw_panel, new_figure

__all__ = ["plan_figure", "plot_plan"]

_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")


def plan_figure(result: PlanResult, design: str) -> Panel:
    """One design's panel: the expected (solid) and assured (dashed) half-width of each
    metric against ``n``, the target as a grey line."""
    curve = result.curve[result.curve["design"] == design]
    lines: list[Line] = []
    for i, (metric, rows) in enumerate(curve.groupby("metric", sort=False)):
        color = _COLORS[i % len(_COLORS)]
        n = rows["n"].to_numpy(dtype=np.float64)
        lines.append(
            Line(n, rows["expected_half_width"].to_numpy(dtype=np.float64), str(metric), color)
        )
        lines.append(
            Line(
                n,
                rows["assured_half_width"].to_numpy(dtype=np.float64),
                f"{metric} (assured)",
                color,
                dashed=True,
            )
        )
    if not curve.empty:
        n_all = curve["n"].to_numpy(dtype=np.float64)
        target = float(result.settings["half_width"])
        span = np.array([n_all.min(), n_all.max()])
        lines.append(Line(span, np.full(2, target), "target", "grey", width=0.8))
    title = f"{design}: {result.draws(design):,} draws"
    return Panel(tuple(lines), "draws n", "interval half-width", title=title, yscale="log")


def plot_plan(result: PlanResult) -> Any:
    """Draw one panel per planned design; return the matplotlib Figure."""
    designs = list(dict.fromkeys(result.table["design"].tolist()))
    cols = min(len(designs), 3)
    rows = (len(designs) + cols - 1) // cols
    figure = new_figure(feature="plotting a plan", size=(4.6 * cols, 3.6 * rows))
    axes = np.atleast_1d(figure.subplots(rows, cols, squeeze=False)).ravel()
    for ax, design in zip(axes, designs, strict=False):
        draw_panel(ax, plan_figure(result, design), legend_size="x-small")
        ax.set_xscale("log")
    for ax in axes[len(designs) :]:
        ax.set_visible(False)
    return figure
