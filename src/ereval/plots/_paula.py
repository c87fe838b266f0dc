"""The figure of PAULA's bounds on a precision curve (Sabharwal & Sedghi 2017, Figures 2-3)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .._errors import InputError
from .._validation import as_1d_array, check_binary_array, check_choice
from ..paula import PaulaBounds
from ._figure import Line, Panel, draw_panel, new_figure

__all__ = ["PlotKind", "paula_bounds_figure", "plot_paula_bounds"]

PlotKind = Literal["precision", "precision-yield", "pr"]


def paula_bounds_figure(
    bounds: PaulaBounds,
    *,
    kind: PlotKind = "precision",
    n_positives: Any = None,
    truth: Any = None,
    ranks: Any = None,
    show_steps: bool = False,
) -> Panel:
    r"""What :func:`plot_paula_bounds` draws, as data (no matplotlib needed).

    ``kind="precision"``: :math:`p(r)` against the rank :math:`r` (the paper's
    Figures 2-3); ``"precision-yield"``: precision against yield :math:`r\,p(r)`;
    ``"pr"``: precision against recall :math:`r\,p(r)/|U_+|` (needs
    ``n_positives``). The lower bound is blue, the upper red, as in the paper;
    the true curve (given ``truth``) black; the step functions (Definition 5)
    dashed.

    Parameters
    ----------
    bounds : PaulaBounds
    kind : {"precision", "precision-yield", "pr"}, default "precision"
    n_positives : int, float or (low, high), optional
        Number of positives, for ``kind="pr"`` (see :meth:`PaulaBounds.curve`).
    truth : array-like of {0, 1}, optional
        The full label vector (length ``n``), when known, for the true curve (for
        ``kind="pr"`` its recall uses the midpoint of ``n_positives``).
    ranks : array-like of int, optional
        Where to evaluate; :meth:`PaulaBounds.default_ranks` by default.
    show_steps : bool, default False
        Also give the paper's step functions (``kind="precision"`` only).

    Returns
    -------
    Panel
    """
    kind = check_choice("kind", kind, ("precision", "precision-yield", "pr"))
    if kind == "pr" and n_positives is None:
        raise InputError("kind='pr' needs 'n_positives' (the recall denominator); received None")
    curve = bounds.curve(ranks, n_positives=n_positives)
    r = curve.points
    x_lo: Any
    x_hi: Any
    if kind == "precision":
        x_lo = x_hi = r
        xlabel = "rank r"
    elif kind == "precision-yield":
        x_lo, x_hi = curve["yield"].lower, curve["yield"].upper
        xlabel = "yield r p(r)"
    else:
        x_lo, x_hi = curve["recall"].lower, curve["recall"].upper
        xlabel = "recall"
    lines: list[Line] = []
    if truth is not None:
        v = check_binary_array("truth", as_1d_array("truth", truth))
        if v.size != bounds.plan.n:
            raise InputError(
                f"'truth' must have one label per item (n={bounds.plan.n}); received {v.size}"
            )
        cum = np.cumsum(v, dtype=np.int64)[r - 1]
        if kind == "precision":
            x_t: Any = r
        elif kind == "precision-yield":
            x_t = cum
        else:
            npos = curve.details["n_positives"]
            x_t = cum / (0.5 * (npos[0] + npos[1]) if npos is not None else 1.0)
        lines.append(Line(_f(x_t), cum / r, "true precision", "black"))
    lines.append(Line(_f(x_lo), curve["precision"].lower, "lower bound", "tab:blue"))
    lines.append(Line(_f(x_hi), curve["precision"].upper, "upper bound", "tab:red"))
    if show_steps and kind == "precision":
        for label, values, color in (
            ("step q- (Def. 5)", bounds.step_lower(r), "tab:blue"),
            ("step q+ (Def. 5)", bounds.step_upper(r), "tab:red"),
        ):
            lines.append(Line(_f(r), values, label, color, kind="step", dashed=True, width=0.8))
    plan = bounds.plan
    title = (
        f"PAULA bounds: N={plan.n:,}, epsilon={plan.epsilon:g}, Delta={plan.delta}, "
        f"{plan.annotations:,} annotations"
    )
    return Panel(tuple(lines), xlabel, "precision", title=title, ylim=(0.0, 1.02))


def plot_paula_bounds(
    bounds: PaulaBounds,
    *,
    kind: PlotKind = "precision",
    n_positives: Any = None,
    truth: Any = None,
    ranks: Any = None,
    show_steps: bool = False,
    ax: Any = None,
) -> Any:
    """Draw the lower and upper bounds of a precision curve (:func:`paula_bounds_figure`).

    Parameters
    ----------
    bounds, kind, n_positives, truth, ranks, show_steps
        See :func:`paula_bounds_figure`.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure is made otherwise (``ax.figure.savefig``
        writes it).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (``pip install 'ereval[plot]'``).

    References
    ----------
    Sabharwal and Sedghi (2017), §2 (curves derived from :math:`p`), Figures 2-3.
    """
    panel = paula_bounds_figure(
        bounds,
        kind=kind,
        n_positives=n_positives,
        truth=truth,
        ranks=ranks,
        show_steps=show_steps,
    )
    if ax is None:
        ax = new_figure(feature="plotting PAULA bounds", size=(7.0, 4.5)).subplots()
    return draw_panel(ax, panel)


def _f(values: Any) -> Any:
    return np.asarray(values, dtype=np.float64)
