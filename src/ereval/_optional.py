"""Lazy import of optional dependencies with an install hint."""

from __future__ import annotations

import importlib
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
