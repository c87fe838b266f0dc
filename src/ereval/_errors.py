"""The exception hierarchy of ereval.

Every error raised for bad user input derives from :class:`ValueError` or
:class:`TypeError`, so callers that already catch those keep working, and the
message always names the argument, what was expected and what was received.
"""

from __future__ import annotations

__all__ = [
    "InputError",
    "InputTypeError",
    "MissingDependencyError",
    "RecordMismatchError",
]


class InputError(ValueError):
    """A value given by the user is not acceptable (wrong range, shape, content)."""


class InputTypeError(TypeError):
    """A value given by the user has a type ereval cannot work with."""


class RecordMismatchError(InputError):
    """Two clusterings (or a sample and a prediction) cover different record sets."""


class MissingDependencyError(ImportError):
    """An optional dependency is needed for the requested feature but is not installed."""
