"""``ereval example``: write the bundled example data set into a directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import examples, fail, handle_errors


@handle_errors
def example_command(
    directory: Annotated[
        Path, typer.Argument(help="Directory to write the files into (created if needed).")
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite example files already in DIRECTORY.")
    ] = False,
) -> None:
    """Write the example data set (records, truth, predictions, pairs, labels) into DIRECTORY.

    4,546 records of 2,165 simulated people from pseudopeople (BSD-3-Clause),
    their true clustering, a good and a poor predicted clustering, four dated
    releases, scored candidate pairs with labels (for oasis and paula), the
    labels of a PAULA plan and a labelled sample of true clusters (for
    estimate). Try: ereval metrics DIRECTORY/truth.csv DIRECTORY/pred_good.csv
    """
    from .. import example

    clash = example.existing(directory)
    if clash and not force:
        shown = ", ".join(clash[:3]) + (", ..." if len(clash) > 3 else "")
        raise fail(
            f"'{directory}' already holds {len(clash)} of the example files with other content "
            f"({shown}); "
            "nothing was written (use --force to overwrite them)"
        )
    written = example.write(directory, force=force)
    typer.echo(f"wrote {len(written)} files to {directory}")


def register(app: typer.Typer) -> None:
    """Add ``example`` to the application."""
    app.command(
        "example",
        epilog=examples(
            "ereval example demo",
            "ereval example demo --force",
        ),
    )(example_command)
