"""ereval: evaluate entity resolution systems.

Exact clustering metrics from one sparse contingency table, estimates of true
performance from small labelled samples, OASIS adaptive sampling for pairwise
F-measure, and PAULA precision-curve bounds for ranked lists.
"""

from __future__ import annotations

from ._errors import InputError, InputTypeError, MissingDependencyError, RecordMismatchError

__version__ = "0.1.0"

__all__ = [
    "InputError",
    "InputTypeError",
    "MissingDependencyError",
    "RecordMismatchError",
    "__version__",
]
