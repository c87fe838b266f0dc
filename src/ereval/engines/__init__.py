"""Engines that build the contingency table: in memory (NumPy), inside DuckDB
straight from files, out of core, or with Apache Spark beyond one machine. Metrics are computed from the table in the
same way whichever engine built it, so every engine gives identical numbers.

:func:`get_engine` picks one by name (``"auto"``, ``"numpy"``, ``"duckdb"``,
``"spark"``);
see ``docs/engines.md`` for the rule of ``"auto"``.
"""

from __future__ import annotations

from ._database import Database, Job, LoadAndRun
from .base import (
    ENGINE_NAMES,
    CellsWanted,
    Engine,
    EngineName,
    NumpyEngine,
    StatisticsEngine,
    engine_statistics,
    get_engine,
    numpy_bytes,
)
from .duckdb_engine import DuckDBDatabase, DuckDBEngine, duckdb_contingency_table, duckdb_statistics
from .spark_engine import SparkDatabase, SparkEngine
from .sql import Dialect

__all__ = [
    "CellsWanted",
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
    "StatisticsEngine",
    "duckdb_contingency_table",
    "duckdb_statistics",
    "engine_statistics",
    "get_engine",
    "numpy_bytes",
]
