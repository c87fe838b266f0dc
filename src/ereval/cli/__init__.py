"""The ``ereval`` command line.

Each sub-command lives in its own module with a ``register(app)`` function; this
package only assembles them. Bad input exits with code 2 and a one-line message.
The full :data:`app` is built on first use; :func:`main` builds only the command
it runs.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

# Set when NumPy is not loaded yet (the command itself; a process that imports this
# module later keeps its environment as it was), unless the user chose:
# - NumPy's OpenBLAS starts a worker thread per core as it loads, and the workers
#   spin awaiting work no command gives them (none multiplies matrices worth
#   sharing), taking a core from the command's own threads: one thread.
# - NumPy asks the kernel for huge pages for every array of 4 MB or more; where
#   the kernel then assembles them as the array is first written (its default
#   `defrag` setting, `madvise`), a command that allocates gigabytes in all waits
#   on that at random (10^7 text ids: 6.1-7.2 CPU s from one run to the next,
#   5.6-5.7 without): plain pages.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

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
