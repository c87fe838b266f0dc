"""The exception hierarchy of ereval.

:class:`Error` is the root of every error ereval raises on purpose, so
``except ereval.Error`` catches them all. Every error raised for bad user input
also derives from :class:`ValueError` or :class:`TypeError`, so callers that
already catch those keep working, and the message always names the argument,
what was expected and what was received.

Errors that a caller may want to handle carry what they report as data
(:class:`RecordMismatchError`, :class:`IdKindError`, :class:`RepeatedPairsError`),
so that nobody has to read a message's text to tell one case from another.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Error",
    "IdKindError",
    "InputError",
    "InputTypeError",
    "MissingDependencyError",
    "RecordMismatchError",
    "RepeatedPairsError",
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


class IdKindError(InputTypeError):
    """The record ids of two inputs are of kinds that can never be equal (integers
    on one side and text on the other, keys of different numbers of columns).

    Attributes
    ----------
    sides : tuple of str
        The names of the two inputs, e.g. ``("truth", "pred")``.
    kinds : tuple of two tuples of str
        The kinds of each side's id columns, e.g. ``(("integer",), ("text",))``.
    examples : tuple of two tuples
        A few ids of each side.
    """

    def __init__(
        self,
        message: str,
        *,
        sides: tuple[str, str],
        kinds: tuple[tuple[str, ...], tuple[str, ...]],
        examples: tuple[tuple[Any, ...], tuple[Any, ...]],
    ) -> None:
        super().__init__(message)
        self.sides = sides
        self.kinds = kinds
        self.examples = examples


class RepeatedPairsError(InputError):
    """A list of pairs holds some pair more than once (in either order).

    Attributes
    ----------
    name : str
        The argument holding the pairs.
    n_repeated : int
        How many rows repeat a pair given before them.
    """

    def __init__(self, message: str, *, name: str, n_repeated: int) -> None:
        super().__init__(message)
        self.name = name
        self.n_repeated = n_repeated


class MissingDependencyError(Error, ImportError):
    """An optional dependency is needed for the requested feature but is not installed."""
