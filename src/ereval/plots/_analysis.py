"""Figures of the error analysis: subgroup estimates and reviewer tags with intervals.

Subgroup disparities follow Binette et al. (2024, Figure 8): one panel per
estimator, a bar per group with its confidence interval and the estimate over
all entities as a reference line. Tag frequencies follow Figure 7: one bar per
tag, most frequent on top.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..analysis import Disparities
from ..results import Estimate
from ._figure import new_figure

__all__ = [
    "Bars",
    "analysis_figure",
    "differences_figure",
    "disparities_figure",
    "plot_analysis",
    "tags_figure",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Bars:
    """Horizontal bars with intervals: one panel of an analysis figure.

    ``lower`` / ``upper`` are NaN where no interval could be estimated;
    ``reference`` (NaN for none) is drawn as a dashed vertical line.
    """

    labels: tuple[str, ...]
    values: FloatArray
    lower: FloatArray
    upper: FloatArray
    xlabel: str
    title: str = ""
    reference: float = float("nan")
    reference_label: str = ""
    xlim: tuple[float, float] | None = (0.0, 1.0)


def _arrays(ests: list[Estimate]) -> tuple[FloatArray, FloatArray, FloatArray]:
    return (
        np.asarray([e.value for e in ests], dtype=np.float64),
        np.asarray([e.lower for e in ests], dtype=np.float64),
        np.asarray([e.upper for e in ests], dtype=np.float64),
    )


def disparities_figure(result: Disparities) -> tuple[Bars, ...]:
    """One :class:`Bars` per estimator: the groups' estimates, the overall one as reference."""
    panels: list[Bars] = []
    for key, overall in result.overall.items():
        labels = tuple(f"{g} ({result.clusters[g]})" for g in result.groups)
        values, lower, upper = _arrays([result.groups[g][key] for g in result.groups])
        panels.append(
            Bars(
                labels,
                values,
                lower,
                upper,
                xlabel=f"{key} ({overall.level:.0%} interval)",
                title=f"{key} by {result.by}",
                reference=overall.value,
                reference_label=f"all entities: {overall.value:.3g}",
            )
        )
    return tuple(panels)


def differences_figure(result: Disparities) -> tuple[Bars, ...]:
    """One :class:`Bars` per estimator: each group's estimate minus the baseline's
    (``result.versus``: all entities, or one group) with its interval, and 0 as the
    reference (Binette et al. 2024, Figure 8, as differences); none without them."""
    if not result.differences:
        return ()
    base = "all entities" if result.versus == "overall" else str(result.versus)
    groups = [g for g in result.groups if g in result.differences]
    panels: list[Bars] = []
    for key in result.overall:
        ests = [result.differences[g][key] for g in groups if key in result.differences[g]]
        if len(ests) != len(groups) or not ests:
            continue
        values, lower, upper = _arrays(ests)
        panels.append(
            Bars(
                tuple(f"{g} ({result.clusters[g]})" for g in groups),
                values,
                lower,
                upper,
                xlabel=f"{key} minus {base} ({ests[0].level:.0%} interval)",
                title=f"{key} by {result.by}, minus {base}",
                reference=0.0,
                reference_label="no difference",
                xlim=(-1.0, 1.0),
            )
        )
    return tuple(panels)


def tags_figure(frequencies: Mapping[str, Estimate], *, title: str = "") -> Bars:
    """The tags' weighted relative frequencies, most frequent on top."""
    ests = list(frequencies.values())
    values, lower, upper = _arrays(ests)
    level = ests[0].level if ests else 0.95
    return Bars(
        tuple(frequencies),
        values,
        lower,
        upper,
        xlabel=f"weighted relative frequency ({level:.0%} interval)",
        title=title or "reviewer tags",
    )


def analysis_figure(
    result: Disparities | None = None, frequencies: Mapping[str, Estimate] | None = None
) -> tuple[Bars, ...]:
    """The panels :func:`plot_analysis` draws: the disparities', then the tags'."""
    panels = list(disparities_figure(result)) if result is not None else []
    if frequencies is not None:
        panels.append(tags_figure(frequencies))
    return tuple(panels)


def _draw(ax: Any, bars: Bars) -> None:
    y = np.arange(len(bars.labels))[::-1]  # first label on top
    ax.barh(y, bars.values, color="#4C72B0", alpha=0.75, height=0.6)
    have = ~np.isnan(bars.lower) & ~np.isnan(bars.upper)
    if have.any():
        err = np.vstack([bars.values - bars.lower, bars.upper - bars.values])[:, have]
        ax.errorbar(
            bars.values[have], y[have], xerr=np.maximum(err, 0.0), fmt="none", ecolor="black",
            capsize=3, lw=1,
        )  # fmt: skip
    if not np.isnan(bars.reference):
        ax.axvline(bars.reference, color="#C44E52", ls="--", lw=1.2)
    ax.set_yticks(y, bars.labels)
    ax.set_xlabel(bars.xlabel)
    if bars.xlim is not None:
        ax.set_xlim(*bars.xlim)
    title = bars.title
    if bars.reference_label:
        title = f"{title} (dashed: {bars.reference_label})" if title else bars.reference_label
    if title:
        ax.set_title(title, fontsize="medium")


def plot_analysis(
    result: Disparities | None = None,
    frequencies: Mapping[str, Estimate] | None = None,
    *,
    path: str | Path | None = None,
) -> Any:
    """Draw subgroup estimates and/or tag frequencies with their intervals.

    One panel per estimator of ``result`` (:func:`ereval.analysis.disparities`)
    and one for ``frequencies`` (:func:`ereval.analysis.tag_frequencies`),
    stacked. Needs matplotlib (extra ``plot``).

    Returns
    -------
    matplotlib.figure.Figure
        Also written to ``path`` when given.
    """
    panels = analysis_figure(result, frequencies)
    if not panels:
        raise ValueError("'result' and 'frequencies' are both None; there is nothing to plot")
    rows = [max(len(p.labels), 1) for p in panels]
    height = sum(0.9 + 0.35 * r for r in rows)
    fig = new_figure(feature="plotting an error analysis", size=(6.5, max(height, 2.5)))
    axes = fig.subplots(len(panels), 1, gridspec_kw={"height_ratios": [1 + r for r in rows]})
    for ax, panel in zip(np.atleast_1d(axes), panels, strict=True):
        _draw(ax, panel)
    if path is not None:
        fig.savefig(Path(path))
    return fig
