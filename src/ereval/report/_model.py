"""The report as plain data: sections of readings, warnings, tables and charts.

A :class:`Report` is computed once (by :func:`ereval.report.build_report`) and
then rendered: as one self-contained HTML page (:meth:`Report.html`), as JSON
with every number it shows (:meth:`Report.to_dict`), inline in a notebook
(:meth:`Report._repr_html_`), or saved with its charts as SVG and PNG files
(:meth:`Report.save`).
"""

from __future__ import annotations

import html as _html
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._errors import InputError
from ..results import json_ready
from ._charts import Chart

if TYPE_CHECKING:
    from ._verdict import Verdict

__all__ = ["Report", "Section", "Table", "close_digits", "format_cell"]


def close_digits(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, or more when that would show a
    non-integer as an integer (0.99997 as "1"): enough digits to see the difference.

    >>> close_digits(0.99997, 4), close_digits(0.95123, 4), close_digits(1.0, 4)
    ('0.99997', '0.9512', '1')
    """
    text = f"{value:.{digits}g}"
    while not value.is_integer() and float(text).is_integer() and digits < 15:
        digits += 1
        text = f"{value:.{digits}g}"
    return text


def format_cell(value: Any, digits: int = 4) -> str:
    """A table cell as text: floats to ``digits`` significant digits, NaN as a dash.

    >>> format_cell(0.951234), format_cell(float("nan")), format_cell(12000), format_cell(None)
    ('0.9512', '–', '12,000', '–')
    """
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value):,}"
        return close_digits(value, digits)
    return str(value)


@dataclass(frozen=True)
class Table:
    """A table of a section.

    Attributes
    ----------
    title : str
    columns : tuple of str
    rows : tuple of tuple
        Cells: numbers (shown to 4 significant digits), text or None.
    marked : frozenset of (int, int)
        ``(row, column)`` cells to highlight (the best value of a row).
    note : str
        A sentence under the table.
    """

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    marked: frozenset[tuple[int, int]] = frozenset()
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``title, columns, rows, marked, note`` in plain types."""
        return {
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(r) for r in self.rows],
            "marked": sorted([r, c] for r, c in self.marked),
            "note": self.note,
        }


@dataclass(frozen=True)
class Section:
    """One part of a report, present only when its inputs are.

    Attributes
    ----------
    key : str
        Stable identifier (``"metrics"``, ``"estimates"``, ...), the HTML anchor.
    title : str
    reading : tuple of str
        Plain-language sentences on what the numbers show, made from them.
    warnings : tuple of str
        Reasons to doubt some numbers (from the results' own warnings).
    tables, charts
        What the section shows.
    numbers : dict
        Every number of the section in plain types (the results' own ``to_dict``).
    """

    key: str
    title: str
    reading: tuple[str, ...]
    tables: tuple[Table, ...] = ()
    charts: tuple[Chart, ...] = ()
    warnings: tuple[str, ...] = ()
    numbers: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain types, with each chart's data rows."""
        return {
            "key": self.key,
            "title": self.title,
            "reading": list(self.reading),
            "warnings": list(self.warnings),
            "tables": [t.to_dict() for t in self.tables],
            "charts": [
                {"name": c.name, "caption": c.caption, "data": c.data()} for c in self.charts
            ],
            "numbers": self.numbers,
        }


Format = Literal["html", "json"]


@dataclass(frozen=True)
class Report:
    """An evaluation report: its sections and what it was made from.

    Attributes
    ----------
    title : str
    sections : tuple of Section
        In reading order.
    inputs : dict of str to str
        What each input was (e.g. ``{"truth": "truth.csv", ...}``).
    created : str
        When it was built (ISO 8601, UTC).
    version : str
        The ereval version that built it.
    """

    title: str
    sections: tuple[Section, ...]
    inputs: dict[str, str]
    created: str
    version: str

    def section(self, key: str) -> Section:
        """The section with this key (``KeyError`` if the inputs did not allow it)."""
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(key)

    @property
    def verdict(self) -> Verdict | None:
        """What the report says first (:func:`ereval.report._verdict.verdict_of`)."""
        from ._verdict import verdict_of

        return verdict_of(self.sections)

    @property
    def charts(self) -> tuple[Chart, ...]:
        """Every chart, in reading order."""
        return tuple(c for s in self.sections for c in s.charts)

    def to_dict(self) -> dict[str, Any]:
        """Every number of the report in plain JSON types (NaN becomes None)."""
        out = {
            "title": self.title,
            "created": self.created,
            "ereval_version": self.version,
            "inputs": dict(self.inputs),
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "sections": [s.to_dict() for s in self.sections],
        }
        ready: dict[str, Any] = json_ready(out)
        return ready

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    def html(self) -> str:
        """The report as one self-contained HTML page (scripts, styles and the SVG
        fallback of every chart embedded; no request leaves the page)."""
        from ._html import render_html

        return render_html(self)

    def _repr_html_(self) -> str:
        """Notebook display: the page in an ``iframe`` (``srcdoc``), so its scripts and
        styles run apart from the notebook's."""
        page = _html.escape(self.html(), quote=True)
        return (
            f'<iframe srcdoc="{page}" style="width:100%;height:720px;border:1px solid #ddd" '
            f'title="{_html.escape(self.title)}"></iframe>'
        )

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        fmt: Format | None = None,
        plots_dir: str | os.PathLike[str] | None = None,
    ) -> list[Path]:
        """Write the report, and optionally its charts and numbers beside it.

        Parameters
        ----------
        path : path
            The page (``.html``) or the numbers (``.json``).
        fmt : {"html", "json"}, optional
            Default: from the suffix of ``path`` (``.json`` for JSON, else HTML).
        plots_dir : path, optional
            A folder (created if needed) to also write each chart as
            ``NN-name.svg`` and ``NN-name.png`` and the numbers as ``report.json``.

        Returns
        -------
        list of pathlib.Path
            The files written.
        """
        target = Path(path)
        kind = fmt or ("json" if target.suffix.lower() == ".json" else "html")
        if kind not in ("html", "json"):
            raise InputError(f"'fmt' must be 'html' or 'json'; received {kind!r}")
        files = self.files(kind, plots_dir=plots_dir, path=target)
        written = []
        for file, content in files.items():
            file.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                file.write_bytes(content)
            else:
                file.write_text(content, encoding="utf-8")
            written.append(file)
        return written

    def files(
        self,
        fmt: Format,
        *,
        path: Path,
        plots_dir: str | os.PathLike[str] | None = None,
    ) -> dict[Path, str | bytes]:
        """The contents :meth:`save` writes, by path (for writers that write atomically)."""
        from ._charts import chart_png, chart_svg
        from ._html import render_html

        svgs = {k: chart_svg(c) for k, c in enumerate(self.charts)} if plots_dir else None
        page = render_html(self, svgs=svgs) if fmt == "html" else self.to_json()
        out: dict[Path, str | bytes] = {path: page}
        if plots_dir is not None and svgs is not None:
            folder = Path(plots_dir)
            for k, chart in enumerate(self.charts):
                stem = f"{k + 1:02d}-{chart.name}"
                out[folder / f"{stem}.svg"] = svgs[k]
                out[folder / f"{stem}.png"] = chart_png(chart)
            out[folder / "report.json"] = self.to_json()
        return out
