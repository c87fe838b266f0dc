"""Engines, the backends that run the features' jobs: in memory (NumPy), inside
DuckDB straight from files, out of core, or with Apache Spark beyond one machine.
An engine runs a job (:class:`Job`) in memory or hands it a :class:`Database`
(a connection with its SQL :class:`Dialect`); it imports no feature. Every engine
gives identical numbers.

:func:`get_engine` picks one by name (``"auto"``, ``"numpy"``, ``"duckdb"``,
``"spark"``);
see ``docs/engines.md`` for the rule of ``"auto"``.
"""

from __future__ import annotations

from ._base import (
    ENGINE_NAMES,
    Engine,
    EngineName,
    NumpyEngine,
    get_engine,
    numpy_bytes,
)
from ._database import Database, Job, LoadAndRun
from ._dialect import Dialect
from ._duckdb import DuckDBDatabase, DuckDBEngine
from ._spark import SparkDatabase, SparkEngine

__all__ = [
    "Database",
    "Dialect",
    "DuckDBDatabase",
    "DuckDBEngine",
    "ENGINE_NAMES",
    "Engine",
    "EngineName",
    "Job",
    "LoadAndRun",
    "NumpyEngine",
    "SparkDatabase",
    "SparkEngine",
    "get_engine",
    "numpy_bytes",
]
