"""Lazy import of optional dependencies with an install hint."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from ._errors import MissingDependencyError

_EXTRA_OF = {
    "polars": "polars",
    "duckdb": "duckdb",
    "matplotlib": "plot",
    "matplotlib.pyplot": "plot",
    "pyspark": "spark",
    "sklearn": "analysis",
    "vl_convert": "report",
    "jinja2": "report",
    "rapidfuzz": "labels",
    "fastapi": "app",
    "uvicorn": "app",
    "python_multipart": "app",
}


def require(module: str, *, feature: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` with an install hint.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"matplotlib.pyplot"``.
    feature : str
        What the caller wanted to do, used in the message.
    extra : str, optional
        The extra to install, for a package that several extras hold (default: the
        extra this module lists for the package).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = extra or _EXTRA_OF.get(module, _EXTRA_OF.get(top, top))
        raise MissingDependencyError(
            f"{feature} needs the optional package '{top}', which is not installed; "
            f"install it with: pip install 'ereval[{extra}]'"
        ) from exc


def instance_of(obj: object, module: str, *names: str) -> bool:
    """Whether ``obj`` is an instance of one of the classes ``names`` of ``module``.

    The module is not imported: while it is not, no object can be an instance of
    its classes, so a type test never pays for a heavy import (pandas).

    Examples
    --------
    >>> import fractions
    >>> instance_of(fractions.Fraction(1, 2), "fractions", "Fraction")
    True
    >>> instance_of([1, 2], "fractions", "Fraction")
    False
    """
    loaded = sys.modules.get(module)
    if loaded is None:
        return False
    # a class not there yet (another thread is importing the module) has no instances
    classes = tuple(c for c in (getattr(loaded, n, None) for n in names) if isinstance(c, type))
    return isinstance(obj, classes)
