"""``ereval.oasis`` exports a sorted, complete, importable ``__all__``."""

from __future__ import annotations

import inspect

import ereval.oasis as oasis


def test_all_sorted_unique_and_resolvable() -> None:
    names = list(oasis.__all__)
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(oasis, name), name


def test_all_is_complete() -> None:
    public = {
        n
        for n, v in vars(oasis).items()
        if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", "").startswith("ereval.oasis")
    }
    assert public <= set(oasis.__all__), sorted(public - set(oasis.__all__))


def test_public_functions_and_classes_have_docstrings() -> None:
    for name in oasis.__all__:
        obj = getattr(oasis, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, name
