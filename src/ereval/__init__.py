"""ereval: evaluate entity resolution systems.

Exact clustering metrics from one sparse contingency table, estimates of true
performance from small labelled samples, OASIS adaptive sampling for pairwise
F-measure, and PAULA precision-curve bounds for ranked lists. Every number with
uncertainty is an :class:`Estimate` (value, std, interval, level, n, method,
warnings).

The verbs (:func:`evaluate`, :func:`estimate`, :func:`draw_sample`,
:func:`summarize`, :func:`compare`, :func:`monitor`, :func:`threshold_curve`,
:func:`evaluate_pairs`, :func:`record_errors`, :func:`cluster_errors`,
:func:`simulate`, ...), their result types, the engines and the errors are
importable from here; each public subpackage (``ereval.metrics``,
``ereval.estimators``, ...) lists the rest of its surface in ``__all__``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._errors import (
    Error,
    IdKindError,
    InputError,
    InputTypeError,
    MissingDependencyError,
    RecordMismatchError,
    RepeatedPairsError,
)
from ._version import __version__

if TYPE_CHECKING:
    from ._compare import Category, Comparison, ReleaseTotals, compare
    from ._monitor import ControlRule, Monitoring, monitor, release_sources
    from ._simulate import SimulationDesign, SimulationResult, inject_errors, simulate
    from .analysis import SampleErrors, sample_errors
    from .contingency import ContingencyTable, contingency_table
    from .curves import ThresholdCurve, evaluate_pairs, threshold_curve
    from .engines import DuckDBEngine, Engine, NumpyEngine, SparkEngine, get_engine
    from .estimators import ClusterSample, draw_sample, estimate
    from .io import Alignment, Membership, PairList, align, as_membership, as_pairs
    from .metrics import CANONICAL_METRICS, EXTRA_METRICS, cluster_errors, evaluate, record_errors
    from .paula import PaulaBounds, paula_bounds
    from .report import build_report
    from .results import Estimate, EstimateCurve, Result
    from .summary import Summary, summarize


__all__ = [
    "Alignment",
    "CANONICAL_METRICS",
    "Category",
    "ClusterSample",
    "Comparison",
    "ContingencyTable",
    "ControlRule",
    "DuckDBEngine",
    "EXTRA_METRICS",
    "Engine",
    "Error",
    "Estimate",
    "EstimateCurve",
    "IdKindError",
    "InputError",
    "InputTypeError",
    "Membership",
    "MissingDependencyError",
    "Monitoring",
    "NumpyEngine",
    "PairList",
    "PaulaBounds",
    "RecordMismatchError",
    "ReleaseTotals",
    "RepeatedPairsError",
    "Result",
    "SampleErrors",
    "SimulationDesign",
    "SimulationResult",
    "SparkEngine",
    "Summary",
    "ThresholdCurve",
    "__version__",
    "align",
    "as_membership",
    "as_pairs",
    "build_report",
    "cluster_errors",
    "compare",
    "contingency_table",
    "draw_sample",
    "estimate",
    "evaluate",
    "evaluate_pairs",
    "get_engine",
    "inject_errors",
    "monitor",
    "paula_bounds",
    "record_errors",
    "release_sources",
    "sample_errors",
    "simulate",
    "summarize",
    "threshold_curve",
]

# Public name -> module that defines it, imported on first use (PEP 562): a
# command that needs only some of them does not pay for the others' imports.
_LAZY: dict[str, str] = {
    "ContingencyTable": ".contingency",
    "contingency_table": ".contingency",
    "Alignment": ".io",
    "Membership": ".io",
    "PairList": ".io",
    "align": ".io",
    "as_membership": ".io",
    "as_pairs": ".io",
    "CANONICAL_METRICS": ".metrics",
    "EXTRA_METRICS": ".metrics",
    "cluster_errors": ".metrics",
    "evaluate": ".metrics",
    "record_errors": ".metrics",
    "Estimate": ".results",
    "EstimateCurve": ".results",
    "Result": ".results",
    "ClusterSample": ".estimators",
    "draw_sample": ".estimators",
    "estimate": ".estimators",
    "Summary": ".summary",
    "summarize": ".summary",
    "Category": "._compare",
    "Comparison": "._compare",
    "ReleaseTotals": "._compare",
    "compare": "._compare",
    "ControlRule": "._monitor",
    "Monitoring": "._monitor",
    "monitor": "._monitor",
    "release_sources": "._monitor",
    "SimulationDesign": "._simulate",
    "SimulationResult": "._simulate",
    "inject_errors": "._simulate",
    "simulate": "._simulate",
    "ThresholdCurve": ".curves",
    "evaluate_pairs": ".curves",
    "threshold_curve": ".curves",
    "DuckDBEngine": ".engines",
    "Engine": ".engines",
    "NumpyEngine": ".engines",
    "SparkEngine": ".engines",
    "get_engine": ".engines",
    "SampleErrors": ".analysis",
    "sample_errors": ".analysis",
    "PaulaBounds": ".paula",
    "paula_bounds": ".paula",
    "build_report": ".report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
