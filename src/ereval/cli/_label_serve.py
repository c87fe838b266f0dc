"""``ereval label serve``: the labelling web app over a label store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import App, examples, handle_errors


@handle_errors
def serve_command(
    db: Annotated[Path, typer.Option("--db", help="The label store (SQLite file).")],
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on; any other than 127.0.0.1/localhost needs an "
            "access token (generated and printed if --token is not given).",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: any free port).")
    ] = 8000,
    reviewer: Annotated[
        str | None,
        typer.Option("--reviewer", help="Who labels (default: your login name)."),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help="Access token that every request must carry (at least 8 characters).",
        ),
    ] = None,
) -> None:
    """Serve the labelling app for the sessions of a label store.

    Cluster review (mark records that do not belong, search for missing ones,
    checks, error tags, save), pair labelling driven by OASIS and ranked-item
    labelling driven by a PAULA plan, agreement and adjudication; every action
    has a keyboard shortcut shown on screen. One server per store: a second one
    is refused while the first runs. Every label is committed when it is given.
    """
    from ..app import serve

    serve(
        db,
        host=host,
        port=port,
        reviewer=reviewer,
        token=token,
        echo=lambda line: typer.echo(line, err=False),
    )


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``label`` group of the application (created if absent)."""
    group: typer.Typer | None = None
    for info in app.registered_groups:
        if info.name == "label" and info.typer_instance is not None:
            group = info.typer_instance
    if group is None:
        group = App(name="label", help="Label samples, pairs and ranked items; serve the app.")
        app.add_typer(group, name="label")
    group.command(
        "serve",
        epilog=examples(
            "ereval label serve --db labels.db",
            "ereval label serve --db labels.db --port 8080 --reviewer ana",
            "ereval label serve --db labels.db --host 0.0.0.0 --token s3cret-token",
        ),
    )(serve_command)
