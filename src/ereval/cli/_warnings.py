"""Warnings on stderr, one line each: Python warnings and those carried by results.

stdout holds only the requested output; every doubt about it goes to stderr, so
``ereval ... --format json > out.json`` stays machine-readable.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from ..results import Estimate
from ._common import warn

T = TypeVar("T")

__all__ = ["capture_warnings", "estimate_warnings", "print_warnings", "run_with_warnings"]


def capture_warnings(func: Callable[[], T]) -> tuple[T, list[str]]:
    """Run ``func`` and return its result with the messages of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = func()
    return out, [str(w.message) for w in caught]


def print_warnings(messages: Iterable[str]) -> None:
    """Print each distinct message once on stderr as ``warning: <message>``, in order."""
    for message in dict.fromkeys(messages):
        warn(message)  # in the running command's option names


def run_with_warnings(func: Callable[[], T]) -> T:
    """Run ``func``, printing each warning it raises as one line on stderr."""
    out, caught = capture_warnings(func)
    print_warnings(caught)
    return out


def estimate_warnings(
    results: Mapping[str, Estimate], *, prefix: str = "", caught: Iterable[str] = ()
) -> list[str]:
    """The warnings of ``results`` (each prefixed), after the ``caught`` Python warnings
    that no result already carries."""
    carried = [w for e in results.values() for w in e.warnings]
    known = set(carried)
    return [*(w for w in caught if w not in known), *(prefix + w for w in carried)]
