"""One self-contained HTML report of an evaluation.

:func:`collect_results` reads the inputs once and computes every result they
allow — metrics of several predictions side by side, estimates from a labelled
sample with their intervals and warnings, summary statistics, error analysis,
metrics against the score threshold, monitoring over releases and the release
comparison, OASIS and PAULA, and the provenance of the labels.
:func:`build_report` shows them and computes nothing: each result is shown by
the section registered for its type (:func:`section_for`, :func:`sections`),
with its chart and a short reading of what it shows. The :class:`Report` renders as one offline
HTML page (:meth:`Report.html`, :meth:`Report.save`), as JSON with every
number (:meth:`Report.to_dict`), and inline in a notebook.
:func:`example_report` is the report of the bundled example. Needs the
``report`` extra (``pip install 'ereval[report]'``: vl-convert-python, jinja2).

See ``docs/report.md``.
"""

from __future__ import annotations

from ._build import build_report
from ._charts import Chart
from ._collect import ReportResults, collect_results
from ._example import example_report
from ._model import Report, Section, Table
from ._registry import Part, section_for, sections

__all__ = [
    "Chart",
    "Part",
    "Report",
    "ReportResults",
    "Section",
    "Table",
    "build_report",
    "collect_results",
    "example_report",
    "section_for",
    "sections",
]
