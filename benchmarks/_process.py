"""Running a command in a fresh process and measuring it, for the benchmarks.

:func:`measure` runs ``cmd`` under a small Python parent that reports the CPU
seconds (user + system) and peak resident memory of its children, the wall
seconds, and what the command printed; :func:`cached_files` writes a benchmark's
input files once into a folder and reuses them on later runs;
:func:`byte_compiled` compiles ereval's modules before the first run, as
installing a package does.
"""

from __future__ import annotations

import compileall
import functools
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_CHILD = """
import json, resource, subprocess, sys, time
to = sys.argv[1]  # a file for the command's stdout, or "-" to report it
start = time.perf_counter()
with open(to if to != "-" else "/dev/null", "wb") as sink:
    proc = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE if to == "-" else sink,
                          stderr=subprocess.PIPE)
wall = time.perf_counter() - start
if proc.returncode:
    sys.exit(proc.stderr.decode())
use = resource.getrusage(resource.RUSAGE_CHILDREN)
out = proc.stdout.decode() if to == "-" else ""
print(json.dumps({"cpu": use.ru_utime + use.ru_stime, "wall": wall,
                  "rss_mb": use.ru_maxrss / 1024, "out": out}))
"""


@functools.cache
def byte_compiled(*trees: Path) -> None:
    """Compile the modules of ereval (and of ``trees``, other source trees a benchmark
    runs) to bytecode, as installing a package does.

    A source tree installed in place is otherwise compiled when first imported, and
    on every run where ``PYTHONDONTWRITEBYTECODE`` is set: about 0.08 s a command
    that a user's installed copy never spends.
    """
    spec = importlib.util.find_spec("ereval")
    own = [] if spec is None or spec.origin is None else [Path(spec.origin).parent]
    for tree in [*own, *trees]:
        compileall.compile_dir(tree, quiet=1)


def measure(cmd: list[str], stdout: Path | None = None) -> dict[str, Any]:
    """``{"cpu", "wall", "rss_mb", "out"}`` of ``cmd`` run in a fresh process (the
    benchmark stops with the command's error if it fails); ereval's modules are
    compiled first (:func:`byte_compiled`). With ``stdout``, what the command prints
    goes to that file (``out`` is then empty): a big output is never held here."""
    byte_compiled()
    to = "-" if stdout is None else str(stdout)
    out = subprocess.run([sys.executable, "-c", _CHILD, to, *cmd], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{' '.join(cmd[:8])} ... failed:\n{out.stderr}")
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def cached_files(folder: Path, key: str, write: Callable[[], object]) -> None:
    """Call ``write()`` (which writes the input files into ``folder``) unless a run with
    the same ``key`` (its size, seed ...) already wrote them there."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / key
    if not stamp.exists():
        write()
        stamp.touch()
