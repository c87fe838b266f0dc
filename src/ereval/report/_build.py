"""Show computed results as a :class:`~ereval.report.Report`: one section per result.

:func:`build_report` computes nothing: each result (a :class:`Part` of
:func:`ereval.report.collect_results`, or any result a section is registered for)
is shown by the section registered for its type (:func:`render`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping

from . import _exact, _pairs, _releases, _sample  # noqa: F401  (register the sections)
from ._collect import ReportResults
from ._model import Report, Section
from ._registry import Part, render

__all__ = ["build_report"]


def build_report(
    results: ReportResults | Iterable[Part | object],
    *,
    title: str = "Entity resolution evaluation",
    inputs: Mapping[str, str] | None = None,
) -> Report:
    """A report with one section per computed result.

    Parameters
    ----------
    results : ReportResults or iterable
        The results of :func:`ereval.report.collect_results`, or results in the
        order of their sections: each a :class:`~ereval.report.Part` or a bare
        result (e.g. a :class:`~ereval.Monitoring`).
    title : str
    inputs : mapping, optional
        What the results were computed from, by name (those of ``results`` when it
        is a :class:`ReportResults`).

    Returns
    -------
    Report

    Raises
    ------
    InputTypeError
        A result no section shows.

    Examples
    --------
    >>> from ereval import example
    >>> from ereval.report import collect_results
    >>> r = build_report(collect_results(truth=example.load("truth.csv"),
    ...                                  preds={"good": example.load("pred_good.csv")}))
    >>> [s.key for s in r.sections]
    ['metrics', 'summary', 'worst']
    """
    if isinstance(results, ReportResults):
        parts = results.parts
        named = dict(results.inputs if inputs is None else inputs)
    else:
        parts = tuple(p if isinstance(p, Part) else Part(p) for p in results)
        named = dict(inputs or {})
    # a release-only report has a summary already; make sure keys stay unique
    seen: dict[str, int] = {}
    unique: list[Section] = []
    for part in parts:
        s = render(part)
        seen[s.key] = seen.get(s.key, 0) + 1
        if seen[s.key] > 1:
            s = Section(
                f"{s.key}-{seen[s.key]}",
                s.title,
                s.reading,
                s.tables,
                s.charts,
                s.warnings,
                s.numbers,
            )
        unique.append(s)
    from .._version import __version__

    created = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return Report(title, tuple(unique), named, created, __version__)
