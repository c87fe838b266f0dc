"""Figure data: what a figure shows, as plain arrays and labels, with no plotting library.

The figure functions of :mod:`ereval.plots` build these from the results of the
maths packages; a small renderer per figure draws them with matplotlib, and
other front ends (an HTML report) can draw the same data their own way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._optional import require

__all__ = ["Line", "Panel", "draw_panel", "new_figure"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Line:
    """One curve: its points, legend label, colour and how to draw it.

    ``kind="step"`` holds each ``y`` until the next ``x`` (a step function).
    """

    x: FloatArray
    y: FloatArray
    label: str
    color: str | None = None
    kind: Literal["line", "step"] = "line"
    dashed: bool = False
    marker: str | None = None
    width: float = 1.2


@dataclass(frozen=True, eq=False)
class Panel:
    """One set of axes: its curves, axis labels, scales and title."""

    lines: tuple[Line, ...]
    xlabel: str
    ylabel: str
    title: str = ""
    ylim: tuple[float, float] | None = None
    yscale: Literal["linear", "log"] = "linear"


def new_figure(*, feature: str, size: tuple[float, float]) -> Any:
    """A matplotlib ``Figure`` (no pyplot state), or an install hint if matplotlib is missing."""
    require("matplotlib", feature=feature)
    figure_module = require("matplotlib.figure", feature=feature)
    return figure_module.Figure(figsize=size, layout="constrained")


def draw_panel(ax: Any, panel: Panel, *, legend: bool = True, legend_size: str = "small") -> Any:
    """Draw ``panel`` on the matplotlib axes ``ax``; return ``ax``."""
    for line in panel.lines:
        style = {
            "color": line.color,
            "lw": line.width,
            "ls": "--" if line.dashed else "-",
            "label": line.label,
        }
        if line.marker is not None:
            style["marker"] = line.marker
        if line.kind == "step":
            ax.step(line.x, line.y, where="post", **style)
        else:
            ax.plot(line.x, line.y, **style)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.set_yscale(panel.yscale)
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
    if panel.title:
        ax.set_title(panel.title)
    if legend and panel.lines:
        ax.legend(loc="best", fontsize=legend_size)
    return ax
