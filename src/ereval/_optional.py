"""Lazy import of optional dependencies with an install hint."""

from __future__ import annotations

import importlib
import re
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


def release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version string, to compare releases.

    Examples
    --------
    >>> release("1.5.0"), release("2.0.1.dev12"), release("1.10rc1") > release("1.9")
    ((1, 5, 0), (2, 0, 1), True)
    """
    leading = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(n) for n in leading.group(0).split(".")) if leading else ()


def require(
    module: str, *, feature: str, extra: str | None = None, least: str | None = None
) -> ModuleType:
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
    least : str, optional
        The earliest release of the package that works (its ``__version__``).
    """
    top = module.split(".")[0]
    extra = extra or _EXTRA_OF.get(module, _EXTRA_OF.get(top, top))
    try:
        loaded = importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{feature} needs the optional package '{top}', which is not installed; "
            f"install it with: pip install 'ereval[{extra}]'"
        ) from exc
    found = str(getattr(sys.modules[top], "__version__", ""))
    if least is not None and found and release(found) < release(least):
        raise MissingDependencyError(
            f"{feature} needs {top} {least} or later; {found} is installed; "
            f"upgrade it with: pip install -U 'ereval[{extra}]'"
        )
    return loaded


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
