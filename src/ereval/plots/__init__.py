"""Figures: the presentation of ereval's results, apart from the maths.

Each figure has a pure function that turns a result of the maths packages into
figure data (:class:`Panel` of :class:`Line` objects, plain arrays and labels)
and a small matplotlib renderer. matplotlib is an optional dependency
(``pip install 'ereval[plot]'``), imported only when a figure is drawn.

==================================  ======================================================
``plot_paula_bounds``               PAULA's bounds on a precision, precision-yield or PR
                                    curve (data: ``paula_bounds_figure``)
``plot_threshold_curve``            metrics of scored pairs against the threshold, PR and
                                    ROC (data: ``threshold_curve_figure``)
``plot_oasis_experiment``           error and spread of OASIS and its baselines against the
                                    label budget (data: ``oasis_experiment_figure``)
``plot_monitoring``                 summary statistics and estimates over releases, with
                                    intervals and flagged changes (data:
                                    ``monitoring_figure``)
``plot_summary``                    cluster-size distribution (log scales) and entropy
                                    curve (data: ``size_distribution_figure``,
                                    ``entropy_curve_figure``)
``plot_analysis``                   subgroup estimates and reviewer tag frequencies with
                                    their intervals (data: ``analysis_figure``)
``plot_plan``                       interval half-width against the number of draws, per
                                    design and metric (data: ``plan_figure``)
==================================  ======================================================
"""

from __future__ import annotations

from ._analysis import (
    Bars,
    analysis_figure,
    differences_figure,
    disparities_figure,
    plot_analysis,
    tags_figure,
)
from ._curves import plot_threshold_curve, threshold_curve_figure
from ._figure import Line, Panel
from ._monitor import (
    Band,
    MonitorPanel,
    entropy_curve_figure,
    monitoring_figure,
    plot_monitoring,
    plot_summary,
    size_distribution_figure,
)
from ._oasis import oasis_experiment_figure, plot_oasis_experiment
from ._paula import PlotKind, paula_bounds_figure, plot_paula_bounds
from ._plan import plan_figure, plot_plan

__all__ = [
    "Band",
    "Bars",
    "Line",
    "MonitorPanel",
    "Panel",
    "PlotKind",
    "analysis_figure",
    "differences_figure",
    "disparities_figure",
    "entropy_curve_figure",
    "monitoring_figure",
    "oasis_experiment_figure",
    "paula_bounds_figure",
    "plan_figure",
    "plot_analysis",
    "plot_monitoring",
    "plot_oasis_experiment",
    "plot_paula_bounds",
    "plot_plan",
    "plot_summary",
    "plot_threshold_curve",
    "size_distribution_figure",
    "tags_figure",
    "threshold_curve_figure",
]
