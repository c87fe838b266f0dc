"""``ereval.paula``'s public surface: sorted and complete ``__all__``, documented, doctested."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import ereval.paula as paula

MODULES = [
    "ereval.paula._bounds",
    "ereval.paula._counts",
    "ereval.paula._diagnostics",
    "ereval.paula._geometry",
    "ereval.paula._labels",
    "ereval.paula._plan",
    "ereval.paula._sampling",
    "ereval.paula._stratified",
]


def test_all_is_sorted_unique_and_resolvable() -> None:
    names = list(paula.__all__)
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(paula, name), name


def test_all_is_complete() -> None:
    exported = set(paula.__all__)
    for mod_name in MODULES:
        if mod_name.endswith(("_geometry", "_labels")):
            continue  # internal helpers; load_labels is checked below
        module = importlib.import_module(mod_name)
        assert set(module.__all__) <= exported, (mod_name, set(module.__all__) - exported)
    assert "load_labels" in exported
    public = {
        n
        for n, v in vars(paula).items()
        if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
    }
    assert public <= exported, sorted(public - exported)


@pytest.mark.parametrize("name", sorted(paula.__all__))
def test_public_functions_cite_the_paper(name: str) -> None:
    obj = getattr(paula, name)
    doc = inspect.getdoc(obj) or ""
    assert doc, name
    if inspect.isfunction(obj):
        assert "Sabharwal" in doc and "References" in doc, name
        assert "Parameters" in doc, name


@pytest.mark.parametrize("mod_name", MODULES)
def test_doctests(mod_name: str) -> None:
    module = importlib.import_module(mod_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
