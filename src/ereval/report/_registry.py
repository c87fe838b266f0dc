"""Which section shows which result: the registry of section renderers.

A renderer turns one computed result (a :class:`Part`: the result, the warnings
its computation gave and the names the reader needs) into a
:class:`~ereval.report.Section`. Renderers are registered per result type
(:func:`section_for`) and only read the result: formatting, tables, charts and
the reading in words; every number was computed before
(:func:`ereval.report.collect_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._errors import InputTypeError
from ._model import Section

__all__ = ["Part", "Renderer", "render", "section_for", "sections"]


@dataclass(frozen=True, eq=False)
class Part:
    """One computed result of a report, as its section shows it.

    Attributes
    ----------
    result : object
        The result (e.g. a :class:`~ereval.curves.ThresholdCurve`, a
        :class:`~ereval.Monitoring`); its type chooses the section.
    warnings : tuple of str
        The warnings its computation gave.
    context : dict
        Names and settings the section mentions (e.g. the releases compared).
    """

    result: Any
    warnings: tuple[str, ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)


Renderer = Callable[[Part], Section]
R = TypeVar("R", bound=Renderer)

_SECTIONS: dict[type, Renderer] = {}


def section_for(result_type: type) -> Callable[[R], R]:
    """Register the decorated function as the renderer of ``result_type``'s section."""

    def register(func: R) -> R:
        _SECTIONS[result_type] = func
        return func

    return register


def sections() -> dict[type, Renderer]:
    """The registered renderers by result type (a copy)."""
    return dict(_SECTIONS)


def render(part: Part) -> Section:
    """The section of ``part``: the renderer of its result's type (or of its nearest
    registered base class).

    Raises
    ------
    InputTypeError
        No section shows results of that type.
    """
    for cls in type(part.result).__mro__:
        if cls in _SECTIONS:
            return _SECTIONS[cls](part)
    known = sorted(c.__name__ for c in _SECTIONS)
    raise InputTypeError(
        f"a report has no section for a {type(part.result).__name__}; it shows {known}"
    )
