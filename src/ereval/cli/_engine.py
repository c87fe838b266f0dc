"""The options that choose and tune the engine building the contingency table.

``--engine auto|numpy|duckdb`` picks who builds it (``auto``: NumPy when the
files fit comfortably in memory, DuckDB otherwise); ``--memory-limit``,
``--threads`` and ``--temp-dir`` tune DuckDB. They are checked before any work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .._errors import InputError
from ..engines import Engine, EngineName, get_engine

__all__ = [
    "EngineOpt",
    "MemoryLimitOpt",
    "TempDirOpt",
    "ThreadsOpt",
    "engine_from_options",
    "refuse_engine_options",
]

EngineOpt = Annotated[
    EngineName,
    typer.Option(
        "--engine",
        help="Who builds the contingency table: numpy (in memory), duckdb (from the files, "
        "out of core) or auto (numpy when the files fit comfortably in memory).",
    ),
]
MemoryLimitOpt = Annotated[
    str | None,
    typer.Option(
        "--memory-limit",
        help="DuckDB's memory limit, e.g. 2GB; beyond it DuckDB spills to --temp-dir.",
        show_default=False,
    ),
]
ThreadsOpt = Annotated[
    int | None,
    typer.Option(
        "--threads", help="Number of DuckDB threads (default: all cores).", show_default=False
    ),
]
TempDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--temp-dir",
        help="Existing directory where DuckDB spills data that exceeds --memory-limit.",
        show_default=False,
    ),
]


def engine_from_options(
    *,
    engine: EngineName,
    memory_limit: str | None,
    threads: int | None,
    temp_dir: Path | None,
    truth: Any = None,
    pred: Any = None,
    **_other_options: Any,
) -> Engine:
    """The engine a command's flags ask for, checked before any work (other options of
    the command are ignored, so a command can pass all of its own)."""
    return get_engine(
        engine,
        truth=truth,
        pred=pred,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
    )


def refuse_engine_options(
    *,
    engine: EngineName,
    memory_limit: str | None,
    threads: int | None,
    temp_dir: Path | None,
    where: str,
    **_other_options: Any,
) -> None:
    """Refuse the DuckDB engine and its options, ``where`` (e.g. "with '--pairs'") the
    work is done in memory only: an option is never ignored silently."""
    if engine == "duckdb":
        raise InputError(f"'--engine' duckdb is not available {where}; use numpy or auto")
    for flag, value in (
        ("--memory-limit", memory_limit),
        ("--threads", threads),
        ("--temp-dir", temp_dir),
    ):
        if value is not None:
            raise InputError(f"'{flag}' tunes the DuckDB engine, which is not used {where}")
