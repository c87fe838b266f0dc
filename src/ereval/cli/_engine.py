"""The options that choose and tune the engine that reads the files and computes.

``--engine auto|numpy|duckdb|spark`` picks the engine (``auto``: NumPy when the
files fit comfortably in memory, DuckDB otherwise); ``--memory-limit``,
``--threads`` and ``--temp-dir`` tune DuckDB, ``--memory-limit``,
``--spark-master`` and ``--spark-conf KEY=VALUE`` (repeatable) Spark. They are checked before any work.
Commands computed in memory do not take them; ``metrics --pairs``, which works
in memory, refuses the other engines with the reason
(:func:`refuse_engine_options`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .._errors import InputError
from .._validation import check_choice
from ..engines import (
    ENGINE_NAMES,
    DuckDBEngine,
    Engine,
    EngineName,
    NumpyEngine,
    SparkEngine,
    get_engine,
)

__all__ = [
    "EngineOpt",
    "MemoryLimitOpt",
    "SparkConfOpt",
    "SparkMasterOpt",
    "TempDirOpt",
    "ThreadsOpt",
    "engine_from_options",
    "parse_spark_conf",
    "refuse_engine_options",
]

EngineOpt = Annotated[
    EngineName,
    typer.Option(
        "--engine",
        help="Who reads the files and computes the numbers: numpy (in memory), duckdb "
        "(from the files, out of core), spark (Apache Spark, local or a cluster) or auto "
        "(numpy when the files fit comfortably in memory).",
    ),
]
MemoryLimitOpt = Annotated[
    str | None,
    typer.Option(
        "--memory-limit",
        help="Memory limit, e.g. 2GB: the whole process's with DuckDB (whose buffers get what "
        "the interpreter and DuckDB's allocations outside them leave, 532 MiB of 1GB, and "
        "spill to --temp-dir beyond), or with --engine spark the heap of each Spark JVM (at "
        "least 512MB).",
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

SparkMasterOpt = Annotated[
    str | None,
    typer.Option(
        "--spark-master",
        help="Spark master of a new session, e.g. local[4] or spark://host:7077 "
        "(default local[*]); with --engine spark.",
        show_default=False,
    ),
]
SparkConfOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--spark-conf",
        help="A Spark setting KEY=VALUE, e.g. spark.driver.memory=8g (repeatable); "
        "with --engine spark.",
        show_default=False,
    ),
]


def parse_spark_conf(items: list[str] | None) -> dict[str, str] | None:
    """``["spark.a=1", "spark.b=x=y"]`` -> ``{"spark.a": "1", "spark.b": "x=y"}``.

    Examples
    --------
    >>> parse_spark_conf(["spark.driver.memory=8g"])
    {'spark.driver.memory': '8g'}
    """
    if not items:
        return None
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"'--spark-conf' must be KEY=VALUE; received {item!r}")
        out[key.strip()] = value
    return out


def engine_from_options(
    *,
    engine: EngineName,
    memory_limit: str | None,
    threads: int | None,
    temp_dir: Path | None,
    spark_master: str | None = None,
    spark_conf: list[str] | None = None,
    truth: Any = None,
    pred: Any = None,
) -> Engine:
    """The one engine a command's flags ask for, with its options, checked before any
    work: ``--engine auto`` with DuckDB options uses them when DuckDB is picked."""
    name = check_choice("engine", engine, ENGINE_NAMES)
    conf = parse_spark_conf(spark_conf)
    duck_given = [
        flag
        for flag, value in (
            ("--memory-limit", memory_limit),
            ("--threads", threads),
            ("--temp-dir", temp_dir),
        )
        if value is not None
    ]
    spark_given = [f for f, v in (("--spark-master", spark_master), ("--spark-conf", conf)) if v]
    if name == "spark":
        duck_only = [flag for flag in duck_given if flag != "--memory-limit"]
        if duck_only:
            raise InputError(
                f"'{duck_only[0]}' applies to the DuckDB engine; the Spark engine takes "
                "'--memory-limit', '--spark-master' (e.g. 'local[4]') and '--spark-conf'"
            )
        return SparkEngine(master=spark_master, conf=conf, memory_limit=memory_limit)
    if spark_given:
        raise InputError(
            f"'{spark_given[0]}' applies to the Spark engine; --engine {name} takes no such "
            "option (give --engine spark)"
        )
    if name == "numpy":
        if duck_given:
            raise InputError(
                f"'{duck_given[0]}' applies to the DuckDB engine; --engine numpy takes no "
                "such option"
            )
        return NumpyEngine()
    duck = DuckDBEngine(memory_limit=memory_limit, threads=threads, temp_dir=temp_dir)
    picked = get_engine(name, truth=truth, pred=pred)
    return duck if isinstance(picked, DuckDBEngine) else picked


def refuse_engine_options(
    *,
    engine: EngineName,
    memory_limit: str | None,
    threads: int | None,
    temp_dir: Path | None,
    where: str,
    spark_master: str | None = None,
    spark_conf: list[str] | None = None,
) -> None:
    """Refuse the DuckDB and Spark engines and their options, ``where`` (e.g. "with
    '--pairs'") the work is done in memory only: an option is never ignored silently."""
    if engine in ("duckdb", "spark"):
        raise InputError(f"'--engine' {engine} is not available {where}; use numpy or auto")
    for flag, value, label in (
        ("--memory-limit", memory_limit, "DuckDB"),
        ("--threads", threads, "DuckDB"),
        ("--temp-dir", temp_dir, "DuckDB"),
        ("--spark-master", spark_master, "Spark"),
        ("--spark-conf", spark_conf, "Spark"),
    ):
        if value is not None and value != []:
            raise InputError(f"'{flag}' tunes the {label} engine, which is not used {where}")
