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


def loaded_pair(engine: Any, truth: Any, pred: Any, options: Any, work: Any) -> Any:
    """``work(db, policy, n_t, n_p)`` run by the SQL ``engine`` on ``truth`` and ``pred``
    loaded as the views ``t`` and ``p`` (as the statistics job loads them)."""
    from ereval.engines._sources import side_specs
    from ereval.statistics._cells import completed_rows

    class Job:
        def in_memory(self, engine: Any) -> Any:
            raise AssertionError("an SQL engine was expected")

        def in_sql(self, db: Any) -> Any:
            sides = (("t", truth, "truth"), ("p", pred, "pred"))
            policy, id_type, specs = side_specs(options, sides)
            loaded = db.load(specs, id_type=id_type)
            return work(db, policy, *completed_rows(db, specs, loaded, policy, db.dialect))

    return engine.run(Job())
