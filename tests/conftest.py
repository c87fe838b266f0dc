"""Test-wide settings: the Hypothesis profile, and the one Spark session of a test run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One local Spark session for the whole test run (two cores, two shuffle partitions,
    no adaptive planning, no UI, a temporary warehouse), shared by every Spark test through
    ``SparkEngine(session=spark)``. Skipped only where Java is absent."""
    from ereval.engines.spark_session import java_executable, new_session

    if java_executable() is None:
        pytest.skip("Java is not installed: the Spark engine needs Java 17 or later")
    session = new_session(
        "local[2]",
        {
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.sql.adaptive.enabled": "false",  # tiny inputs: no re-planning per stage
            "spark.sql.warehouse.dir": str(tmp_path_factory.mktemp("spark-warehouse")),
        },
    )
    yield session
    session.stop()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that runs Spark goes to one worker of a parallel run (``--dist
    loadgroup``): one JVM for the whole run instead of one per worker, and no two JVMs
    competing for the cores."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) or "spark" in item.name.lower():
            item.add_marker(pytest.mark.xdist_group("spark"))
