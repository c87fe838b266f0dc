"""The exported names stay sorted, complete and importable."""

from __future__ import annotations

import importlib
import inspect

import pytest

PACKAGES = [
    "ereval",
    "ereval.analysis",
    "ereval.app",
    "ereval.compare",
    "ereval.contingency",
    "ereval.curves",
    "ereval.engines",
    "ereval.estimators",
    "ereval.example",
    "ereval.io",
    "ereval.labels",
    "ereval.metrics",
    "ereval.monitor",
    "ereval.oasis",
    "ereval.paula",
    "ereval.planning",
    "ereval.plots",
    "ereval.report",
    "ereval.report.charts",
    "ereval.report.html",
    "ereval.report.model",
    "ereval.results",
    "ereval.simulate",
    "ereval.statistics",
    "ereval.summary",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_sorted_and_resolvable(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported), f"{name}.__all__ is not sorted"
    assert len(exported) == len(set(exported))
    for item in exported:
        assert hasattr(module, item), f"{name}.{item} missing"


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_complete(name: str) -> None:
    module = importlib.import_module(name)
    public = {
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", "").startswith(name)
    }
    assert public <= set(module.__all__), sorted(public - set(module.__all__))


def test_every_canonical_metric_has_a_function() -> None:
    metrics = importlib.import_module("ereval.metrics")
    for name in metrics.CANONICAL_METRICS:
        func = getattr(metrics, name)
        assert callable(func) and func.__doc__


def test_every_error_has_one_root() -> None:
    import ereval

    for name in ereval.__all__:
        value = getattr(ereval, name)
        if inspect.isclass(value) and issubclass(value, Exception):
            assert issubclass(value, ereval.Error), name
    assert issubclass(ereval.InputError, ValueError)
    assert issubclass(ereval.InputTypeError, TypeError)
    assert issubclass(ereval.MissingDependencyError, ImportError)
    assert issubclass(ereval.RecordMismatchError, ereval.InputError)
