"""One self-contained HTML report of an evaluation.

:func:`build_report` computes every section the inputs allow — metrics of
several predictions side by side, estimates from a labelled sample with their
intervals and warnings, summary statistics, error analysis, metrics against
the score threshold, monitoring over releases and the release comparison,
OASIS and PAULA, and the provenance of the labels — each with its chart and a
short reading of what it shows. The :class:`Report` renders as one offline
HTML page (:meth:`Report.html`, :meth:`Report.save`), as JSON with every
number (:meth:`Report.to_dict`), and inline in a notebook.
:func:`example_report` is the report of the bundled example. Needs the
``report`` extra (``pip install 'ereval[report]'``: vl-convert-python, jinja2).

See ``docs/report.md``.
"""

from __future__ import annotations

from .build import build_report
from .charts import Chart
from .example import example_report
from .model import Report, Section, Table

__all__ = ["Chart", "Report", "Section", "Table", "build_report", "example_report"]
