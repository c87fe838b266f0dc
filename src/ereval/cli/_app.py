"""Assembly of the Typer application from the sub-command modules."""

from __future__ import annotations

import importlib

from ._common import App

app = App(
    name="ereval",
    help="Evaluate entity resolution: metrics, summary statistics and monitoring, estimates "
    "from labelled samples, OASIS, PAULA.",
    add_completion=False,
)

# Sub-command modules, each exposing ``register(app: typer.Typer) -> None``.
_COMMAND_MODULES: tuple[str, ...] = (
    "ereval.cli.estimate",
    "ereval.cli.simulate",
    "ereval.cli.metrics",
    "ereval.cli.summary",
    "ereval.cli.compare",
    "ereval.cli.monitor",
    "ereval.cli.curve",
    "ereval.cli.oasis",
    "ereval.cli.paula",
    "ereval.cli.label",
    "ereval.cli.example",
    "ereval.cli.label_serve",  # after the label group, which it joins
    "ereval.cli.report",
)

for _name in _COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main() -> None:
    """Entry point of the ``ereval`` console script."""
    app()
