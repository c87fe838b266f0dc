"""Spies for tests: a function wrapped to note what each call gave."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def noting(function: Callable[..., Any], answered: list[bool]) -> Callable[..., Any]:
    """``function``, noting in ``answered`` whether each call gave an answer (anything
    but ``None``: a fast path that applied)."""

    def spy(*args: Any, **kwargs: Any) -> Any:
        got = function(*args, **kwargs)
        answered.append(got is not None)
        return got

    return spy
