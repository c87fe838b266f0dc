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
join's groups stream straight into NumPy (:mod:`ereval.engines.duckdb_stream`);
they are written to a table first only when the cells must come back.

Files are read by the rules of :mod:`ereval.io` (the same as the in-memory
engine): the id columns of a CSV file are text exactly as written, Parquet
keeps its types, and ids of different kinds on the two sides are an error
unless ``id_type="string"``. A DuckDB relation is read as it is typed.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Generic, TypeVar, Unpack, cast

import numpy as np

from .._errors import InputError, InputTypeError
from .._optional import require
from .._validation import check_choice
from ..contingency import ContingencyTable
from ..io import AlignOptions, MismatchPolicy, file_spec, header, id_type_error, kinds_clash
from ..statistics import CELLS_WANTED, CellsWanted, TableStatistics
from . import sql
from ._cells import (
    SideSpec,
    check_columns,
    check_side,
    checked_cells,
    coded_table,
    completed_rows,
    is_link_only,
    key_of,
    side_specs,
    within_source,
)
from ._database import Database, Job
from ._plan import MAX_MODULUS, limit_bytes, pass_count
from .duckdb_stats import duckdb_table_statistics
from .duckdb_stream import streamed_statistics

__all__ = [
    "DuckDBDatabase",
    "DuckDBEngine",
    "check_memory_limit",
    "check_temp_dir",
    "check_threads",
    "duckdb_contingency_table",
    "duckdb_statistics",
    "is_arrow_table",
    "is_relation",
]

T = TypeVar("T")

_MEMORY = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


#: The smallest memory limit DuckDB is given: below it, even a pass over a few
#: records cannot allocate DuckDB's fixed buffers.
MIN_MEMORY = "32MB"


def check_memory_limit(value: str | None) -> str | None:
    """``value`` if it is a DuckDB memory size such as ``"2GB"`` or ``"512MiB"``, at
    least :data:`MIN_MEMORY`."""
    if value is None:
        return None
    if not isinstance(value, str) or not _MEMORY.match(value):
        raise InputError(
            f"'memory_limit' must be a size such as '2GB' or '512MB'; received {value!r}"
        )
    if limit_bytes(value) < limit_bytes(MIN_MEMORY):
        raise InputError(
            f"'memory_limit' must be at least {MIN_MEMORY} (DuckDB's buffers); "
            f"received {value.strip()!r}"
        )
    return value.strip()


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
    if t in ("FLOAT", "DOUBLE") or t.startswith("DECIMAL"):
        return "float"
    if t == "BOOLEAN":
        return "boolean"
    return t.lower()


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
        DuckDB's memory limit (e.g. ``"2GB"``); beyond it DuckDB spills to
        ``temp_dir``. Default: DuckDB's own (80% of the memory).
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
        limit = None if self.memory_limit is None else limit_bytes(self.memory_limit)
        return pass_count(rows, limit)

    def connect(self) -> Any:
        """A new in-memory DuckDB connection with this engine's settings."""
        duckdb = require("duckdb", feature="the DuckDB engine")
        con = duckdb.connect()
        con.execute("SET preserve_insertion_order = false")
        # DuckDB's own bar would write to stdout, which carries the results: the
        # phases are reported through ``progress`` instead
        con.execute("SET enable_progress_bar = false")
        if self.memory_limit is not None:
            con.execute(f"SET memory_limit = {sql.quote(self.memory_limit)}")
        if self.threads is not None:
            con.execute(f"SET threads = {self.threads}")
        if self.temp_dir is not None:
            con.execute(f"SET temp_directory = {sql.quote(str(self.temp_dir))}")
        return con

    def contingency_table(
        self, truth: Any, pred: Any, **options: Unpack[AlignOptions]
    ) -> ContingencyTable:
        """The contingency table of two clusterings (CSV or Parquet files, or DuckDB
        relations), identical to the in-memory one. ``options`` are those of
        :func:`ereval.io.align`."""

        def work(con: Any, policy: MismatchPolicy, n_t: int, n_p: int) -> ContingencyTable:
            self._cells(con, (n_t, n_p), policy)
            return coded_table(con, policy)

        return self._pair(truth, pred, options, work)

    def statistics(
        self,
        truth: Any,
        pred: Any,
        *,
        cells: CellsWanted = "never",
        progress: Callable[[str], None] | None = None,
        **options: Unpack[AlignOptions],
    ) -> TableStatistics:
        """The table's sufficient statistics, computed inside DuckDB; the cells come
        back only when ``cells`` is ``"always"`` (or ``"twinless"`` and some record is
        on one side only). ``progress`` is called with the name of each phase.
        ``options`` are those of :func:`ereval.io.align`."""
        wanted = check_choice("cells", cells, CELLS_WANTED)
        if progress is not None:
            progress("reading and joining the records (duckdb)")

        def computing() -> None:
            if progress is not None:
                progress("computing the statistics (duckdb)")

        def work(con: Any, policy: MismatchPolicy, n_t: int, n_p: int) -> TableStatistics:
            rows = (n_t, n_p)
            # only under policy="twinless" may a record be on one side only
            if wanted == "never" or (wanted == "twinless" and policy != "twinless"):
                # the groups stream out of the join into NumPy, no table is written
                return self._streamed(con, rows, policy, computing)
            both, only_t, only_p = self._cells(con, rows, policy)
            if policy == "intersection":
                only_t = only_p = 0
            computing()
            stats = duckdb_table_statistics(con, "cells", policy, both, only_t, only_p)
            if wanted == "always" or stats.has_twinless:
                if progress is not None:
                    progress("fetching the cells (duckdb)")
                stats = replace(stats, table=coded_table(con, policy))
            return stats

        return self._pair(truth, pred, options, work)

    def _streamed(
        self, con: Any, rows: tuple[int, int], policy: MismatchPolicy, checked: Callable[[], None]
    ) -> TableStatistics:
        """:func:`streamed_statistics` in the planned passes; a single pass that runs
        out of memory is run again in two (each split further as needed)."""
        import duckdb

        passes = self.planned_passes(sum(rows))
        try:
            return streamed_statistics(
                con, ("t", "p"), rows, policy, checked=checked, passes=passes
            )
        except duckdb.OutOfMemoryException:
            if passes > 1:
                raise
        return streamed_statistics(con, ("t", "p"), rows, policy, checked=checked, passes=2)

    def _cells(
        self, con: Any, rows: tuple[int, int], policy: MismatchPolicy
    ) -> tuple[int, int, int]:
        """:func:`checked_cells` in the planned passes (two if a single one runs out
        of memory)."""
        import duckdb

        passes = self.planned_passes(sum(rows))
        try:
            return checked_cells(con, ("t", "p"), rows, policy, passes=passes)
        except duckdb.OutOfMemoryException:
            if passes > 1:
                raise
        con.execute("DROP TABLE IF EXISTS cells")
        return checked_cells(con, ("t", "p"), rows, policy, passes=2)

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

    def _pair(self, truth: Any, pred: Any, options: AlignOptions, work: Callable[..., T]) -> T:
        """:meth:`run` on ``truth`` and ``pred`` as the views ``t`` and ``p``, then
        ``work(connection, policy, n_t, n_p)``."""
        policy, id_type, specs = side_specs(options, (("t", truth, "truth"), ("p", pred, "pred")))

        def go(con: Any, rows: list[int]) -> T:
            result: Any = work(con, policy, *completed_rows(con, specs, rows, policy))
            if is_link_only(specs):  # a table or its statistics, with the pairs within
                result = replace(result, within_source=within_source(con, policy))
            return cast(T, result)

        return self.run(_Loaded(specs, id_type, go))


class _Loaded(Generic[T]):
    """The job of :meth:`DuckDBEngine._pair`: load the sides, then ``work(connection,
    rows)`` on DuckDB's own connection."""

    def __init__(self, specs: Sequence[SideSpec], id_type: str, work: Callable[..., T]) -> None:
        self.specs, self.id_type, self.work = specs, id_type, work

    def in_memory(self, engine: Any) -> T:
        raise InputError(f"'engine': expected an SQL engine; received {engine!r}")

    def in_sql(self, db: Database) -> T:
        rows = db.load(self.specs, id_type=self.id_type)
        return self.work(cast(DuckDBDatabase, db).connection, rows)


class DuckDBDatabase(Database):
    """A DuckDB connection open for one job of :class:`DuckDBEngine`."""

    name = "duckdb"
    dialect = sql.DUCKDB

    def __init__(self, engine: DuckDBEngine, connection: Any) -> None:
        self.engine = engine
        #: DuckDB's own connection.
        self.connection = connection

    def execute(self, query: str) -> Any:
        """Run ``query``; DuckDB's result."""
        return self.connection.execute(query)

    def fetch_batches(self, query: str, rows: int = 1 << 20) -> Any:
        """The rows of ``query`` streamed as Arrow record batches."""
        yield from self.connection.sql(query).to_arrow_reader(rows)

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
            raise id_type_error(first.kind, other.kind, ex[0], ex[1])
        return [side.n_rows for side in loaded]

    def copy_to(self, query: str, path: str | os.PathLike[str], fmt: str) -> None:
        """Write the rows of ``query`` to ``path`` with DuckDB's ``COPY``: CSV as pandas
        writes it (a header, minimal quoting with ``"``, ``\\n`` line ends) or Parquet."""
        target = sql.quote(str(path))
        if fmt == "parquet":
            self.connection.execute(f"COPY ({query}) TO {target} (FORMAT parquet)")
            return
        compression = "gzip" if fmt == "csv.gz" else "none"
        self.connection.execute(
            f"COPY ({query}) TO {target} (FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', "
            f"ESCAPE '\"', COMPRESSION {compression})"
        )


class _Side:
    """One clustering as the temporary view ``view(r, c)`` of a DuckDB connection."""

    def __init__(self, con: Any, spec: SideSpec) -> None:
        self.con, self.spec = con, spec
        self.view, self.data, self.name = spec.view, spec.data, spec.name
        self.records, self.clusters = spec.records, spec.clusters
        self.n_rows = 0
        self.kind: tuple[str, ...] = ()
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
        c_sql, c_kind = _key(self.clusters, types, name=self.name)
        r_kind = "text" if len(r_kinds) > 1 else r_kinds[0]
        # a CSV file is parsed once, into a temporary table (spilled past the memory
        # limit); Parquet files and relations are read where they are
        kind = "VIEW" if self.parquet_or_table else "TABLE"
        extra = tuple(
            (alias, _key(list(cols), types, name=self.name)[0]) for alias, cols in self.spec.extra
        )
        self.con.execute(
            f"CREATE TEMP {kind} {self.view} AS "
            + sql.side_sql(source, r_sql, c_sql, record_as_text=cast, extra=extra)
        )
        n, n_null_r, n_null_c = self.con.execute(
            sql.nulls_sql(self.view, record_text=r_kind == "text", cluster_text=c_kind == "text")
        ).fetchall()[0]
        check_side(self.name, n, n_null_r, n_null_c, allow_empty=self.spec.allow_empty)
        self.n_rows, self.kind = int(n), r_kinds
        return r_kinds


def duckdb_contingency_table(
    truth: Any,
    pred: Any,
    *,
    memory_limit: str | None = None,
    threads: int | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
    **options: Unpack[AlignOptions],
) -> ContingencyTable:
    """The contingency table of two clustering files, computed by DuckDB.

    Parameters
    ----------
    truth, pred : path or DuckDB relation
        CSV (optionally gzipped), TSV or Parquet files, or DuckDB relations.
    memory_limit, threads, temp_dir
        As in :class:`DuckDBEngine`.
    **options
        As in :func:`ereval.io.align` (``on_mismatch``, the column
        options, ``id_type``).

    Returns
    -------
    ContingencyTable
        Identical to the in-memory table.
    """
    engine = DuckDBEngine(memory_limit=memory_limit, threads=threads, temp_dir=temp_dir)
    return engine.contingency_table(truth, pred, **options)


def duckdb_statistics(
    truth: Any,
    pred: Any,
    *,
    cells: CellsWanted = "never",
    memory_limit: str | None = None,
    threads: int | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
    **options: Unpack[AlignOptions],
) -> TableStatistics:
    """The sufficient statistics of the table of two clustering files, computed by DuckDB.

    Parameters and options are those of :func:`duckdb_contingency_table`; ``cells``
    as in :meth:`DuckDBEngine.statistics`.

    Returns
    -------
    TableStatistics
        Equal to the in-memory engine's: integers exactly, floats to about
        ``1e-15`` relative.
    """
    engine = DuckDBEngine(memory_limit=memory_limit, threads=threads, temp_dir=temp_dir)
    return engine.statistics(truth, pred, cells=cells, **options)
