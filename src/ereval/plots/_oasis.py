"""The figure of an OASIS experiment: error against the label budget (Marchant & Rubinstein
2017, Figure 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_in_range
from ..oasis import ExperimentResult
from ._figure import Line, Panel, draw_panel, new_figure

__all__ = ["oasis_experiment_figure", "plot_oasis_experiment"]


def oasis_experiment_figure(
    result: ExperimentResult, *, title: str | None = None, min_defined: float = 0.95
) -> tuple[Panel, Panel]:
    """What :func:`plot_oasis_experiment` draws, as data (no matplotlib needed).

    Two panels, mean absolute error and standard deviation of the F-alpha
    estimates against the budget, one line per method, log-scaled. A point is
    kept only where at least ``min_defined`` of the runs gave a defined
    estimate (the paper's rule).
    """
    share = check_in_range("min_defined", min_defined, low=0.0, high=1.0)
    err: list[Line] = []
    sd: list[Line] = []
    for method in result.methods:
        rows = [r for r in result.rows if r.method == method and r.defined >= share]
        if not rows:
            continue
        x = np.asarray([r.budget for r in rows], dtype=np.float64)
        err.append(Line(x, np.asarray([r.mae for r in rows]), method, marker="o"))
        sd.append(Line(x, np.asarray([r.std for r in rows]), method, marker="o"))
    heading = title or f"F-measure (alpha = {result.alpha:g}), {result.repeats} runs"
    return (
        Panel(tuple(err), "", "abs. err.", title=heading, yscale="log"),
        Panel(tuple(sd), "label budget", "std. dev.", yscale="log"),
    )


def plot_oasis_experiment(
    result: ExperimentResult,
    *,
    path: str | Path | None = None,
    title: str | None = None,
    min_defined: float = 0.95,
) -> Any:
    """Plot mean absolute error and standard deviation against the label budget.

    The two panels of the paper's Figure 2 (:func:`oasis_experiment_figure`).
    Needs matplotlib (extra ``plot``).

    Returns
    -------
    matplotlib.figure.Figure
        Also written to ``path`` when given.
    """
    top, bottom = oasis_experiment_figure(result, title=title, min_defined=min_defined)
    fig = new_figure(feature="plotting an OASIS experiment", size=(6.0, 6.5))
    ax_err, ax_sd = fig.subplots(2, 1, sharex=True)
    draw_panel(ax_err, top, legend_size="medium")
    draw_panel(ax_sd, bottom, legend=False)
    if path is not None:
        fig.savefig(Path(path))
    return fig
