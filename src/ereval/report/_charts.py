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

import json
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._optional import require
from ..plots import Band, Bars, Line, MonitorPanel, Panel

__all__ = [
    "COLOUR_NAMES",
    "Chart",
    "MAX_POINTS",
    "TITLE_CHARS",
    "bars_spec",
    "chart_png",
    "chart_svg",
    "chart_title",
    "concat_spec",
    "fitted_domain",
    "full_spec",
    "grouped_bars_spec",
    "monitor_spec",
    "panel_spec",
    "panels",
]

#: Most points drawn per line; longer lines are thinned evenly (ends kept).
MAX_POINTS = 160

#: matplotlib's named colours used by the figure data, drawn in the Okabe-Ito palette
#: (Okabe and Ito 2008, *Color Universal Design*), told apart with every common colour
#: vision deficiency; each keeps the name its caption uses.
_NAMED = {
    "tab:blue": "#0072B2",
    "tab:orange": "#E69F00",
    "tab:green": "#009E73",
    "tab:red": "#D55E00",
    "tab:purple": "#CC79A7",
    "tab:brown": "#8C564B",
    "tab:pink": "#CC79A7",
    "tab:gray": "#7F7F7F",
    "tab:grey": "#7F7F7F",
    "tab:olive": "#F0E442",
    "tab:cyan": "#56B4E9",
    "black": "#222222",
    "gray": "#888888",
    "grey": "#888888",
}
#: The colour words captions use, by the hex code drawn.
COLOUR_NAMES = {
    "#0072B2": "blue",
    "#E69F00": "orange",
    "#009E73": "green",
    "#D55E00": "red",
    "#CC79A7": "pink",
    "#56B4E9": "light blue",
    "#222222": "black",
    "#888888": "grey",
    "#7F7F7F": "grey",
}
#: Colours of the series of a chart, in order (Okabe-Ito: blue, orange, green, red, ...).
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
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


#: Longest line of a chart's title, in characters: it fits a phone's width (390 px).
TITLE_CHARS = 44


def chart_title(text: str) -> dict[str, Any]:
    """A chart's title, wrapped onto lines that fit a phone's width, never cut short."""
    lines = textwrap.wrap(text, TITLE_CHARS, break_long_words=False) or [text]
    return {"text": lines if len(lines) > 1 else lines[0], "fontSize": 12}


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
        spec["title"] = chart_title(panel.title)
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


def fitted_domain(
    values: Sequence[float | None], limits: tuple[float, float] | None = None, *, step: float = 0.05
) -> tuple[float, float] | None:
    """The axis range of a dot-and-interval chart: the drawn values (estimates and
    interval ends) widened to multiples of ``step`` and kept within ``limits``.

    >>> fitted_domain([0.93, 0.99, 0.81], (0.0, 1.0))
    (0.8, 1.0)
    """
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not xs:
        return None
    lo = math.floor(min(xs) / step - 1e-9) * step
    hi = math.ceil(max(xs) / step + 1e-9) * step
    if hi - lo < step:
        lo, hi = lo - step, hi + step
    if limits is not None:
        lo, hi = max(lo, limits[0]), min(hi, limits[1])
    return round(lo, 10), round(hi, 10)


def _scale_title(title: str, domain: tuple[float, float] | None) -> str | list[str]:
    """The axis title, with a second line stating a range that does not start at 0."""
    if domain is None or domain[0] <= 0 <= domain[1]:  # 0 is on the axis
        return title
    return [title, f"axis from {domain[0]:g} to {domain[1]:g}, not from 0"]


def _dot_layers(
    x: dict[str, Any], y: dict[str, Any], color: dict[str, Any] | str, offset: Any = None
) -> list[dict[str, Any]]:
    """A dot at each value and a line over its interval (when it has one)."""
    colour = {"color": color} if isinstance(color, dict) else {}
    fixed = {} if isinstance(color, dict) else {"color": color}
    where = {"yOffset": offset} if offset is not None else {}
    tooltip = [
        *([{"field": "group", "type": "nominal"}] if offset is not None else []),
        {"field": "label", "type": "nominal"},
        {"field": "value", "type": "quantitative", "format": ".5~g"},
        {"field": "lower", "type": "quantitative", "format": ".5~g"},
        {"field": "upper", "type": "quantitative", "format": ".5~g"},
    ]
    return [
        {
            "transform": [{"filter": "isValid(datum.lower) && isValid(datum.upper)"}],
            "mark": {"type": "rule", "strokeWidth": 2, **fixed},
            "encoding": {
                "x": {**x, "field": "lower"},
                "x2": {"field": "upper"},
                "y": y,
                **where,
                **colour,
            },
        },
        {
            "mark": {"type": "point", "filled": True, "size": 60, "opacity": 1, **fixed},
            "encoding": {"x": x, "y": y, **where, **colour, "tooltip": tooltip},
        },
    ]


def bars_spec(bars: Bars, *, width: int = _WIDTH) -> dict[str, Any]:
    """:class:`~ereval.plots.Bars` with the dashed reference line, first label on top:
    dots with their intervals on an axis fitted to the data when the bars have
    intervals (estimates), bars from 0 when they do not (counts)."""
    rows = _bar_rows(bars)
    dots = any(r["lower"] is not None for r in rows)
    x: dict[str, Any] = {"field": "value", "type": "quantitative", "title": bars.xlabel}
    y = {"field": "label", "type": "nominal", "sort": list(bars.labels), "title": None}
    layers: list[dict[str, Any]]
    if dots:
        drawn = [v for r in rows for v in (r["value"], r["lower"], r["upper"])]
        if not math.isnan(bars.reference):
            drawn.append(bars.reference)
        domain = fitted_domain(drawn, bars.xlim)
        if domain is not None:
            x["scale"] = {"domain": list(domain), "zero": False, "clamp": True}
        x["title"] = _scale_title(bars.xlabel, domain)
        layers = _dot_layers(x, y, _PALETTE[0])
    else:
        if bars.xlim is not None:
            x["scale"] = {"domain": [bars.xlim[0], bars.xlim[1]], "clamp": True}
        layers = [
            {
                "mark": {"type": "bar", "color": _PALETTE[0], "opacity": 0.85},
                "encoding": {
                    "x": x,
                    "y": y,
                    "tooltip": [
                        {"field": "label", "type": "nominal"},
                        {"field": "value", "type": "quantitative", "format": ",.5~g"},
                    ],
                },
            }
        ]
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
                    "mark": {"type": "rule", "color": _PALETTE[3], "strokeDash": [5, 3]},
                    "encoding": {"x": {**x, "field": "reference"}},
                },
            ],
        }
    title = bars.title
    if bars.reference_label:
        title = f"{title} (dashed: {bars.reference_label})" if title else bars.reference_label
    if title:
        spec["title"] = chart_title(title)
    return spec


def grouped_bars_spec(
    groups: Sequence[tuple[str, Bars]], *, title: str = "", width: int = 360
) -> dict[str, Any]:
    """Several :class:`~ereval.plots.Bars` over the same labels, one row per label and
    one colour per group (e.g. the metrics of several predictions): a dot at each
    value with a line over its interval, on an axis fitted to the values drawn (the
    axis title states its range when it does not start at 0)."""
    rows = [row for name, bars in groups for row in _bar_rows(bars, name)]
    labels = list(dict.fromkeys(label for _, bars in groups for label in bars.labels))
    first = groups[0][1] if groups else None
    domain = fitted_domain(
        [v for r in rows for v in (r["value"], r["lower"], r["upper"])],
        first.xlim if first is not None else None,
    )
    x: dict[str, Any] = {
        "field": "value",
        "type": "quantitative",
        "title": _scale_title(first.xlabel if first is not None else "value", domain),
    }
    if domain is not None:
        x["scale"] = {"domain": list(domain), "zero": False, "clamp": True}
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
        "legend": {"orient": "top", "direction": "horizontal"},
    }
    offset = {"field": "group", "sort": names}
    spec: dict[str, Any] = {
        "width": width,
        "height": {"step": 12},
        "data": {"values": rows},
        "layer": _dot_layers(x, y, color, offset),
    }
    if title:
        spec["title"] = chart_title(title)
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
            "axis": {
                "labelFontSize": 11,
                "titleFontSize": 11,
                "labelOverlap": "greedy",
                "labelSeparation": 4,
                "titleLimit": 0,
            },
            "legend": {"labelFontSize": 11},
        },
        "background": "white",
    }


def full_spec(chart: Chart) -> dict[str, Any]:
    """The spec as rendered: the chart's own plus the report's shared style."""
    return _top(chart.spec)


def panels(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The single views of a spec (its ``hconcat`` / ``vconcat`` / ``concat`` parts, in
    reading order), each taking the width of its container: ``width: "container"``
    with ``autosize`` ``fit-x``, so a page lays them out side by side or one under
    the other as its width allows."""
    for key in ("vconcat", "hconcat", "concat"):
        if key in spec:
            return [p for part in spec[key] for p in panels(part)]
    view = {k: v for k, v in spec.items() if k not in ("resolve", "spacing")}
    view["width"] = "container"
    view["autosize"] = {"type": "fit-x", "contains": "padding"}
    height = view.get("height")
    if isinstance(height, dict) and "step" in height:
        # a fitted width needs a fixed height: the rows' steps, as the step would give
        rows = Chart("", "", view).data()
        labels = {r.get("label") for r in rows}
        offset = '"yOffset"' in json.dumps(view)
        groups = {r.get("group") for r in rows} if offset else {None}
        view["height"] = int(height["step"]) * max(len(labels), 1) * max(len(groups), 1)
    return [view]


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
