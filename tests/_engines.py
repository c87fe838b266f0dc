"""The engines every engine test runs on, and how a test builds one.

``@pytest.mark.each_engine`` (tests/conftest.py) runs a test once per engine of
:data:`ENGINES`; ``each_engine(spark=True)`` adds Spark, ``each_engine("duckdb", "spark")``
names the engines. A Spark case uses the run's one session (the ``spark`` fixture) and is
skipped where Java is absent.
"""

from __future__ import annotations

from typing import Any

from ereval.engines import Engine, SparkEngine, get_engine

#: The in-process engines: every engine test runs on these.
ENGINES: tuple[str, ...] = ("numpy", "duckdb")
#: Every engine, Spark last (slow to start, needs Java).
ALL_ENGINES: tuple[str, ...] = (*ENGINES, "spark")


def build(name: str, spark: Any = None) -> Engine:
    """The engine called ``name``; Spark on the given session."""
    if name == "spark":
        return SparkEngine(session=spark)
    return get_engine(name)  # type: ignore[arg-type]
