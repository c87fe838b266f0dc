"""Build the contingency table with Apache Spark, from files or Spark DataFrames.

The same statements as the DuckDB engine (:mod:`ereval.engines._dialect`, in Spark's
dialect) run where the data is: per side one scan for missing ids, then one
full outer join on the record id grouped by the pair of cluster ids, whose NULL
groups count the records of one side only; duplicate record ids are looked for
in detail only when the join's row counts say so. Only the coded groups (at most
one per record, usually far fewer) come back to Python, as Arrow.

Files are read by the rules of :mod:`ereval.io`: the columns of a CSV file
are text exactly as written (``01``, ``NA``, ``null`` and `` x `` are ids; only
an empty field is missing), Parquet keeps its types; a glob or a folder of part
files is one input.

The session is the one given, else the active one, else a new local one
(``local[*]``, no UI, few shuffle partitions, a temporary warehouse, the JVM's
log sent to a file).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from .._errors import InputError, InputTypeError
from .._optional import require
from .._validation import check_choice
from ..io import file_spec, header, id_type_error, kinds_clash
from . import _dialect as sql
from ._database import Database, Job
from ._duckdb import is_arrow_table
from ._sources import (
    SideSpec,
    check_columns,
    check_decimals,
    check_scan,
    key_of,
    second_key,
)
from ._spark_connection import SparkConnection, signed_columns
from ._spark_session import (
    check_spark_conf,
    check_spark_master,
    check_spark_memory,
    end_session,
    is_spark_dataframe,
    new_session,
    spark_error,
)

__all__ = ["SparkDatabase", "SparkEngine"]

_D = sql.SPARK
T = TypeVar("T")


def _kind(data_type: Any) -> str:
    name = type(data_type).__name__
    if name in ("StringType", "VarcharType", "CharType"):
        return "text"
    if name in ("ByteType", "ShortType", "IntegerType", "LongType"):
        return "integer"
    if name == "DecimalType" and data_type.scale == 0:  # Parquet's uint64: DECIMAL(20,0)
        return "integer"
    if name == "DecimalType":  # exact numbers with a fraction: never equal to floats
        return "decimal"
    if name in ("FloatType", "DoubleType"):
        return "float"
    if name == "BooleanType":
        return "boolean"
    if name == "BinaryType":
        return "bytes"
    if name in ("TimestampType", "TimestampNTZType"):  # as DuckDB names them
        return "timestamp"
    return str(data_type.simpleString())


def _floats(cols: list[str], types: dict[str, Any]) -> bool:
    """Whether ``cols`` are one column of binary floats (which may hold NaN and -0.0)."""
    return len(cols) == 1 and type(types[cols[0]]).__name__ in ("FloatType", "DoubleType")


class SparkEngine:
    """Builds the contingency table, or computes its statistics, with Apache Spark.

    Reads CSV / TSV / Parquet files (a path, a glob or a folder of part files)
    and Spark DataFrames. The options are checked when the engine is made;
    Spark starts only when a table is built.

    Parameters
    ----------
    master : str, optional
        The Spark master of a new session (default ``local[*]``, every core of
        this machine); e.g. ``"local[4]"``, ``"spark://host:7077"``, ``"yarn"``.
    conf : mapping, optional
        Spark settings (``{"spark.sql.shuffle.partitions": "64"}``) of a new session;
        with a running session, those that can be changed at run time are set.
    memory_limit : str, optional
        The heap of each JVM of a new session, e.g. ``"8GB"``: the driver, which does
        the work on a local master, and each executor on any other master (at least
        512MB, Spark's floor; beyond it Spark spills to its scratch space). A
        running session keeps the memory it started with.
    session : SparkSession, optional
        The session to use. Default: the session of a Spark DataFrame input, else
        the active session, else a new one (see :func:`new_session`).

    Notes
    -----
    A ``KeyboardInterrupt`` (Ctrl-C) during a job of a session the engine started
    ends that session's JVM (and the executors of a ``local-cluster`` master)
    before it propagates; the next job starts a new session.
    """

    name = "spark"
    #: Returns a query's rows rather than writing a file itself.
    writes_files = False

    def __init__(
        self,
        *,
        master: str | None = None,
        conf: Mapping[str, Any] | None = None,
        memory_limit: str | None = None,
        session: Any = None,
    ) -> None:
        self.master = check_spark_master(master)
        self.conf = check_spark_conf(conf)
        self.memory_limit = check_spark_memory(memory_limit, master=self.master, conf=self.conf)
        self._session = session
        self._started: Any = None  # the session this engine started, ended on an interrupt

    def __repr__(self) -> str:
        given = ", session=..." if self._session is not None else ""
        memory = f", memory_limit={self.memory_limit!r}" if self.memory_limit else ""
        return f"SparkEngine(master={self.master!r}, conf={self.conf!r}{memory}{given})"

    def session(self, *inputs: Any) -> Any:
        """The session the work runs in (started when there is none)."""
        if self._session is not None:
            if self._session is not self._started:
                self._keeps_its_memory()
            return self._session
        for data in inputs:
            if is_spark_dataframe(data):
                self._keeps_its_memory()
                return data.sparkSession
        require("pyspark", feature="the Spark engine")
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            self._adopt(active)
            self._session = active
            return active
        self._session = self._started = new_session(
            self.master, self.conf, memory_limit=self.memory_limit
        )
        return self._session

    def _end_started(self) -> None:
        """End the session this engine started (after an interrupt: its connection is
        left mid-answer, so nothing more is asked of it); a given one is left as it is."""
        if self._started is not None:
            end_session(self._started)
            self._session = self._started = None

    def _keeps_its_memory(self) -> None:
        if self.memory_limit is not None:
            raise InputError(
                f"'memory_limit' {self.memory_limit} applies to a new Spark session; a running "
                "session keeps the memory it started with (leave 'memory_limit' unset)"
            )

    def _adopt(self, session: Any) -> None:
        """Apply this engine's options to a running session, or say why they cannot be."""
        running = session.sparkContext.master
        if self.master is not None and self.master != running:
            raise InputError(
                f"'master': a Spark session is already running on {running!r}; "
                f"cannot use {self.master!r} (stop it first, or leave 'master' unset)"
            )
        self._keeps_its_memory()
        for key, value in self.conf.items():
            if not session.conf.isModifiable(key):
                raise InputError(f"'conf': {key!r} cannot be changed in the running Spark session")
            session.conf.set(key, value)

    def run(self, job: Job[T]) -> T:
        """``job.in_sql(db)`` with a :class:`SparkDatabase` (the session starts when the
        job loads its inputs), closed afterwards; Spark's errors as one line."""
        db = SparkDatabase(self)
        interrupted = False
        try:
            with warnings.catch_warnings(), _no_default_log_handler():
                # PySpark's notice about pandas versions newer than it knows
                warnings.filterwarnings("ignore", "PySpark does not yet", FutureWarning)
                return job.in_sql(db)
        except KeyboardInterrupt:
            interrupted = True
            self._end_started()
            raise
        except Exception as exc:
            if _interrupted(exc):  # PySpark's clean-up after the interrupt failed
                interrupted = True
                self._end_started()
                raise KeyboardInterrupt from None
            if isinstance(exc, InputError | InputTypeError):
                raise
            if type(exc).__module__.split(".")[0] not in ("py4j", "pyspark"):
                raise
            raise InputError(f"Spark could not build the table: {spark_error(exc)}") from exc
        finally:
            if not interrupted:
                db.close()


@contextlib.contextmanager
def _no_default_log_handler() -> Iterator[None]:
    """Without logging set up, keep Py4J's report of an interrupted call (a traceback,
    logged on the root logger, which would set up logging to stderr) off the terminal:
    the root logger has a handler that drops records while the block runs."""
    root = logging.getLogger()
    if root.handlers:  # logging is set up: its records go where it says
        yield
        return
    drop = logging.NullHandler()
    root.addHandler(drop)
    try:
        yield
    finally:
        root.removeHandler(drop)


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a ``KeyboardInterrupt`` was being handled: a
    Py4J call made on the way out of an interrupted one (PySpark resets a call site in
    a ``finally``) fails on the connection the interrupt closed, and its error, or
    ours wrapping it, takes the interrupt's place."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


class SparkDatabase(Database):
    """A Spark session of its own open for one job of :class:`SparkEngine` (a
    :class:`SparkConnection`, made when the job loads its inputs)."""

    name = "spark"
    dialect = sql.SPARK

    def __init__(self, engine: SparkEngine) -> None:
        self.engine = engine
        self._run: SparkConnection | None = None
        self.kinds = []

    @property
    def connection(self) -> SparkConnection:
        """The connection of the job's session."""
        if self._run is None:
            raise InputError("'db': load the inputs before running statements")
        return self._run

    def execute(self, query: str) -> Any:
        """Run ``query`` (see :meth:`SparkConnection.execute`)."""
        return self.connection.execute(query)

    def push(self, name: str, table: Any) -> None:
        """Copy the Arrow table ``table`` into the view ``name``."""
        self.connection.push(name, table)

    def register(self, name: str, frame: Any) -> None:
        """Make the Spark DataFrame ``frame`` the view ``name``."""
        self.connection.register(name, frame)

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        """The rows of ``query``."""
        return self.connection.rows(query)

    def column(self, query: str) -> list[Any]:
        """The first column of the rows of ``query``."""
        return self.connection.column(query)

    def load(self, sides: Sequence[SideSpec], *, id_type: str = "exact") -> list[int]:
        """Each side as its view (see :meth:`Database.load`); the session starts here."""
        id_type = check_choice("id_type", id_type, ("exact", "string"))
        for spec in sides:
            _check_input(spec.data, spec.name)
        if self._run is None:
            self._run = SparkConnection(self.engine.session(*(spec.data for spec in sides)))
        run = self._run
        loaded = [_Side(run, spec) for spec in sides]
        for side in loaded:
            side.load(as_text=id_type == "string")
        for first, other in itertools.pairwise(loaded):
            if kinds_clash(first.kind, other.kind):
                ex_t, ex_p = (run.column(f"SELECT r FROM {s.view} LIMIT 2") for s in (first, other))
                raise id_type_error(
                    first.kind, other.kind, ex_t, ex_p, truth=first.name, other=other.name
                )
            check_decimals(first.decimal, other.decimal, truth=first.name, name=other.name)
        self.kinds = [side.kind for side in loaded]
        return [side.n_rows for side in loaded]

    def close(self) -> None:
        """Drop what the job made."""
        if self._run is not None:
            self._run.close()


def _check_input(data: Any, name: str) -> None:
    if is_spark_dataframe(data) or is_arrow_table(data):
        return
    if not isinstance(data, str | os.PathLike):
        raise InputError(
            f"'{name}': the Spark engine reads CSV or Parquet files (a path, a glob or a "
            f"folder of parts), Arrow tables and Spark DataFrames; received {type(data).__name__} "
            "(use engine='numpy')"
        )
    file_spec(data, name=name)  # a missing path or an empty glob, before Spark starts


def _csv_frame(spark: Any, paths: list[str], names: list[str], delimiter: str) -> Any:
    """Spark's reader of CSV parts set to the rules of :mod:`ereval.io`: every column
    text exactly as written, only an empty field missing."""
    from pyspark.sql.types import StringType, StructField, StructType

    schema = StructType([StructField(c, StringType(), True) for c in names])
    return spark.read.csv(
        paths,
        schema=schema,
        header=True,
        enforceSchema=True,
        sep=delimiter,
        quote='"',
        escape='"',
        nullValue="",  # only the empty field is missing: NA, null, NaN stay ids
        ignoreLeadingWhiteSpace=False,
        ignoreTrailingWhiteSpace=False,
        mode="FAILFAST",
        encoding="UTF-8",
        multiLine=False,
    )


class _Side:
    """One clustering as the temporary view ``view(r, c)`` of the session."""

    def __init__(self, run: SparkConnection, spec: SideSpec) -> None:
        self.run, self.spec = run, spec
        self.view, self.data, self.name = spec.view, spec.data, spec.name
        self.records, self.clusters = spec.records, spec.clusters
        self.n_rows = 0
        self.kind: tuple[str, ...] = ()
        self.decimal: tuple[int, int] | None = None  # a decimal id's (precision, scale)

    def _frame(self) -> Any:
        if is_spark_dataframe(self.data):
            return self.run.frame(self.data)
        if is_arrow_table(self.data):
            return self.run.spark.createDataFrame(signed_columns(self.data))
        spec = file_spec(self.data, name=self.name)
        paths = [str(p) for p in spec.parts]
        try:
            if spec.format == "parquet":
                return self.run.spark.read.parquet(*paths)
            names = header(spec, name=self.name)
            return _csv_frame(self.run.spark, paths, names, spec.delimiter)
        except Exception as exc:  # Spark's own errors for unreadable files
            raise InputError(
                f"'{self.name}': cannot read '{spec.path}' ({spark_error(exc)})"
            ) from exc

    def load(self, *, as_text: bool) -> tuple[str, ...]:
        """Create the view, check it has rows and no missing id; return the kinds of the
        record key's parts (as compared)."""
        frame = self._frame()
        types = {f.name: f.dataType for f in frame.schema.fields}
        check_columns(self.spec, list(types))
        source = self.view + "_source"
        self.run.register(source, frame)
        r_sql, r_kinds, cast = key_of(
            self.records,
            [_kind(types[c]) for c in self.records],
            name=self.name,
            as_text=as_text,
            dialect=_D,
        )
        if self.spec.pair:  # the second record of each pair, read as the first
            c_sql, c_kind = second_key(
                self.spec,
                [_kind(types[c]) for c in self.clusters],
                r_kinds,
                as_text=as_text,
                text_type=_D.text_type,
                dialect=_D,
            )
        else:
            c_sql, c_kind = self._key(self.clusters, types)
        floats = (_floats(self.records, types), _floats(self.clusters, types))
        if floats[0]:
            r_sql = sql.plain_zero(r_sql, types[self.records[0]].simpleString())
        if floats[1]:
            c_sql = sql.plain_zero(c_sql, types[self.clusters[0]].simpleString())
        r_kind = "text" if len(r_kinds) > 1 else r_kinds[0]
        extra = tuple(
            (alias, self._key(list(cols), types, name=self.spec.extra_option)[0])
            for alias, cols in self.spec.extra
        )
        parts: list[tuple[str, bool]] = []  # a key's parts, and which are text
        for k, column in enumerate(self.spec.parts):  # each part, for its missing values
            extra += ((f"{sql.PARTS}{k}", sql.ident(column, dialect=_D)),)
            parts.append((f"{sql.PARTS}{k}", _kind(types[column]) == "text"))
        side = sql.side_sql(source, r_sql, c_sql, record_as_text=cast, extra=extra, dialect=_D)
        self.run.register(self.view, self.run.spark.sql(side))
        query = sql.nulls_sql(
            self.view,
            record_text=r_kind == "text",
            cluster_text=c_kind == "text",
            parts=parts,
            floats=floats,
        )
        try:
            counts = self.run.rows(query)[0]
        except Exception as exc:  # a malformed CSV row surfaces on the first scan
            raise InputError(f"'{self.name}': cannot read it ({spark_error(exc)})") from exc
        check_scan(self.spec, counts, by_parts=bool(parts))
        self.n_rows, self.kind = int(counts[0]), r_kinds
        if r_kinds == ("decimal",):
            decimal = types[self.records[0]]
            self.decimal = (int(decimal.precision), int(decimal.scale))
        return r_kinds

    def _key(
        self, cols: list[str], types: dict[str, Any], *, name: str | None = None
    ) -> tuple[str, str]:
        """Spark SQL of the key of ``cols`` (of the argument ``name``, default the side's)
        and its kind (text for several columns)."""
        named = self.name if name is None else name
        key, kinds, _ = key_of(cols, [_kind(types[c]) for c in cols], name=named, dialect=_D)
        return key, "text" if len(kinds) > 1 else kinds[0]
