"""Build the contingency table inside DuckDB, straight from CSV or Parquet files.

The files are never loaded into Python: DuckDB reads them, joins the two
clusterings on the record id and groups by the pair of cluster ids, out of core
when needed (beyond ``memory_limit`` it spills to ``temp_dir``). Only the
non-zero cells and the marginals come back, as a
:class:`~ereval.contingency.ContingencyTable`; every metric is then computed
from it exactly as with the in-memory engine, so both engines give identical
numbers.

The work is a handful of statements: per side one scan checking for missing
ids, then one full outer join on the record id grouped by the pair of cluster
ids, which gives the cells and, from its NULL groups, the records on one side
only. Duplicate record ids are found by comparing the join's row counts with
the sides' (the detailed query that names them runs only when the counts
disagree, or on the few records of one side only). For the statistics, the
join's groups stream straight into NumPy (:mod:`ereval.statistics._stream`);
they are written to a table first only when the cells must come back.

Files are read by the rules of :mod:`ereval.io` (the same as the in-memory
engine): the id columns of a CSV file are text exactly as written, Parquet
keeps its types, and ids of different kinds on the two sides are an error
unless ``id_type="string"``. A DuckDB relation is read as it is typed.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .._errors import InputError, InputTypeError
from .._optional import require
from .._validation import check_choice
from ..io import file_spec, header, id_type_error, kinds_clash
from . import _dialect as sql
from ._database import Database, Job
from ._plan import FIRST_TRY, MAX_MODULUS, check_memory_size, limit_bytes, pass_count
from ._sources import (
    SideSpec,
    check_columns,
    check_decimals,
    check_scan,
    key_of,
    second_key,
)

__all__ = [
    "DuckDBDatabase",
    "DuckDBEngine",
    "check_memory_limit",
    "check_temp_dir",
    "check_threads",
    "is_arrow_table",
    "is_relation",
]

T = TypeVar("T")


#: The earliest DuckDB release the engine works with (its relations' Arrow readers, the
#: Parquet writer's options of the join's passes); ``pyproject.toml`` asks for it.
DUCKDB_LEAST = "1.5"

#: From this many records on, DuckDB's buffers go to disk while NumPy works on its
#: results (:meth:`DuckDBDatabase.lend_memory`), under this limit.
LEND_FROM = 1 << 24
LENT_LIMIT = "64MB"

#: The smallest memory limit DuckDB is given: below it, even a pass over a few
#: records cannot allocate DuckDB's fixed buffers.
MIN_MEMORY = "32MB"

#: The process's own memory beside DuckDB's, kept out of a ``memory_limit`` before
#: DuckDB gets the rest (:func:`buffer_bytes`): the interpreter and the libraries
#: loaded (153 MiB measured), with a margin.
PROCESS_BYTES = 176 * 2**20

#: What DuckDB allocates beyond its own ``memory_limit`` (its limit bounds the buffer
#: manager, not every allocation): a fixed part and a part growing with the limit.
#: Measured over spilling joins and GROUP BYs of 10^8 pairs
#: (``benchmarks/bench_duckdb_outside.py``): 138, 134, 169, 161 and 155 MiB above
#: limits of 675, 954, 1485, 1716 and 3391 MiB; and 210 MiB above 640 MiB in the
#: sizes of 2.5 * 10^7 predicted clusters (a ``GROUP BY`` into a table) of the
#: error tables at 10^8 records.
OUTSIDE_BYTES = 224 * 2**20
OUTSIDE_SHARE = 0.04

#: What DuckDB's allocator may keep of the memory it frees before giving it back
#: (its defaults, 128 MB and 512 MB, let a process stay that far above its limit).
ALLOCATOR_FLUSH = "32MB"


def buffer_bytes(limit: int) -> int:
    """DuckDB's share of a ``memory_limit`` of ``limit`` bytes for the whole process:
    what is left once :data:`PROCESS_BYTES` and DuckDB's allocations beyond its own
    limit (:data:`OUTSIDE_BYTES` and :data:`OUTSIDE_SHARE` of its share) are counted;
    half the limit when that is more (limits under about 830 MiB, too small for the
    process anyway), and never below :data:`MIN_MEMORY`.

    Examples
    --------
    >>> buffer_bytes(10**9) // 2**20, buffer_bytes(2 * 10**9) // 2**20
    (532, 1449)
    >>> buffer_bytes(400 * 2**20) // 2**20
    200
    """
    rest = (limit - PROCESS_BYTES - OUTSIDE_BYTES) / (1.0 + OUTSIDE_SHARE)
    return max(int(rest), limit // 2, limit_bytes(MIN_MEMORY))


def check_memory_limit(value: str | None) -> str | None:
    """``value`` if it is a DuckDB memory size such as ``"2GB"`` or ``"512MiB"``, at
    least :data:`MIN_MEMORY`."""
    return check_memory_size("memory_limit", value, minimum=MIN_MEMORY, why="DuckDB's buffers")


def check_passes(value: int | None) -> int | None:
    """``value`` if it is a whole number of passes, from 1 to :data:`_plan.MAX_MODULUS`."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not 1 <= value <= MAX_MODULUS
    ):
        raise InputError(
            f"'passes' must be a whole number from 1 to {MAX_MODULUS}; received {value!r}"
        )
    return int(value)


def check_threads(value: int | None) -> int | None:
    """``value`` if it is a whole number of threads, at least 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InputError(f"'threads' must be a whole number >= 1; received {value!r}")
    return int(value)


def check_temp_dir(value: str | os.PathLike[str] | None) -> Path | None:
    """``value`` if it is an existing directory."""
    if value is None:
        return None
    path = Path(value)
    if not path.is_dir():
        raise InputError(f"'temp_dir' must be an existing directory; received '{path}'")
    return path


def is_arrow_table(value: Any) -> bool:
    """True when ``value`` is a PyArrow table."""
    return type(value).__name__ == "Table" and type(value).__module__.startswith("pyarrow")


def is_relation(value: Any) -> bool:
    """True when ``value`` is a DuckDB relation (without importing DuckDB)."""
    return type(value).__name__ == "DuckDBPyRelation"


def _kind(duck_type: str) -> str:
    t = duck_type.upper()
    if t == "VARCHAR":
        return "text"
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT") or t.startswith("U"):
        return "integer"
    if t.startswith("DECIMAL(") and t.endswith(",0)"):  # no fraction: whole numbers
        return "integer"
    if t.startswith("DECIMAL"):  # exact numbers with a fraction: never equal to floats
        return "decimal"
    if t in ("FLOAT", "DOUBLE"):
        return "float"
    if t == "BOOLEAN":
        return "boolean"
    if t == "BLOB":
        return "bytes"
    if t in ("TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"):  # of any unit
        return "timestamp"
    return t.lower()


def _floats(cols: list[str], types: dict[str, str]) -> bool:
    """Whether ``cols`` are one column of binary floats (which may hold NaN and -0.0)."""
    return len(cols) == 1 and types[cols[0]].upper() in ("FLOAT", "DOUBLE")


def _key(cols: list[str], types: dict[str, str], *, name: str) -> tuple[str, str]:
    """SQL of the key of ``cols`` and its kind (text for a key of several columns)."""
    key, kinds, _ = key_of(cols, [_kind(types[c]) for c in cols], name=name)
    return key, "text" if len(kinds) > 1 else kinds[0]


class DuckDBEngine:
    """Builds the contingency table inside DuckDB, out of core when needed.

    The options are checked when the engine is made, before any work.

    Parameters
    ----------
    memory_limit : str, optional
        The memory of the whole job (e.g. ``"2GB"``): DuckDB's buffers get it less
        the process's own (:func:`buffer_bytes`) and spill to ``temp_dir`` beyond;
        NumPy's arrays borrow from DuckDB's share while they are held. Default:
        DuckDB's own (80% of the memory).
    threads : int, optional
        Number of DuckDB threads, >= 1 (default: all cores).
    temp_dir : path, optional
        An existing directory for the data spilled to disk (default: DuckDB's
        own, ``.tmp`` beside an on-disk database or the system's for an
        in-memory one).
    passes : int, optional
        The passes over the records the join of the two sides is split into
        (:mod:`ereval.engines._plan`); default: from ``memory_limit`` and the
        number of rows, 1 without a limit. A pass that runs out of memory is
        split in two and run again, whatever the number asked for.
    """

    name = "duckdb"
    #: Writes a query's rows to a file itself (:meth:`DuckDBDatabase.copy_to`).
    writes_files = True

    def __init__(
        self,
        *,
        memory_limit: str | None = None,
        threads: int | None = None,
        temp_dir: str | os.PathLike[str] | None = None,
        passes: int | None = None,
    ) -> None:
        self.memory_limit = check_memory_limit(memory_limit)
        self.threads = check_threads(threads)
        self.temp_dir = check_temp_dir(temp_dir)
        self.passes = check_passes(passes)

    def __repr__(self) -> str:
        return (
            f"DuckDBEngine(memory_limit={self.memory_limit!r}, threads={self.threads!r}, "
            f"temp_dir={None if self.temp_dir is None else str(self.temp_dir)!r}, "
            f"passes={self.passes!r})"
        )

    def planned_passes(self, rows: int) -> int:
        """The passes of a join of ``rows`` rows (both sides): ``passes`` if given,
        else :func:`ereval.engines._plan.pass_count` under ``memory_limit``."""
        if self.passes is not None:
            return self.passes
        return pass_count(rows, self.buffer_limit)

    @property
    def buffer_limit(self) -> int | None:
        """The bytes of DuckDB's share of ``memory_limit`` (:func:`buffer_bytes`),
        ``None`` without a limit."""
        return None if self.memory_limit is None else buffer_bytes(limit_bytes(self.memory_limit))

    def connect(self) -> Any:
        """A new in-memory DuckDB connection with this engine's settings."""
        duckdb = require("duckdb", feature="the DuckDB engine", least=DUCKDB_LEAST)
        con = duckdb.connect()
        con.execute("SET preserve_insertion_order = false")
        # DuckDB's own bar would write to stdout, which carries the results: the
        # phases are reported through ``progress`` instead
        con.execute("SET enable_progress_bar = false")
        if self.buffer_limit is not None:
            con.execute(f"SET memory_limit = '{self.buffer_limit}B'")
            for name in (
                "allocator_flush_threshold",
                "allocator_bulk_deallocation_flush_threshold",
            ):
                con.execute(f"SET {name} = {sql.quote(ALLOCATOR_FLUSH)}")
            con.execute("SET allocator_background_threads = true")
        if self.threads is not None:
            con.execute(f"SET threads = {self.threads}")
        if self.temp_dir is not None:
            con.execute(f"SET temp_directory = {sql.quote(str(self.temp_dir))}")
        return con

    def run(self, job: Job[T]) -> T:
        """``job.in_sql(db)`` with a new connection (:class:`DuckDBDatabase`), closed
        afterwards; DuckDB's errors as one line."""
        db = DuckDBDatabase(self, self.connect())
        try:
            return job.in_sql(db)
        except (InputError, InputTypeError):
            raise
        except Exception as exc:
            if type(exc).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
                raise
            raise self._error(exc) from exc
        finally:
            db.connection.close()

    def _error(self, exc: Exception) -> InputError:
        """DuckDB's error as one line, naming the option to change when memory ran out."""
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if type(exc).__name__ == "OutOfMemoryException":
            limit = (
                f"'memory_limit' {self.memory_limit}"
                if self.memory_limit is not None
                else "DuckDB's default memory limit"
            )
            return InputError(
                f"{limit} is too small for DuckDB to finish ({first}); raise 'memory_limit', "
                "or lower 'threads' (each thread needs its own buffers)"
            )
        return InputError(f"DuckDB could not finish: {first}")


class DuckDBDatabase(Database):
    """A DuckDB connection open for one job of :class:`DuckDBEngine`."""

    name = "duckdb"
    dialect = sql.DUCKDB

    def __init__(self, engine: DuckDBEngine, connection: Any = None) -> None:
        self.engine = engine
        #: DuckDB's own connection (a new one of ``engine`` when none is given).
        self.connection = engine.connect() if connection is None else connection
        self.kinds = []

    def planned_passes(self, rows: int) -> int:
        """The passes of a join of ``rows`` rows (:meth:`DuckDBEngine.planned_passes`)."""
        return self.engine.planned_passes(rows)

    def pass_plan(self, rows: int) -> tuple[int, int]:
        """A plan of at most :data:`~ereval.engines._plan.FIRST_TRY` passes is tried in
        one pass first (a single join within the limit costs less than writing and
        reading the partitions), its planned passes (at least two) if that runs out
        of memory; more passes go straight to the plan; ``passes`` given are kept."""
        planned = self.planned_passes(rows)
        if self.engine.passes is None and planned <= FIRST_TRY:
            return 1, max(2, planned)
        return planned, max(2, planned)

    def memory_bytes(self) -> int | None:
        """The bytes of the engine's ``memory_limit`` left for the work, DuckDB's
        share (:attr:`DuckDBEngine.buffer_limit`); ``None`` without a limit."""
        return self.engine.buffer_limit

    @property
    def out_of_memory(self) -> tuple[type[BaseException], ...]:
        """DuckDB's error for a statement that ran out of memory."""
        import duckdb

        return (duckdb.OutOfMemoryException,)

    @contextmanager
    def lend_memory(self, records: int) -> Iterator[None]:
        """DuckDB's memory lent to NumPy (:meth:`_lend_memory`) meanwhile, from
        :data:`LEND_FROM` ``records`` on; its limit set back afterwards."""
        limit = self._lend_memory() if records >= LEND_FROM else None
        try:
            yield
        finally:
            if limit is not None:
                self.connection.execute(f"SET memory_limit = {sql.quote(limit)}")

    @contextmanager
    def nan_seen(self) -> Iterator[None]:
        """DuckDB's propagation of statistics off meanwhile: from a Parquet column's
        range, which leaves NaN out, it folds ``isnan(x)`` to false (DuckDB 2.0)."""
        self.connection.execute("SET disabled_optimizers = 'statistics_propagation'")
        try:
            yield
        finally:
            self.connection.execute("RESET disabled_optimizers")

    @contextmanager
    def hold_memory(self, size: int) -> Iterator[None]:
        """DuckDB's memory limit (its share, :attr:`DuckDBEngine.buffer_limit`) lowered
        by ``size`` bytes meanwhile (to no less than :data:`LENT_LIMIT`), so that DuckDB
        and the NumPy arrays of that size held while it works stay within the engine's
        ``memory_limit`` together; set back
        afterwards. Nothing without a limit."""
        limit = self.engine.buffer_limit
        if limit is None or size <= 0:
            yield
            return
        lowered = max(limit - size, limit_bytes(LENT_LIMIT))
        self.connection.execute(f"SET memory_limit = '{lowered}B'")
        try:
            yield
        finally:
            self.connection.execute(f"SET memory_limit = '{limit}B'")

    @contextmanager
    def scratch(self) -> Iterator[str]:
        """A new folder for a plan's partition files, in the engine's ``temp_dir``
        (else the system's temporary directory); removed with what it holds on exit."""
        parent = None if self.engine.temp_dir is None else str(self.engine.temp_dir)
        with tempfile.TemporaryDirectory(prefix="ereval-passes-", dir=parent) as folder:
            yield folder

    def _lend_memory(self) -> str | None:
        """Lower DuckDB's memory limit so that it writes its buffered tables (the
        groups) to its temporary directory and gives back the memory its allocator
        keeps (after a query too) for the NumPy arrays; the limit it had, to be set
        back, or ``None`` when DuckDB cannot lower it."""
        import duckdb

        con = self.connection
        limit = str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])
        try:
            con.execute(f"SET memory_limit = {sql.quote(LENT_LIMIT)}")
        except duckdb.Error:
            return None
        return limit

    def execute(self, query: str) -> Any:
        """Run ``query``; DuckDB's result."""
        return self.connection.execute(query)

    def fetch_arrow(self, query: str) -> Any:
        """The rows of ``query`` as one Arrow table (through a relation: DuckDB 2 no
        longer fetches Arrow from a connection's result)."""
        return self.connection.sql(query).to_arrow_table()

    def fetch_batches(self, query: str, rows: int = 1 << 20) -> Iterator[Any]:
        """The rows of ``query`` streamed as Arrow record batches; an error of DuckDB's
        met while streaming is raised as DuckDB's (Arrow gives it as an ``OSError``)."""
        import duckdb

        reader = self.connection.sql(query).to_arrow_reader(rows)
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except OSError as exc:
                message = str(exc)
                if message.startswith("Out of Memory Error"):
                    raise duckdb.OutOfMemoryException(message) from exc
                raise duckdb.Error(message) from exc
            yield batch

    def push(self, name: str, table: Any) -> None:
        """Register the Arrow table ``table`` as the view ``name`` (read where it is)."""
        self.connection.register(name, table)

    def load(self, sides: Sequence[SideSpec], *, id_type: str = "exact") -> list[int]:
        """Each side as its view (see :meth:`Database.load`)."""
        id_type = check_choice("id_type", id_type, ("exact", "string"))
        con = self.connection
        loaded = [_Side(con, spec) for spec in sides]
        for side in loaded:
            side.load(as_text=id_type == "string")
        clash = [(a, b) for a, b in itertools.pairwise(loaded) if kinds_clash(a.kind, b.kind)]
        if clash:
            first, other = clash[0]
            ex = [
                [r[0] for r in con.execute(f"SELECT r FROM {s.view} LIMIT 2").fetchall()]
                for s in (first, other)
            ]
            raise id_type_error(
                first.kind, other.kind, ex[0], ex[1], truth=first.name, other=other.name
            )
        for a, b in itertools.pairwise(loaded):
            check_decimals(a.decimal, b.decimal, truth=a.name, name=b.name)
        self.kinds = [side.kind for side in loaded]
        return [side.n_rows for side in loaded]

    def copy_to(self, query: str, path: str | os.PathLike[str], fmt: str) -> int:
        """Write the rows of ``query`` to ``path`` with DuckDB's ``COPY``: CSV as pandas
        writes it (a header, minimal quoting with ``"``, ``\\n`` line ends) or Parquet;
        the number of rows written (``COPY`` counts them)."""
        if fmt == "parquet":
            options = "FORMAT parquet"
        else:
            compression = "gzip" if fmt == "csv.gz" else "none"
            options = (
                "FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"', "
                f"COMPRESSION {compression}"
            )
        got = self.connection.execute(f"COPY ({query}) TO {sql.quote(str(path))} ({options})")
        return int(got.fetchall()[0][0])


class _Side:
    """One clustering as the temporary view ``view(r, c)`` of a DuckDB connection; a
    record key of several columns also as its parts, the column ``rk``
    (:func:`ereval.engines._dialect.parts_sql`), which joins without the key's text."""

    def __init__(self, con: Any, spec: SideSpec) -> None:
        self.con, self.spec = con, spec
        self.view, self.data, self.name = spec.view, spec.data, spec.name
        self.records, self.clusters = spec.records, spec.clusters
        self.n_rows = 0
        self.kind: tuple[str, ...] = ()
        self.decimal: tuple[int, int] | None = None  # a decimal id's (precision, scale)
        self.parquet_or_table = True

    def _source(self) -> tuple[str, dict[str, str]]:
        """The SQL source of the data and the DuckDB type of each of its columns."""
        if is_relation(self.data):
            types = {
                str(c): str(t) for c, t in zip(self.data.columns, self.data.types, strict=True)
            }
            check_columns(self.spec, list(types))
            wanted = self.spec.columns
            reader = self.data.select(", ".join(sql.ident(c) for c in wanted)).to_arrow_reader()
            table = f"{self.view}_source"
            self.con.register(f"{table}_stream", reader)
            # streamed once into this connection, which spills it to disk when needed
            self.con.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM {table}_stream")
            self.con.unregister(f"{table}_stream")
            reader.close()  # frees the relation's connection for its next query
            return table, types
        if is_arrow_table(self.data):
            table = f"{self.view}_arrow"
            self.con.register(table, self.data)
            described = self.con.execute(f"DESCRIBE SELECT * FROM {table}").fetchall()
            types = {str(r[0]): str(r[1]) for r in described}
            check_columns(self.spec, list(types))
            return table, types
        if not isinstance(self.data, str | os.PathLike):
            spark = (
                type(self.data).__name__ == "DataFrame" and "pyspark" in type(self.data).__module__
            )
            raise InputError(
                f"'{self.name}': the DuckDB engine reads CSV or Parquet files, Arrow tables "
                f"and DuckDB relations; received {type(self.data).__name__} "
                f"(use engine={'spark' if spark else 'numpy'!r})"
            )
        spec = file_spec(self.data, name=self.name)
        self.parquet_or_table = spec.format == "parquet"
        source = sql.source_sql(spec, header(spec, name=self.name) if spec.format == "csv" else [])
        try:
            described = self.con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
        except Exception as exc:  # DuckDB raises its own error types for unreadable files
            raise InputError(
                f"'{self.name}': cannot read '{spec.path}' ({type(exc).__name__}: {exc})"
            ) from exc
        types = {str(r[0]): str(r[1]) for r in described}
        check_columns(self.spec, list(types))
        return source, types

    def load(self, *, as_text: bool) -> tuple[str, ...]:
        """Create the view, check it has rows and no missing id; return the kinds of the
        record key's parts (as compared)."""
        source, types = self._source()
        r_sql, r_kinds, cast = key_of(
            self.records, [_kind(types[c]) for c in self.records], name=self.name, as_text=as_text
        )
        if self.spec.pair:  # the second record of each pair, read as the first
            c_sql, c_kind = second_key(
                self.spec,
                [_kind(types[c]) for c in self.clusters],
                r_kinds,
                as_text=as_text,
                text_type=sql.DUCKDB.text_type,
                dialect=sql.DUCKDB,
            )
        else:
            c_sql, c_kind = _key(self.clusters, types, name=self.name)
        floats = (_floats(self.records, types), _floats(self.clusters, types))
        if floats[0]:
            r_sql = sql.plain_zero(r_sql, types[self.records[0]])
        if floats[1]:
            c_sql = sql.plain_zero(c_sql, types[self.clusters[0]])
        r_kind = "text" if len(r_kinds) > 1 else r_kinds[0]
        # a CSV file is parsed once, into a temporary table (spilled past the memory
        # limit); Parquet files and relations are read where they are
        kind = "VIEW" if self.parquet_or_table else "TABLE"
        extra = tuple(
            (alias, _key(list(cols), types, name=self.spec.extra_option)[0])
            for alias, cols in self.spec.extra
        )
        parts: list[tuple[str, bool]] = []  # a key's parts, and which are text
        # the key's parts, to join on and to check, where they are read in place: a CSV
        # file's rows are stored once, its keys' text with them (its empty fields are NULLs)
        checked = self.spec.parts if self.parquet_or_table else []
        if checked and self.spec.pair:  # each part of both records, for its missing values
            extra += tuple((f"{sql.PARTS}{k}", sql.ident(c)) for k, c in enumerate(checked))
            parts = [(f"{sql.PARTS}{k}", _kind(types[c]) == "text") for k, c in enumerate(checked)]
        elif checked:
            read = [_kind(types[c]) for c in self.records]
            extra += ((sql.PARTS, sql.parts_sql(self.records, read, as_text=as_text)),)
            parts = [(f"{sql.PARTS}.k{k}", kind == "text") for k, kind in enumerate(read)]
        self.con.execute(
            f"CREATE TEMP {kind} {self.view} AS "
            + sql.side_sql(source, r_sql, c_sql, record_as_text=cast, extra=extra)
        )
        counts = self.con.execute(
            sql.nulls_sql(
                self.view,
                record_text=r_kind == "text",
                cluster_text=c_kind == "text",
                parts=parts,
                floats=floats,
            )
        ).fetchall()[0]
        if self.spec.parts and not parts and (counts[1] or (self.spec.pair and counts[2])):
            # a CSV file's key is missing: its parts, counted in the file on the way to
            # the error only, name the column
            parts = [(sql.ident(c), _kind(types[c]) == "text") for c in self.spec.parts]
            got = self.con.execute(sql.part_nulls_sql(source, parts)).fetchall()[0]
            counts = (*counts[:3], *got)
        check_scan(self.spec, counts, by_parts=bool(parts))
        self.n_rows, self.kind = int(counts[0]), r_kinds
        if r_kinds == ("decimal",):
            p, s = types[self.records[0]][len("DECIMAL(") : -1].split(",")
            self.decimal = (int(p), int(s))
        return r_kinds
