"""The variables the ``ereval`` command sets for NumPy and OpenBLAS: only before NumPy
loads, and never over the user's own; and its C allocator, set to keep the memory
the command frees."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ereval.cli import _app as app_module
from ereval.cli._allocator import keep_freed_memory

SHOW = (
    "import os; print(os.environ.get('OPENBLAS_NUM_THREADS'), "
    "os.environ.get('NUMPY_MADVISE_HUGEPAGE'))"
)


def _run(code: str, **env: str) -> str:
    return _run_args(code, **env)


def _run_args(code: str, *args: str, **env: str) -> str:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENBLAS_NUM_THREADS", "NUMPY_MADVISE_HUGEPAGE", "GLIBC_TUNABLES")
        and not k.startswith("MALLOC_")
    }
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
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


# Blocks written, freed and written again, twice: the page faults of the second and
# third rounds. 48 blocks of 1 MB, or one of 72 MB (above glibc's largest threshold
# for a block mapped on its own, and the largest heap of a thread other than the
# first), written by the main thread or another. NumPy asks for no huge pages, as
# under the command.
REUSE = """
import resource, sys, threading
import numpy as np
if sys.argv[1] == "keep":
    from ereval.cli._allocator import keep_freed_memory
    assert keep_freed_memory()
size, count = (1 << 17, 48) if sys.argv[2] == "small" else (9 << 20, 1)

def written() -> None:
    blocks = [np.ones(size) for _ in range(count)]
    del blocks

def rounds() -> None:
    written()
    start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    written()
    written()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start)

if sys.argv[3] == "thread":
    worker = threading.Thread(target=rounds)
    worker.start()
    worker.join()
else:
    rounds()
"""

GLIBC = (getattr(os, "confstr", lambda _: None)("CS_GNU_LIBC_VERSION") or "").startswith("glibc")


@pytest.mark.skipif(not GLIBC, reason="the allocator is set on glibc only")
@pytest.mark.parametrize("size", ["small", "large"])
@pytest.mark.parametrize("where", ["main", "thread"])
def test_the_command_reuses_the_memory_it_frees(size: str, where: str) -> None:
    kept = int(_run_args(REUSE, "keep", size, where, NUMPY_MADVISE_HUGEPAGE="0"))
    default = int(_run_args(REUSE, "default", size, where, NUMPY_MADVISE_HUGEPAGE="0"))
    # 96 or 144 MB is 24,576 or 36,864 pages of 4 KB. glibc's defaults give them
    # back to the kernel, and the kernel faults them in again: at least 12,288 (half
    # of the small blocks of a thread other than the first). Kept, they are written in
    # place, but for what the heap's top gives back beyond 64 MB (2,048 pages a round)
    assert default > 10_000
    assert kept * 5 < default


@pytest.mark.parametrize("variable", ["MALLOC_ARENA_MAX", "GLIBC_TUNABLES"])
def test_the_users_own_allocator_settings_are_kept(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, "2")
    assert keep_freed_memory() is False


def test_the_console_script_keeps_freed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[bool] = []
    monkeypatch.setattr(app_module, "keep_freed_memory", lambda: called.append(True))
    monkeypatch.setattr(sys, "argv", ["ereval", "metrics", "--help"])
    with pytest.raises(SystemExit):
        app_module.main()
    assert called == [True]
