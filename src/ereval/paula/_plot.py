"""Plots of PAULA's bounds (matplotlib, an optional dependency: ``ereval[plot]``)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .._errors import InputError
from .._optional import require
from .._validation import as_1d_array, check_binary_array, check_choice
from ._bounds import PaulaBounds

__all__ = ["plot_bounds"]

PlotKind = Literal["precision", "precision-yield", "pr"]


def plot_bounds(
    bounds: PaulaBounds,
    *,
    kind: PlotKind = "precision",
    n_positives: Any = None,
    truth: Any = None,
    ranks: Any = None,
    show_steps: bool = False,
    ax: Any = None,
) -> Any:
    r"""Draw the lower and upper bounds of a precision curve.

    ``kind="precision"`` draws :math:`p(r)` against the rank :math:`r` (the paper's
    Figures 2-3), ``"precision-yield"`` precision against yield :math:`r\,p(r)`,
    and ``"pr"`` precision against recall :math:`r\,p(r)/|U_+|` (needs
    ``n_positives``). The lower bound is blue, the upper red, as in the paper.

    Parameters
    ----------
    bounds : PaulaBounds
    kind : {"precision", "precision-yield", "pr"}, default "precision"
    n_positives : int, float or (low, high), optional
        Number of positives, for ``kind="pr"`` (see :meth:`PaulaBounds.curve`).
    truth : array-like of {0, 1}, optional
        The full label vector (length ``n``), when known, to overlay the true curve
        in black (for ``kind="pr"`` its recall uses the midpoint of ``n_positives``).
    ranks : array-like of int, optional
        Where to evaluate; :meth:`PaulaBounds.default_ranks` by default.
    show_steps : bool, default False
        Also draw the paper's step functions (Definition 5), dashed.
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure is made otherwise.

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
    kind = check_choice("kind", kind, ("precision", "precision-yield", "pr"))
    if kind == "pr" and n_positives is None:
        raise InputError("kind='pr' needs 'n_positives' (the recall denominator); received None")
    plt = require("matplotlib.pyplot", feature="plotting PAULA bounds")
    curve = bounds.curve(ranks, n_positives=n_positives)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    r = curve.ranks
    x_lo: Any
    x_hi: Any
    if kind == "precision":
        x_lo = x_hi = r
        xlabel = "rank r"
    elif kind == "precision-yield":
        x_lo, x_hi = curve.yield_lower, curve.yield_upper
        xlabel = "yield r p(r)"
    else:
        x_lo, x_hi = curve.recall_lower, curve.recall_upper
        xlabel = "recall"
    if truth is not None:
        v = check_binary_array("truth", as_1d_array("truth", truth))
        if v.size != bounds.plan.n:
            raise InputError(
                f"'truth' must have one label per item (n={bounds.plan.n}); received {v.size}"
            )
        cum = np.cumsum(v, dtype=np.int64)[r - 1]
        p = cum / r
        if kind == "precision":
            x_t: Any = r
        elif kind == "precision-yield":
            x_t = cum
        else:
            npos = curve.n_positives
            x_t = cum / (0.5 * (npos[0] + npos[1]) if npos is not None else 1.0)
        ax.plot(x_t, p, color="black", lw=1.2, label="true precision")
    ax.plot(x_lo, curve.precision_lower, color="tab:blue", lw=1.2, label="lower bound")
    ax.plot(x_hi, curve.precision_upper, color="tab:red", lw=1.2, label="upper bound")
    if show_steps and kind == "precision":
        ax.step(
            r,
            bounds.step_lower(r),
            where="post",
            color="tab:blue",
            ls="--",
            lw=0.8,
            label="step q- (Def. 5)",
        )
        ax.step(
            r,
            bounds.step_upper(r),
            where="post",
            color="tab:red",
            ls="--",
            lw=0.8,
            label="step q+ (Def. 5)",
        )
    plan = bounds.plan
    ax.set_xlabel(xlabel)
    ax.set_ylabel("precision")
    ax.set_ylim(0.0, 1.02)
    ax.set_title(
        f"PAULA bounds: N={plan.n:,}, epsilon={plan.epsilon:g}, Delta={plan.delta}, "
        f"{plan.annotations:,} annotations"
    )
    ax.legend(loc="best", fontsize="small")
    return ax
