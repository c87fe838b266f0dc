"""Engines that build the contingency table: in memory (NumPy, the default) or
inside DuckDB straight from files. Metrics are computed from the table in the
same way whichever engine built it."""

from __future__ import annotations

from .duckdb_engine import duckdb_contingency_table

__all__ = ["duckdb_contingency_table"]
