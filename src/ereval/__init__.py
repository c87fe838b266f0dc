"""ereval: evaluate entity resolution systems.

Exact clustering metrics from one sparse contingency table, estimates of true
performance from small labelled samples, OASIS adaptive sampling for pairwise
F-measure, and PAULA precision-curve bounds for ranked lists. Every number with
uncertainty is an :class:`Estimate` (value, std, interval, level, n, method,
warnings).
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

if TYPE_CHECKING:
    from .contingency import ContingencyTable, contingency_table
    from .io import Alignment, Membership, PairList, align, as_membership, as_pairs
    from .metrics import CANONICAL_METRICS, EXTRA_METRICS, cluster_errors, evaluate, record_errors
    from .results import Estimate

__version__ = "0.1.0"

__all__ = [
    "Alignment",
    "CANONICAL_METRICS",
    "ContingencyTable",
    "EXTRA_METRICS",
    "Error",
    "Estimate",
    "IdKindError",
    "InputError",
    "InputTypeError",
    "Membership",
    "MissingDependencyError",
    "PairList",
    "RecordMismatchError",
    "RepeatedPairsError",
    "__version__",
    "align",
    "as_membership",
    "as_pairs",
    "cluster_errors",
    "contingency_table",
    "evaluate",
    "record_errors",
]

# Public name -> module that defines it, imported on first use (PEP 562): a
# command that needs only some of them does not pay for the others' imports.
_LAZY: dict[str, str] = {
    "ContingencyTable": ".contingency",
    "contingency_table": ".contingency",
    "Alignment": ".io",
    "align": ".io",
    "Membership": ".io",
    "PairList": ".io",
    "as_membership": ".io",
    "as_pairs": ".io",
    "CANONICAL_METRICS": ".metrics",
    "EXTRA_METRICS": ".metrics",
    "cluster_errors": ".metrics",
    "evaluate": ".metrics",
    "record_errors": ".metrics",
    "Estimate": ".results",
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
