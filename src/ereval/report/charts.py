"""Vega-Lite specifications of the figures of :mod:`ereval.plots`.

The figure functions of :mod:`ereval.plots` turn results into figure data
(:class:`~ereval.plots.Panel` of :class:`~ereval.plots.Line` objects,
:class:`~ereval.plots.Bars`, :class:`~ereval.plots.Band`,
:class:`~ereval.plots.MonitorPanel`); this module draws the same data as
Vega-Lite specifications, over the figure's pre-aggregated points only (a line
of more than :data:`MAX_POINTS` points is thinned evenly, its ends kept). A
:class:`Chart` is one specification with a name and a caption; the HTML report
renders it with the embedded Vega bundle, and :func:`chart_svg` /
:func:`chart_png` render it without a browser.

>>> import numpy as np
>>> from ereval.plots import Line, Panel
>>> panel = Panel((Line(np.array([0.0, 1.0]), np.array([0.5, 0.7]), "f1"),), "t", "value")
>>> spec = panel_spec(panel)
>>> [row["y"] for row in spec["layer"][0]["data"]["values"]]
[0.5, 0.7]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._optional import require
from ..plots import Band, Bars, Line, MonitorPanel, Panel

__all__ = [
    "Chart",
    "MAX_POINTS",
    "bars_spec",
    "chart_png",
    "chart_svg",
    "concat_spec",
    "full_spec",
    "grouped_bars_spec",
    "monitor_spec",
    "panel_spec",
]

#: Most points drawn per line; longer lines are thinned evenly (ends kept).
MAX_POINTS = 160

#: matplotlib's named colours used by the figure data, as hex codes.
_NAMED = {
    "tab:blue": "#1f77b4",
    "tab:orange": "#ff7f0e",
    "tab:green": "#2ca02c",
    "tab:red": "#d62728",
    "tab:purple": "#9467bd",
    "tab:brown": "#8c564b",
    "tab:pink": "#e377c2",
    "tab:gray": "#7f7f7f",
    "tab:grey": "#7f7f7f",
    "tab:olive": "#bcbd22",
    "tab:cyan": "#17becf",
    "black": "#222222",
    "gray": "#888888",
    "grey": "#888888",
}
_PALETTE = tuple(v for k, v in _NAMED.items() if k.startswith("tab:") and k != "tab:grey")
_WIDTH, _HEIGHT = 300, 200


@dataclass(frozen=True)
class Chart:
    """One chart of a report: a file-safe ``name``, a caption and its Vega-Lite ``spec``."""

    name: str
    caption: str
    spec: dict[str, Any] = field(repr=False)

    def data(self) -> list[dict[str, Any]]:
        """Every data row drawn, from every layer and panel (for the report's JSON)."""
        rows: list[dict[str, Any]] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                values = node.get("data", {}).get("values") if "data" in node else None
                if isinstance(values, list):
                    rows.extend(values)
                for key in ("layer", "hconcat", "vconcat", "concat"):
                    for child in node.get(key, []):
                        walk(child)

        walk(self.spec)
        return rows


def _color(name: str | None, k: int) -> str:
    if name is None:
        return _PALETTE[k % len(_PALETTE)]
    return _NAMED.get(name, name)


def _num(value: Any) -> float | None:
    """A drawn value: finite, to 5 significant digits (far below a pixel); else None."""
    v = float(value)
    return float(f"{v:.5g}") if math.isfinite(v) else None


def _thin(n: int) -> np.ndarray[Any, Any]:
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(np.int64))


def _line_rows(line: Line, x_labels: Sequence[str] | None) -> list[dict[str, Any]]:
    x, y = np.asarray(line.x, dtype=np.float64), np.asarray(line.y, dtype=np.float64)
    rows = []
    for i in _thin(x.size):
        xv: Any = x_labels[int(x[i])] if x_labels is not None else _num(x[i])
        rows.append({"x": xv, "y": _num(y[i]), "series": line.label})
    return rows


def _x_encoding(xlabel: str, x_labels: Sequence[str] | None) -> dict[str, Any]:
    if x_labels is not None:
        return {
            "field": "x",
            "type": "ordinal",
            "sort": list(x_labels),
            "title": xlabel,
            "axis": {"labelAngle": -30},
        }
    return {"field": "x", "type": "quantitative", "title": xlabel, "scale": {"zero": False}}


def _y_scale(panel: Panel) -> dict[str, Any]:
    scale: dict[str, Any] = {"type": "log"} if panel.yscale == "log" else {"zero": False}
    if panel.ylim is not None:
        scale["domain"] = [panel.ylim[0], panel.ylim[1]]
        scale["clamp"] = True
    return scale


def panel_spec(
    panel: Panel,
    bands: Sequence[Band] = (),
    *,
    x_labels: Sequence[str] | None = None,
    xscale: str = "linear",
    width: int = _WIDTH,
    height: int = _HEIGHT,
) -> dict[str, Any]:
    """A layered Vega-Lite spec of a :class:`~ereval.plots.Panel` (and shaded bands).

    ``x_labels`` makes the x axis ordinal, ``x`` values being positions in it
    (the releases of a monitoring panel); ``xscale="log"`` a log x axis.
    Lines keep their colour, dashes, markers and step form; a line of width 0
    is drawn as its markers only.
    """
    series = [line.label for line in panel.lines] + [band.label for band in bands]
    colors = [_color(line.color, k) for k, line in enumerate(panel.lines)]
    colors += [_color(band.color, k) for k, band in enumerate(bands)]
    color = {
        "field": "series",
        "type": "nominal",
        "title": None,
        "scale": {"domain": series, "range": colors},
        "legend": {"orient": "bottom", "columns": 2, "labelLimit": 260},
    }
    x_enc = _x_encoding(panel.xlabel, x_labels)
    if xscale == "log" and x_labels is None:
        x_enc["scale"] = {"type": "log"}
    y_enc = {"field": "y", "type": "quantitative", "title": panel.ylabel, "scale": _y_scale(panel)}
    tooltip = [
        {"field": "series", "type": "nominal", "title": "line"},
        {"field": "x", "type": x_enc["type"], "title": panel.xlabel},
        {"field": "y", "type": "quantitative", "title": panel.ylabel, "format": ".4~g"},
    ]
    layers: list[dict[str, Any]] = []
    for band in bands:
        x = np.asarray(band.x, dtype=np.float64)
        rows = [
            {
                "x": x_labels[int(x[i])] if x_labels is not None else _num(x[i]),
                "lower": _num(band.lower[i]),
                "upper": _num(band.upper[i]),
                "series": band.label,
            }
            for i in _thin(x.size)
        ]
        layers.append(
            {
                "data": {"values": rows},
                "mark": {"type": "area", "opacity": 0.25},
                "encoding": {
                    "x": x_enc,
                    "y": {**y_enc, "field": "lower"},
                    "y2": {"field": "upper"},
                    "color": color,
                },
            }
        )
    for line in panel.lines:
        rows = _line_rows(line, x_labels)
        enc = {"x": x_enc, "y": y_enc, "color": color, "tooltip": tooltip}
        if line.width > 0:
            mark: dict[str, Any] = {"type": "line", "strokeWidth": max(line.width, 0.8) * 1.4}
            if line.kind == "step":
                mark["interpolate"] = "step-after"
            if line.dashed:
                mark["strokeDash"] = [5, 3]
            if line.marker is not None:
                mark["point"] = {"filled": True, "size": 30}
            layers.append({"data": {"values": rows}, "mark": mark, "encoding": enc})
        else:
            shape = "cross" if line.marker in ("X", "x") else "circle"
            layers.append(
                {
                    "data": {"values": rows},
                    "mark": {"type": "point", "filled": True, "size": 90, "shape": shape},
                    "encoding": enc,
                }
            )
    spec: dict[str, Any] = {"width": width, "height": height, "layer": layers}
    if panel.title:
        spec["title"] = {"text": panel.title, "fontSize": 12, "limit": width + 60}
    return spec


def monitor_spec(panel: MonitorPanel, *, width: int = 240, height: int = 170) -> dict[str, Any]:
    """A :class:`~ereval.plots.MonitorPanel`: the statistic over releases, bands and flags."""
    return panel_spec(panel.panel, panel.bands, x_labels=panel.ticks, width=width, height=height)


def _bar_rows(bars: Bars, group: str | None = None) -> list[dict[str, Any]]:
    rows = []
    for k, label in enumerate(bars.labels):
        row = {
            "label": label,
            "value": _num(bars.values[k]),
            "lower": _num(bars.lower[k]),
            "upper": _num(bars.upper[k]),
        }
        if group is not None:
            row["group"] = group
        rows.append(row)
    return rows


def bars_spec(bars: Bars, *, width: int = _WIDTH) -> dict[str, Any]:
    """Horizontal bars with their intervals and the dashed reference line of
    :class:`~ereval.plots.Bars`, first label on top."""
    rows = _bar_rows(bars)
    x: dict[str, Any] = {"field": "value", "type": "quantitative", "title": bars.xlabel}
    if bars.xlim is not None:
        x["scale"] = {"domain": [bars.xlim[0], bars.xlim[1]], "clamp": True}
    y = {"field": "label", "type": "nominal", "sort": list(bars.labels), "title": None}
    layers: list[dict[str, Any]] = [
        {
            "mark": {"type": "bar", "color": "#4C72B0", "opacity": 0.8},
            "encoding": {
                "x": x,
                "y": y,
                "tooltip": [
                    {"field": "label", "type": "nominal"},
                    {"field": "value", "type": "quantitative", "format": ".4f"},
                ],
            },
        }
    ]
    if any(r["lower"] is not None for r in rows):
        layers.append(
            {
                "transform": [{"filter": "isValid(datum.lower) && isValid(datum.upper)"}],
                "mark": {"type": "rule", "color": "#222222", "strokeWidth": 1.5},
                "encoding": {"x": {**x, "field": "lower"}, "x2": {"field": "upper"}, "y": y},
            }
        )
    spec: dict[str, Any] = {
        "width": width,
        "height": {"step": 22},
        "data": {"values": rows},
        "layer": layers,
    }
    if not math.isnan(bars.reference):
        spec = {
            "width": width,
            "height": {"step": 22},
            "layer": [
                {"data": {"values": rows}, "layer": layers},
                {
                    "data": {"values": [{"reference": bars.reference}]},
                    "mark": {"type": "rule", "color": "#C44E52", "strokeDash": [5, 3]},
                    "encoding": {"x": {"field": "reference", "type": "quantitative"}},
                },
            ],
        }
    title = bars.title
    if bars.reference_label:
        title = f"{title} (dashed: {bars.reference_label})" if title else bars.reference_label
    if title:
        spec["title"] = {"text": title, "fontSize": 12, "limit": width + 120}
    return spec


def grouped_bars_spec(
    groups: Sequence[tuple[str, Bars]], *, title: str = "", width: int = 360
) -> dict[str, Any]:
    """Several :class:`~ereval.plots.Bars` over the same labels side by side, one colour
    per group (e.g. the metrics of several predictions)."""
    rows = [row for name, bars in groups for row in _bar_rows(bars, name)]
    labels = list(dict.fromkeys(label for _, bars in groups for label in bars.labels))
    first = groups[0][1] if groups else None
    x: dict[str, Any] = {
        "field": "value",
        "type": "quantitative",
        "title": first.xlabel if first is not None else "value",
    }
    if first is not None and first.xlim is not None:
        x["scale"] = {"domain": [first.xlim[0], first.xlim[1]], "clamp": True}
    names = [name for name, _ in groups]
    y = {"field": "label", "type": "nominal", "sort": labels, "title": None}
    color = {
        "field": "group",
        "type": "nominal",
        "title": None,
        "scale": {
            "domain": names,
            "range": [_PALETTE[k % len(_PALETTE)] for k in range(len(names))],
        },
        "legend": {"orient": "bottom"},
    }
    layers: list[dict[str, Any]] = [
        {
            "mark": {"type": "bar", "opacity": 0.85},
            "encoding": {
                "x": x,
                "y": y,
                "yOffset": {"field": "group", "sort": names},
                "color": color,
                "tooltip": [
                    {"field": "group", "type": "nominal"},
                    {"field": "label", "type": "nominal"},
                    {"field": "value", "type": "quantitative", "format": ".4f"},
                ],
            },
        }
    ]
    if any(r["lower"] is not None for r in rows):
        layers.append(
            {
                "transform": [{"filter": "isValid(datum.lower) && isValid(datum.upper)"}],
                "mark": {"type": "rule", "color": "#222222"},
                "encoding": {
                    "x": {**x, "field": "lower"},
                    "x2": {"field": "upper"},
                    "y": y,
                    "yOffset": {"field": "group", "sort": names},
                },
            }
        )
    spec: dict[str, Any] = {
        "width": width,
        "height": {"step": 9 * max(len(names), 1) + 6},
        "data": {"values": rows},
        "layer": layers,
    }
    if title:
        spec["title"] = {"text": title, "fontSize": 12}
    return spec


def concat_spec(specs: Sequence[dict[str, Any]], *, columns: int = 2) -> dict[str, Any]:
    """Several specs side by side, ``columns`` per row, each with its own scales.

    Rows of ``hconcat`` in a ``vconcat`` (the embedded Vega-Lite draws these
    reliably; its wrapped ``concat`` renders empty in the browser). A single spec is
    returned as it is.
    """
    if len(specs) == 1:
        return dict(specs[0])
    independent = {"scale": {"color": "independent", "x": "independent", "y": "independent"}}
    rows = [list(specs[k : k + columns]) for k in range(0, len(specs), columns)]
    hrows = [
        {"hconcat": row, "resolve": independent, "spacing": 28} if len(row) > 1 else row[0]
        for row in rows
    ]
    if len(hrows) == 1:
        return hrows[0]
    return {"vconcat": hrows, "resolve": independent, "spacing": 24}


def _top(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        **spec,
        "config": {
            "font": "Helvetica, Arial, sans-serif",
            "view": {"stroke": "#dddddd"},
            "axis": {"labelFontSize": 11, "titleFontSize": 11},
            "legend": {"labelFontSize": 11},
        },
        "background": "white",
    }


def full_spec(chart: Chart) -> dict[str, Any]:
    """The spec as rendered: the chart's own plus the report's shared style."""
    return _top(chart.spec)


def chart_svg(chart: Chart) -> str:
    """The chart as an SVG document (needs ``vl-convert-python``, extra ``report``)."""
    vlc = require("vl_convert", feature="drawing report charts")
    svg: str = vlc.vegalite_to_svg(full_spec(chart))
    return svg


def chart_png(chart: Chart, *, scale: float = 2.0) -> bytes:
    """The chart as PNG bytes (needs ``vl-convert-python``, extra ``report``)."""
    vlc = require("vl_convert", feature="drawing report charts")
    png: bytes = vlc.vegalite_to_png(full_spec(chart), scale=scale)
    return png
