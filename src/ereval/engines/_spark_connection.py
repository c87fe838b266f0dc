"""A Spark session of its own for one build of the Spark engine, used as a DuckDB
connection is (``execute(query).fetchall()``), so that the statements of
:mod:`ereval.engines._dialect` and :mod:`ereval.statistics._sql` run unchanged.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from typing import Any

import numpy as np

from . import _dialect as sql

__all__ = ["SparkConnection", "signed_columns"]


class _Result:
    """The rows of one statement, fetched as DuckDB's results are."""

    def __init__(self, frame: Any) -> None:
        self.frame = frame

    def fetchall(self) -> list[tuple[Any, ...]]:
        """Every row, as tuples."""
        return [] if self.frame is None else [tuple(r) for r in self.frame.collect()]

    def fetch_arrow_table(self) -> Any:
        """Every row as one Arrow table (NULLs kept)."""
        if hasattr(self.frame, "toArrow"):  # PySpark 4
            return self.frame.toArrow()
        import pyarrow as pa

        return pa.Table.from_pandas(self.frame.toPandas(), preserve_index=False)

    def fetchnumpy(self) -> dict[str, np.ndarray]:
        """Every column as a NumPy array (through Arrow)."""
        if hasattr(self.frame, "toArrow"):  # PySpark 4
            arrow = self.frame.toArrow()
            return {
                name: arrow.column(name).to_numpy(zero_copy_only=False)
                for name in arrow.column_names
            }
        pandas = self.frame.toPandas()
        return {str(name): pandas[name].to_numpy() for name in pandas.columns}


class SparkConnection:
    """A Spark session of its own for one build, used as a DuckDB connection is.

    ``execute(query)`` runs a statement (its ``exact_sum`` written out by
    :func:`ereval.engines._dialect.expand_exact_sums`) and returns its rows
    (``fetchall``, ``fetchnumpy``); ``CREATE TEMP TABLE name AS ...`` makes a temporary view
    of the result kept in memory and on disk (Spark's ``persist``), ``CREATE
    TEMP VIEW`` a plain view. The statements run in a new session sharing the
    given one's Spark context and settings but not its temporary views, so that
    short view names (``t``, ``cells``) never meet a user's; Spark DataFrames
    from the given session come in through global temporary views
    (:meth:`frame`). :meth:`close` drops what the build made.
    """

    _CREATE = re.compile(
        r"^\s*CREATE\s+TEMP(?:ORARY)?\s+(TABLE|VIEW)\s+(\w+)\s+AS\s+(.*)$",
        re.IGNORECASE | re.DOTALL,
    )

    def __init__(self, spark: Any) -> None:
        self.parent = spark
        self.spark = _isolated(spark)
        self.tag = uuid.uuid4().hex[:12]
        self.cached: list[Any] = []
        self.views: list[str] = []
        self.global_views: list[str] = []

    def execute(self, query: str) -> _Result:
        """Run ``query`` (see the class)."""
        query = sql.expand_exact_sums(query)
        created = self._CREATE.match(query)
        if created is None:
            return _Result(self.spark.sql(query))
        kind, name, body = created.groups()
        frame = self.spark.sql(body)
        if kind.upper() == "TABLE":
            frame = frame.persist()
            self.cached.append(frame)
        self.register(name, frame)
        return _Result(None)

    def register(self, name: str, frame: Any) -> None:
        """Make ``frame`` the temporary view ``name`` of this connection's session."""
        frame.createOrReplaceTempView(name)
        self.views.append(name)

    def push(self, name: str, table: Any) -> None:
        """Copy the Arrow table ``table`` (small: a sample's ids, say) into the temporary
        view ``name``."""
        self.register(name, self.spark.createDataFrame(signed_columns(table)))

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        """The rows of ``query``."""
        return self.execute(query).fetchall()

    def column(self, query: str) -> list[Any]:
        """The first column of the rows of ``query``."""
        return [row[0] for row in self.rows(query)]

    def frame(self, data: Any) -> Any:
        """A Spark DataFrame of another session of the same context, in this one."""
        if self.spark is self.parent:
            return data
        name = f"ereval_{self.tag}_{len(self.global_views)}"
        data.createOrReplaceGlobalTempView(name)
        self.global_views.append(name)
        database = self.spark.conf.get("spark.sql.globalTempDatabase", "global_temp")
        return self.spark.table(f"{database}.{name}")

    def close(self) -> None:
        """Free the cached tables and drop the views made for the build."""
        for frame in self.cached:
            with contextlib.suppress(Exception):
                frame.unpersist()
        for name in self.global_views:
            with contextlib.suppress(Exception):
                self.parent.catalog.dropGlobalTempView(name)
        if self.spark is not self.parent:
            return
        for view in self.views:  # no session of its own: the views made are dropped
            with contextlib.suppress(Exception):
                self.spark.catalog.dropTempView(view)


def _isolated(spark: Any) -> Any:
    """A new session of ``spark``'s context with its settings (or ``spark`` itself where
    sessions cannot be made, as with Spark Connect)."""
    try:
        child = spark.newSession()
    except Exception:
        return spark
    try:
        for key, value in spark.conf.getAll.items():
            if child.conf.isModifiable(key) and child.conf.get(key, None) != value:
                child.conf.set(key, value)
    except Exception:  # PySpark before 4 has no conf.getAll: the context's settings only
        pass
    return child


def signed_columns(table: Any) -> Any:
    """The Arrow table ``table`` with its unsigned integer columns, which Spark cannot
    take from Arrow, as Spark reads them from Parquet: a wider signed type, and
    ``uint64`` as ``int64`` where every value fits, else ``DECIMAL(20,0)``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> t = signed_columns(pa.table({"a": pa.array([1, 2**64 - 1], pa.uint64()),
    ...                              "b": pa.array([7], pa.uint8()).take([0, 0])}))
    >>> [str(t.schema.field(c).type) for c in ("a", "b")], t["a"].to_pylist()[1]
    (['decimal128(20, 0)', 'int16'], Decimal('18446744073709551615'))
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    wider = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64()}
    for k, field in enumerate(table.schema):
        kind = field.type
        if kind in wider:
            target = wider[kind]
        elif kind == pa.uint64():
            top = pc.max(table.column(k)).as_py()
            target = pa.int64() if top is None or top < 2**63 else pa.decimal128(20, 0)
        else:
            continue
        table = table.set_column(k, field.name, table.column(k).cast(target))
    return table
