"""The ``ereval`` command line.

Each sub-command lives in its own module with a ``register(app)`` function; this
package only assembles them. Bad input exits with code 2 and a one-line message.
The full :data:`app` is built on first use; :func:`main` builds only the command
it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._app import main

if TYPE_CHECKING:
    from ._app import app

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":
        from ._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
