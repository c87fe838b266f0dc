"""Where the tests find the bundled example: a copy written through :mod:`ereval.example`.

The copy is written once per test process into a temporary folder (removed at exit), so the
tests read the data exactly as a user of the installed package gets it, never a path of the
source tree, and cannot change the packaged files.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import ereval
from ereval import example

_ROOT = Path(tempfile.mkdtemp(prefix="ereval-tests-example-"))
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)

#: A folder holding every file of :data:`ereval.example.FILES`.
EXAMPLES: Path = _ROOT / "example"
example.write(EXAMPLES)

#: The folder the tested ``ereval`` package is imported from, for ``PYTHONPATH`` of subprocesses.
IMPORT_ROOT: Path = Path(ereval.__file__).resolve().parents[1]

#: ``ereval report`` options of the example's truth and its two named predictions.
TWO_PREDICTIONS: tuple[str, ...] = (
    "--truth",
    str(EXAMPLES / "truth.csv"),
    "--pred",
    f"good={EXAMPLES / 'pred_good.csv'}",
    "--pred",
    f"poor={EXAMPLES / 'pred_poor.csv'}",
)
