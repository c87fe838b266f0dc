"""The figure of a threshold curve of scored pairs: metrics against threshold, PR and ROC."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._errors import InputError
from ..curves import ThresholdCurve
from ._figure import Line, Panel, draw_panel, new_figure

__all__ = ["plot_threshold_curve", "threshold_curve_figure"]

_DEFAULT_METRICS = ("links_f1", "pairwise_f1", "b3_f1", "cluster_f1")


def threshold_curve_figure(
    curve: ThresholdCurve, *, metrics: Sequence[str] | None = None
) -> tuple[Panel, Panel, Panel]:
    """What :func:`plot_threshold_curve` draws, as data (no matplotlib needed).

    Three panels: the chosen ``metrics`` against the threshold (default the
    F1 scores among ``links_f1``, ``pairwise_f1``, ``b3_f1``, ``cluster_f1``
    present in the curve); precision against recall of the links and of the
    connected-components clustering (recall over every true pair, scored or
    not); and the ROC curve over the scored pairs, with its area.
    """
    columns = curve.columns  # each column drawn is made alone (a curve may be long)
    if metrics is None:
        chosen = [m for m in _DEFAULT_METRICS if m in columns]
    else:
        chosen = list(metrics)
        unknown = [m for m in chosen if m not in columns or m == "threshold"]
        if unknown:
            raise InputError(f"'metrics' are not columns of the curve: {unknown!r}")
    t = curve.column("threshold")
    lines = tuple(Line(t, curve.column(m), m, marker=None) for m in chosen)
    vs_threshold = Panel(lines, "threshold (pairs with score >= t accepted)", "value")
    pr_lines = [
        Line(curve.column("links_recall"), curve.column("links_precision"), "links", "black")
    ]
    if "pairwise_precision" in columns:
        pr_lines.append(
            Line(
                curve.column("pairwise_recall"),
                curve.column("pairwise_precision"),
                "connected components (pairwise)",
                "tab:orange",
            )
        )
    completeness = curve.summary["pairs_completeness"]
    pr = Panel(
        tuple(pr_lines),
        "recall (of all true pairs)",
        "precision",
        title=f"precision-recall (pairs completeness {completeness:.3g})",
        ylim=(0.0, 1.02),
    )
    roc = curve.roc()
    roc_panel = Panel(
        (
            Line(_f(roc["fpr"]), _f(roc["tpr"]), "scored pairs", "tab:blue"),
            Line(np.array([0.0, 1.0]), np.array([0.0, 1.0]), "chance", "grey", dashed=True),
        ),
        "false positive rate",
        "true positive rate",
        title=f"ROC of the scored pairs (AUC {curve.summary['roc_auc']:.4g})",
        ylim=(0.0, 1.02),
    )
    return vs_threshold, pr, roc_panel


def plot_threshold_curve(curve: ThresholdCurve, *, metrics: Sequence[str] | None = None) -> Any:
    """Draw :func:`threshold_curve_figure` on a new matplotlib figure (extra ``plot``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    panels = threshold_curve_figure(curve, metrics=metrics)
    fig = new_figure(feature="plotting a threshold curve", size=(14.0, 4.2))
    for ax, panel in zip(fig.subplots(1, 3), panels, strict=True):
        draw_panel(ax, panel)
    return fig


def _f(values: Any) -> Any:
    return np.asarray(values, dtype=np.float64)
