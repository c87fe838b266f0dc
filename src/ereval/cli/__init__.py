"""The ``ereval`` command line.

Each sub-command lives in its own module with a ``register(app)`` function; this
package only assembles them. Bad input exits with code 2 and a one-line message.
"""

from __future__ import annotations

from ._app import app, main

__all__ = ["app", "main"]
