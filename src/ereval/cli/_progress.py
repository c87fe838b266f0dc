"""Progress of long commands: a rich progress bar on stderr, only when stderr is a terminal.

Commands wrap their long steps in :func:`progress`. Nothing is shown when
``--quiet`` is given or stderr is not a terminal (a pipe, a file, a test runner),
and nothing ever goes to stdout, which carries the results: commands print their
results after the block.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported when a bar is drawn
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["Tracker", "progress", "stderr_console", "stderr_is_terminal"]


def stderr_is_terminal() -> bool:
    """Whether stderr is an interactive terminal (the only place progress is drawn)."""
    stream: Any = sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def stderr_console() -> Console:
    """The console a progress bar is drawn on by default: stderr."""
    from rich.console import Console

    return Console(stderr=True)


class Tracker:
    """The handle :func:`progress` yields: advance or relabel the task (a no-op when hidden)."""

    def __init__(self, bar: Progress | None = None, task: TaskID | None = None) -> None:
        self._bar = bar
        self._task = task

    @property
    def shown(self) -> bool:
        """Whether a progress bar is drawn."""
        return self._bar is not None

    def advance(self, steps: float = 1.0) -> None:
        """Count ``steps`` more units of work done."""
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task, steps)

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        """Set the work done, the total or the text of the task."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=completed, total=total, description=description)


@contextmanager
def progress(
    description: str,
    *,
    total: float | None = None,
    quiet: bool = False,
    console: Console | None = None,
) -> Iterator[Tracker]:
    """Show a progress bar (or a spinner when ``total`` is None) while the block runs.

    Parameters
    ----------
    description : str
        What is being done, e.g. ``"sampling"``.
    total : float, optional
        Units of work in all (or set later with :meth:`Tracker.update`); while it is
        unknown the bar pulses.
    quiet : bool, default False
        Hide the bar (the command's ``--quiet``).
    console : rich.console.Console, optional
        Where to draw; default stderr, and only when stderr is a terminal.
    """
    if quiet or (console is None and not stderr_is_terminal()):
        yield Tracker()
        return
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    target = console if console is not None else stderr_console()
    # the bar pulses and the percentage is blank while the total is unknown
    columns: list[Any] = [
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
    ]
    # stdout is never redirected (results must not reach stderr); lines written to
    # stderr meanwhile (warnings) are printed above the bar
    bar = Progress(
        *columns, console=target, transient=True, redirect_stdout=False, redirect_stderr=True
    )
    with bar:
        task = bar.add_task(description, total=total)
        yield Tracker(bar, task)
