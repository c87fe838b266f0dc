"""The examples in the docstrings of every module of ``ereval`` run and print what they show."""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil
from pathlib import Path

import pytest

import ereval


def _module_names() -> list[str]:
    def fail(name: str) -> None:
        raise ImportError(f"cannot import {name} while walking the ereval package")

    walked = pkgutil.walk_packages(ereval.__path__, prefix="ereval.", onerror=fail)
    return sorted(["ereval", *(info.name for info in walked)])


MODULES = _module_names()


def _doctests() -> dict[str, list[doctest.DocTest]]:
    """Module name -> the docstrings of that module that hold examples."""
    finder = doctest.DocTestFinder()
    found = {}
    for name in MODULES:
        tests = [test for test in finder.find(importlib.import_module(name)) if test.examples]
        if tests:
            found[name] = sorted(tests, key=lambda test: test.name)
    return found


BY_MODULE = _doctests()
DOCTESTS = [test for tests in BY_MODULE.values() for test in tests]


def test_every_module_of_the_package_is_walked() -> None:
    root = Path(ereval.__file__).resolve().parent
    on_disk = set()
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        on_disk.add(".".join(("ereval", *parts)))
    assert set(MODULES) == on_disk


def test_the_modules_with_examples_are_found() -> None:
    assert {"ereval.io._memberships", "ereval.metrics.registry", "ereval.oasis.pool"} <= set(
        BY_MODULE
    )
    assert len(DOCTESTS) >= 40


@pytest.mark.parametrize("test", DOCTESTS, ids=[test.name for test in DOCTESTS])
def test_docstring_examples(
    test: doctest.DocTest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files leave nothing behind
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=report.write)
    assert result.attempted > 0
    if result.failed:
        message = f"{result.failed} of {result.attempted} examples failed:\n{report.getvalue()}"
        pytest.fail(message, pytrace=False)
