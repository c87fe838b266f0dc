"""Test-wide settings: the Hypothesis profile, the one Spark session of a test run, the
``each_engine`` marker that runs a test once per engine (see tests/_engines.py) and the
Click command of a Typer application built once per process for ``CliRunner``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import typer.testing
from hypothesis import HealthCheck, settings

from ereval.engines import Engine

from ._engines import ALL_ENGINES, ENGINES, build

settings.register_profile(
    "default",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: Click commands already built, by the id of their Typer application (kept alive here so
#: that an id is never reused for another application).
_COMMANDS: dict[int, tuple[Any, tuple[int, int], Any]] = {}
_build_command = typer.testing._get_command


def _command_of(app: Any) -> Any:
    """The Click command of ``app``, built on its first ``CliRunner().invoke`` only: Typer
    rebuilds every command (signatures, options, help) on each call, ~0.5 s for ereval's
    application. Rebuilt if commands or groups were added since."""
    size = (len(app.registered_commands), len(app.registered_groups))
    hit = _COMMANDS.get(id(app))
    if hit is None or hit[0] is not app or hit[1] != size:
        hit = _COMMANDS[id(app)] = (app, size, _build_command(app))
    return hit[2]


typer.testing._get_command = _command_of


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One local Spark session for the whole test run (two cores, two shuffle partitions,
    no adaptive planning, no UI, a temporary warehouse), shared by every Spark test through
    ``SparkEngine(session=spark)``. Skipped only where Java is absent."""
    from ereval.engines._spark_session import java_executable, new_session

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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that runs Spark goes to one worker of a parallel run (``--dist
    loadgroup``): one JVM for the whole run instead of one per worker, and no two JVMs
    competing for the cores. The group comes first: its worker starts the long Spark
    work at once while the other runs the rest, and neither waits for the other at the
    end (a group scheduled late would finish alone). It runs before xdist's own hook,
    which names each test's group from these marks (this file is loaded before xdist's
    worker registers it, so it would otherwise come after)."""
    on_spark = []
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) or "spark" in item.name.lower():
            item.add_marker(pytest.mark.xdist_group("spark"))
            item.add_marker(pytest.mark.spark)
            on_spark.append(item)
    chosen = set(on_spark)
    items[:] = [*on_spark, *(item for item in items if item not in chosen)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``@pytest.mark.each_engine``: the test's ``engine`` fixture takes each engine's name."""
    marker = metafunc.definition.get_closest_marker("each_engine")
    if marker is None:
        return
    names = tuple(marker.args) or (*ENGINES, *(["spark"] if marker.kwargs.get("spark") else []))
    unknown = [name for name in names if name not in ALL_ENGINES]
    if unknown or set(marker.kwargs) - {"spark"}:
        raise pytest.UsageError(
            f"each_engine takes names of {ALL_ENGINES} and spark=; got {marker}"
        )
    metafunc.parametrize("engine", names, indirect=True)


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    """The name of the engine a ``@pytest.mark.each_engine`` test runs on; a Spark case
    starts (or skips, without Java) the run's Spark session first."""
    name: str = getattr(request, "param", "")
    if not name:
        raise pytest.UsageError(f"{request.node.nodeid}: the 'engine' fixture needs each_engine")
    if name == "spark":
        request.getfixturevalue("spark")
    return name


@pytest.fixture
def engine_object(engine: str, request: pytest.FixtureRequest) -> Engine:
    """The engine of a ``@pytest.mark.each_engine`` test, Spark on the run's session."""
    return build(engine, request.getfixturevalue("spark") if engine == "spark" else None)
