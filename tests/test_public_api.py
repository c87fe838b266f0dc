"""The public surface: which modules and names are public, and that it stays so.

A module is public when no part of its dotted path starts with ``_``. Every public
module is listed, with every name of its ``__all__``, in ``public_api.json`` beside
this file: a new public module or name fails here until it is added there on
purpose (and a removed one fails too), so the surface only changes by a decision.
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

import pytest

import ereval

#: Public module -> its ``__all__``, frozen.
FROZEN: dict[str, list[str]] = json.loads(
    Path(__file__).with_name("public_api.json").read_text(encoding="utf-8")
)
PACKAGES = sorted(FROZEN)
#: The bound on the number of public modules.
MAX_PUBLIC_MODULES = 30


def _public_modules() -> list[str]:
    """Every public module under ``src/ereval``, read from the file tree."""
    root = Path(ereval.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = ["ereval", *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            found.append(".".join(parts))
    return found


def test_every_public_module_is_listed() -> None:
    found = set(_public_modules())
    assert found - set(FROZEN) == set(), "public modules not in public_api.json"
    assert set(FROZEN) - found == set(), "listed modules that no longer exist"


def test_few_public_modules() -> None:
    assert len(_public_modules()) <= MAX_PUBLIC_MODULES


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_is_listed(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    assert exported - set(FROZEN[name]) == set(), f"{name}: names not in public_api.json"
    assert set(FROZEN[name]) - exported == set(), f"{name}: listed names no longer exported"


def test_the_verbs_come_from_the_top() -> None:
    verbs = {
        "cluster_errors",
        "compare",
        "draw_sample",
        "estimate",
        "evaluate",
        "evaluate_pairs",
        "monitor",
        "record_errors",
        "simulate",
        "summarize",
        "threshold_curve",
    }
    assert verbs <= set(ereval.__all__)
    for verb in verbs:
        assert inspect.isfunction(getattr(ereval, verb)), verb
        assert getattr(ereval, verb).__doc__, verb


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
    for name in ereval.__all__:
        value = getattr(ereval, name)
        if inspect.isclass(value) and issubclass(value, Exception):
            assert issubclass(value, ereval.Error), name
    assert issubclass(ereval.InputError, ValueError)
    assert issubclass(ereval.InputTypeError, TypeError)
    assert issubclass(ereval.MissingDependencyError, ImportError)
    assert issubclass(ereval.RecordMismatchError, ereval.InputError)
