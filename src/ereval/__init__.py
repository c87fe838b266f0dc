"""ereval: evaluate entity resolution systems.

Exact clustering metrics from one sparse contingency table, estimates of true
performance from small labelled samples, OASIS adaptive sampling for pairwise
F-measure, and PAULA precision-curve bounds for ranked lists. Every number with
uncertainty is an :class:`Estimate` (value, std, interval, level, n, method,
warnings).
"""

from __future__ import annotations

from ._errors import InputError, InputTypeError, MissingDependencyError, RecordMismatchError
from .contingency import Alignment, ContingencyTable, align, contingency_table
from .io import Membership, PairList, as_membership, as_pairs
from .metrics import CANONICAL_METRICS, EXTRA_METRICS, cluster_errors, evaluate, record_errors
from .results import Estimate

__version__ = "0.1.0"

__all__ = [
    "Alignment",
    "CANONICAL_METRICS",
    "ContingencyTable",
    "EXTRA_METRICS",
    "Estimate",
    "InputError",
    "InputTypeError",
    "Membership",
    "MissingDependencyError",
    "PairList",
    "RecordMismatchError",
    "__version__",
    "align",
    "as_membership",
    "as_pairs",
    "cluster_errors",
    "contingency_table",
    "evaluate",
    "record_errors",
]
