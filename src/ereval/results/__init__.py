"""Results: one shape for a number with uncertainty, one for a curve of them, one protocol.

* :class:`Estimate` — a number with its uncertainty (value, std, interval, level,
  n, method, warnings), whatever produced it: the ratio estimators, OASIS, PAULA.
* :class:`EstimateCurve` — quantities with uncertainty along one axis (threshold,
  rank, release, labels spent), one :class:`Estimate` per point kept as columns
  (:class:`EstimateSeries`).
* :class:`Result` — what every result class of ereval offers: ``to_dict()``
  (plain JSON types, NaN as ``None``), ``to_frame()`` (a pandas DataFrame, one row
  per meaningful unit) and, for notebooks, ``_repr_html_()`` (:class:`FrameRepr`).

The report (:mod:`ereval.report`) and the figures (:mod:`ereval.plots`) read these
results and compute nothing.
"""

from __future__ import annotations

from ._curve import EstimateCurve, EstimateSeries
from ._estimate import (
    UNIT_RANGE,
    Estimate,
    clamp_interval,
    interval_estimate,
    normal_estimate,
    normal_quantile,
    problem_warning,
    range_problems,
)
from ._protocol import FrameRepr, Result, bytes_text, html_table, json_ready

__all__ = [
    "Estimate",
    "EstimateCurve",
    "EstimateSeries",
    "FrameRepr",
    "Result",
    "UNIT_RANGE",
    "bytes_text",
    "clamp_interval",
    "html_table",
    "interval_estimate",
    "json_ready",
    "normal_estimate",
    "normal_quantile",
    "problem_warning",
    "range_problems",
]
