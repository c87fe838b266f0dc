"""Rendering of a :class:`~ereval.report.Report` as one self-contained HTML page.

The page embeds everything it needs: its style sheet, the static SVG drawing of
every chart (shown when scripts do not run), the charts' Vega-Lite
specifications as JSON, and once for all charts the Vega / Vega-Lite /
Vega-Embed bundle that ``vl-convert-python`` ships (BSD-3-Clause; about 0.9 MB,
already minified), which redraws each chart interactively. Nothing is fetched:
no CDN, no font, no image file; URLs inside the bundle's code (XML namespaces,
links of the unused editor action) are written with escaped slashes so the page
holds no ``http://`` or ``https://`` outside its licence comment.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import Any

from .._optional import require
from ._charts import Chart, chart_svg, full_spec, panels
from ._model import Report, Table, format_cell

__all__ = ["LICENCE", "inline_svg", "javascript_bundle", "render_html"]

#: The licence comment heading the embedded bundle.
LICENCE = (
    "/*! Vega, Vega-Lite and Vega-Embed, bundled by vl-convert: BSD-3-Clause licence, "
    "Copyright (c) 2015-2024, University of Washington Interactive Data Lab. "
    "Bundled dependencies: d3 modules, delaunator, topojson-client, semver (ISC licence); "
    "fast-json-patch, json-stringify-pretty-compact, lodash.debounce (MIT licence). */"
)


def _template_text(name: str) -> str:
    return files("ereval.report").joinpath("templates", name).read_text(encoding="utf-8")


def _cache_file(version: str) -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not base or base.startswith("~"):
        return None
    return Path(base) / "ereval" / f"vega-bundle-vl-convert-{version}.js"


@functools.lru_cache(maxsize=1)
def javascript_bundle() -> str:
    """The Vega / Vega-Lite / Vega-Embed bundle of vl-convert, with URLs in its strings
    written with escaped slashes (the same strings to JavaScript).

    vl-convert builds the bundle in a few seconds; it is kept per vl-convert version
    in ``$XDG_CACHE_HOME/ereval`` (``~/.cache/ereval``) when that folder is writable.
    """
    vlc = require("vl_convert", feature="an HTML report")
    cache = _cache_file(str(getattr(vlc, "__version__", "unknown")))
    if cache is not None and cache.is_file():
        with contextlib.suppress(OSError):
            return cache.read_text(encoding="utf-8")
    code: str = vlc.javascript_bundle()
    code = code.replace("http://", r"http:\/\/").replace("https://", r"https:\/\/")
    code = code.replace("</script", r"<\/script")
    if cache is not None:
        with contextlib.suppress(OSError):
            cache.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=".bundle-", suffix=".js")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(code)
            os.replace(tmp, cache)
    return code


_ID = re.compile(r'\bid="([^"]+)"')
# what a static drawing does not need: ARIA roles of the interactive view, classes,
# pointer events, empty backgrounds; and more than 2 decimals of a pixel
_ATTRS = re.compile(r'\s(?:aria-[\w-]+|role|class|pointer-events)="[^"]*"')
_EMPTY = re.compile(r'<path class="background" aria-hidden="true" d="M0,0h0v0h0Z"( [^/>]*)?/>')
_DECIMALS = re.compile(r"-?\d+\.\d{3,}")
_VALUE = re.compile(r'="[^"]*"')  # attribute values only: the text shown keeps its digits


def _short(number: str) -> str:
    text = f"{float(number):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def inline_svg(svg: str, prefix: str) -> str:
    """An SVG document made fit to sit inside HTML: no XML declaration nor namespace
    attributes (HTML gives inline SVG its namespace), and ids prefixed so that the
    clip paths of several charts do not collide."""
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = _EMPTY.sub("", text)
    text = _ATTRS.sub("", text)
    text = _VALUE.sub(lambda v: _DECIMALS.sub(lambda m: _short(m.group(0)), v.group(0)), text)
    ids = set(_ID.findall(text))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{prefix}-{name}"
        text = text.replace(f'id="{name}"', f'id="{new}"')
        text = text.replace(f"url(#{name})", f"url(#{new})")
        text = text.replace(f'href="#{name}"', f'href="#{new}"')
    return text


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _table_rows(table: Table) -> list[dict[str, Any]]:
    rows = []
    for i, row in enumerate(table.rows):
        cells = [
            {
                "text": format_cell(v),
                "cls": "num" if _numeric(v) else "",
                "best": (i, j) in table.marked,
            }
            for j, v in enumerate(row)
        ]
        rows.append({"cells": cells, "blank": all(v == "" for v in row)})
    return rows


def _script_json(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(report: Report, *, svgs: dict[int, str] | None = None) -> str:
    """The report as one HTML page (see the module docstring).

    ``svgs`` gives already drawn SVG documents by chart position (0-based), to
    draw each chart once when the SVG files are written too.
    """
    jinja2 = require("jinja2", feature="an HTML report")
    env = jinja2.Environment(autoescape=True, keep_trailing_newline=True)
    template = env.from_string(_template_text("report.html.j2"))
    sections = []
    specs: list[list[dict[str, Any]]] = []
    index = 0
    for s in report.sections:
        charts = []
        for chart in s.charts:
            svg = (svgs or {}).get(index) or chart_svg(chart)
            charts.append({"index": index, "chart": chart, "svg": inline_svg(svg, f"c{index}")})
            specs.append(_spec(chart))
            index += 1
        tables = [{"table": t, "rows": _table_rows(t)} for t in s.tables]
        sections.append({"section": s, "charts": charts, "tables": tables})
    page: str = template.render(
        report=report,
        verdict=report.verdict,
        sections=sections,
        css=_template_text("report.css"),
        specs=_script_json(specs),
        bundle=LICENCE + "\n" + javascript_bundle(),
        init=_template_text("init.js"),
    )
    return page


def _spec(chart: Chart) -> list[dict[str, Any]]:
    """The chart's views as drawn in the page, each as wide as its container."""
    top = full_spec(chart)
    shared = {k: top[k] for k in ("config", "background") if k in top}
    views = [{**view, **shared} for view in panels(chart.spec)]
    out: list[dict[str, Any]] = json.loads(json.dumps(views, allow_nan=False))
    return out
