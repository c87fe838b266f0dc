"""Figures: the presentation of ereval's results, apart from the maths.

Each figure has a pure function that turns a result of the maths packages into
figure data (:class:`Panel` of :class:`Line` objects, plain arrays and labels)
and a small matplotlib renderer. matplotlib is an optional dependency
(``pip install 'ereval[plot]'``), imported only when a figure is drawn.

==================================  ======================================================
``plot_paula_bounds``               PAULA's bounds on a precision, precision-yield or PR
                                    curve (data: ``paula_bounds_figure``)
``plot_oasis_experiment``           error and spread of OASIS and its baselines against the
                                    label budget (data: ``oasis_experiment_figure``)
==================================  ======================================================
"""

from __future__ import annotations

from ._figure import Line, Panel
from .oasis import oasis_experiment_figure, plot_oasis_experiment
from .paula import PlotKind, paula_bounds_figure, plot_paula_bounds

__all__ = [
    "Line",
    "Panel",
    "PlotKind",
    "oasis_experiment_figure",
    "paula_bounds_figure",
    "plot_oasis_experiment",
    "plot_paula_bounds",
]
