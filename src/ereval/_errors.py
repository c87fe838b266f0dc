"""The exception hierarchy of ereval.

:class:`Error` is the root of every error ereval raises on purpose, so
``except ereval.Error`` catches them all. Every error raised for bad user input
also derives from :class:`ValueError` or :class:`TypeError`, so callers that
already catch those keep working, and the message always names the argument,
what was expected and what was received.

Errors that a caller may want to handle carry what they report as data
(:class:`RecordMismatchError`), so that nobody has to read a message's text to
tell one case from another.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "InputError",
    "InputTypeError",
    "MissingDependencyError",
    "RecordMismatchError",
]


class Error(Exception):
    """The root of every error ereval raises on purpose."""


class InputError(Error, ValueError):
    """A value given by the user is not acceptable (wrong range, shape, content)."""


class InputTypeError(Error, TypeError):
    """A value given by the user has a type ereval cannot work with."""


class RecordMismatchError(InputError):
    """Two inputs cover different record sets (two clusterings, a sample and a
    prediction, pairs and a truth).

    Attributes
    ----------
    sides : tuple of str or None
        The names of the two inputs compared, e.g. ``("truth", "pred")``, when the
        error is about two of them.
    n_only : tuple of int or None
        How many records only the first and only the second input hold, when counted.
    """

    def __init__(
        self,
        message: str,
        *,
        sides: tuple[str, str] | None = None,
        n_only: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.sides = sides
        self.n_only = n_only


class MissingDependencyError(Error, ImportError):
    """An optional dependency is needed for the requested feature but is not installed."""
