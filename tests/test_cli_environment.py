"""The variables the ``ereval`` command sets for NumPy and OpenBLAS: only before NumPy
loads, and never over the user's own."""

from __future__ import annotations

import os
import subprocess
import sys

SHOW = (
    "import os; print(os.environ.get('OPENBLAS_NUM_THREADS'), "
    "os.environ.get('NUMPY_MADVISE_HUGEPAGE'))"
)


def _run(code: str, **env: str) -> str:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENBLAS_NUM_THREADS", "NUMPY_MADVISE_HUGEPAGE")
    }
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**base, **env},
        check=True,
    )
    return out.stdout.strip()


def test_the_command_sets_them_before_numpy_loads() -> None:
    assert _run(f"import ereval.cli, numpy; {SHOW}") == "1 0"


def test_the_users_own_values_are_kept() -> None:
    code = f"import ereval.cli; {SHOW}"
    assert _run(code, OPENBLAS_NUM_THREADS="4", NUMPY_MADVISE_HUGEPAGE="1") == "4 1"


def test_a_process_that_loaded_numpy_first_is_left_as_it_was() -> None:
    assert _run(f"import numpy, ereval.cli; {SHOW}") == "None None"
