"""Assembly of the Typer application from the sub-command modules.

:data:`app` holds every command. :func:`main`, the console script, imports only
the module of the command named on the command line (each module brings its own
heavy dependencies), and the whole application for ``--help``, no argument or an
unknown name, so that help and errors read the same.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from .._version import __version__
from ._allocator import keep_freed_memory
from ._common import App

_NAME = "ereval"
_HELP = (
    "Evaluate entity resolution: metrics, summary statistics and monitoring, estimates "
    "from labelled samples, OASIS, PAULA."
)

#: Sub-command modules, each exposing ``register(app: typer.Typer) -> None``, in
#: the order of the help, with the top-level commands (or groups) each one adds.
_COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "ereval.cli._estimate": ("estimate",),
    "ereval.cli._simulate": ("simulate",),
    "ereval.cli._sample_command": ("sample",),
    "ereval.cli._plan": ("plan",),
    "ereval.cli._metrics": ("metrics", "errors"),
    "ereval.cli._analyze": ("analyze",),
    "ereval.cli._summary": ("summary",),
    "ereval.cli._compare": ("compare",),
    "ereval.cli._monitor": ("monitor",),
    "ereval.cli._curve": ("curve",),
    "ereval.cli._oasis": ("oasis",),
    "ereval.cli._paula": ("paula",),
    "ereval.cli._label": ("label",),
    "ereval.cli._example": ("example",),
    "ereval.cli._label_serve": ("label",),  # after the label group, which it joins
    "ereval.cli._report": ("report",),
}


def _new_app() -> App:
    app = App(name=_NAME, help=_HELP, add_completion=False)
    app.callback()(_top)
    return app


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"{_NAME} {__version__}")
        raise typer.Exit()


def _top(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version of ereval and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """The options of ``ereval`` itself, before any command."""


def build_app(command: str | None = None) -> App:
    """The application with every command, or only the modules that add ``command``.

    Parameters
    ----------
    command : str, optional
        A top-level command or group name (``"metrics"``, ``"label"``); ``None``
        for every command.

    Returns
    -------
    App
        The Typer application.

    Examples
    --------
    >>> [c.name for c in build_app("metrics").registered_commands]
    ['metrics', 'errors']
    """
    target = _new_app()
    for module, names in _COMMAND_MODULES.items():
        if command is None or command in names:
            importlib.import_module(module).register(target)
    return target


def command_of(argv: Sequence[str]) -> str | None:
    """The known command named first in ``argv``, or ``None`` (help, nothing, unknown).

    Examples
    --------
    >>> command_of(["metrics", "t.csv", "p.csv"]), command_of(["--help"]), command_of(["nope"])
    ('metrics', None, None)
    """
    if not argv:
        return None
    first = argv[0]
    known = {name for names in _COMMAND_MODULES.values() for name in names}
    return first if first in known else None


@functools.cache
def _full_app() -> App:
    return build_app()


#: The application with every command, built on first use (module ``__getattr__``).
app: App


def __getattr__(name: str) -> App:
    if name == "app":
        return _full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point of the ``ereval`` console script."""
    keep_freed_memory()
    command = command_of(sys.argv[1:])
    if command is None:
        _full_app()()
        return
    # a group even for a module with one command: Typer would otherwise run that
    # command at the top level, and 'ereval example' would read 'example' as an argument
    typer.main.get_group(build_app(command))()
