"""Summary statistics of one clustering computed by an SQL engine, where the data is.

:func:`engine_summary` loads the clustering (a CSV or Parquet file, a glob or a
folder of parts, a DuckDB relation or a Spark DataFrame) with the engine's
``run`` and returns the :class:`~ereval.summary.Summary` built from a few
aggregates: the number of rows, the duplicate check, the cluster-size
distribution and, with names, the numbers of clusters holding a homonym or a
name variation. Nothing of the size of the records comes back to Python. The
names are columns of the clustering (several taken together), or of a second
table keyed by the same record id (``names_from``), joined in the engine.

The result equals the in-memory one (:func:`ereval.summary.summarize`) field by
field, and the errors are worded as it words them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import IdKindError, InputError, InputTypeError
from .._validation import describe, examples
from ..engines import Database, Engine, EngineName, NumpyEngine, get_engine
from ..engines import _dialect as sql
from ..engines._duckdb import is_relation
from ..engines._sources import SideSpec, check_unique, name_columns, size_distribution
from ..engines._spark_session import is_spark_dataframe
from ..io import Columns, column_names, file_spec, header, id_type_error
from . import Summary

__all__ = [
    "FLOAT_TYPES",
    "TEXT_TYPES",
    "cluster_sizes_sql",
    "column_types_sql",
    "engine_cluster_sizes",
    "engine_summary",
    "missing_counts_sql",
    "missing_examples_sql",
    "missing_sql",
    "named_records_sql",
    "names_by_size_sql",
    "summary_engine",
    "unnamed_count_sql",
]

_CLUSTERING = "c"  # the views of the clustering and of the names table
_NAMES = "n"
_NAMED = "named"  # the names table joined to the clustering


#: The types (lower case, as DuckDB's and Spark's ``typeof`` name them) whose NaN is a
#: missing value, as it is in memory.
FLOAT_TYPES = ("double", "float", "real", "float4", "float8")
#: The text types, as ``typeof`` names them.
TEXT_TYPES = ("varchar", "string", "text")


def column_types_sql(side: str, columns: list[str]) -> str:
    """The type of each of ``columns`` of ``side`` as ``typeof`` names it (one row)."""
    return f"SELECT {', '.join(f'typeof({c})' for c in columns)} FROM {side} LIMIT 1"


def missing_sql(column: str, *, is_float: bool, empty: bool = False) -> str:
    """The condition of a missing value of ``column``: null, NaN in a float column, and
    with ``empty`` the empty text."""
    return (
        f"({column} IS NULL"
        + (f" OR isnan({column})" if is_float else "")
        + (f" OR {column} = ''" if empty else "")
        + ")"
    )


def missing_counts_sql(side: str, conditions: list[str]) -> str:
    """The rows of ``side`` meeting each condition of :func:`missing_sql` (one row, one scan)."""
    counts = ", ".join(f"count(*) FILTER (WHERE {c})" for c in conditions)
    return f"SELECT {counts} FROM {side}"


def missing_examples_sql(side: str, condition: str, *, limit: int = 3) -> str:
    """The smallest record keys of the rows of ``side`` meeting ``condition``."""
    return f"SELECT r FROM {side} WHERE {condition} ORDER BY r LIMIT {int(limit)}"


def unnamed_count_sql(side: str, names: str, *, dialect: sql.Dialect = sql.DUCKDB) -> str:
    """The number of records of ``side`` that the view ``names`` has no row for."""
    return f"SELECT count(*) FROM {side} AS s {dialect.anti_join} {names} AS o ON s.r = o.r"


def named_records_sql(side: str, names: str) -> str:
    """Each record's cluster and name, ``(c, s)``, the name that of the record in the
    view ``names(r, ..., s)`` (one row per record)."""
    return f"SELECT x.c AS c, y.s AS s FROM {side} AS x JOIN {names} AS y ON x.r = y.r"


def names_by_size_sql(named: str) -> str:
    """Per cluster size, from the records' clusters and names (the view ``named(c,
    s)``): ``size``, ``clusters`` of that size, those holding more than one name
    (``varied``, eq. 3) and those holding a name that another cluster holds too
    (``homonyms``, eq. 2), in no order. A name is shared when its records are not all
    in one cluster, a cluster varies when its names are not all one (``min <> max``):
    two GROUP BYs and one join, no cell table."""
    shared = f"SELECT s FROM {named} GROUP BY s HAVING min(c) <> max(c)"
    per_cluster = (
        "SELECT x.c, count(*) AS b, min(x.s) AS lo, max(x.s) AS hi, "
        "max(CASE WHEN y.s IS NULL THEN 0 ELSE 1 END) AS h "
        f"FROM {named} AS x LEFT JOIN ({shared}) AS y ON x.s = y.s GROUP BY x.c"
    )
    return (
        "SELECT b AS size, count(*) AS clusters, "
        "count(*) FILTER (WHERE lo <> hi) AS varied, "
        f"count(*) FILTER (WHERE h > 0) AS homonyms FROM ({per_cluster}) AS per_cluster "
        "GROUP BY b"
    )


def cluster_sizes_sql(side: str) -> str:
    """The size of every cluster of ``side``, one row each (``size``), in no order."""
    return f"SELECT count(*) AS size FROM {side} GROUP BY c"


def summary_engine(
    engine: EngineName | Engine,
    clustering: Any,
    *,
    names: Any = None,
) -> Engine:
    """The engine that summarises ``clustering``, by the rule of
    :func:`ereval.engines.get_engine` for one input; with ``"auto"``, names given in
    memory (a mapping) keep a file's summary in memory too."""
    builder = get_engine(engine, truth=clustering)
    if engine == "auto" and _in_memory(names) and isinstance(clustering, str | os.PathLike):
        return NumpyEngine()
    return builder


def _in_memory(names: Any) -> bool:
    return names is not None and not isinstance(names, str | list | tuple)


def _runner(engine: Engine, in_memory: Callable[[], Any] | None = None) -> Callable[..., Any]:
    """``run(sides, work)``: ``work(db, rows)`` run by ``engine`` on the loaded sides,
    or ``in_memory()`` when ``engine`` works in memory."""
    if not callable(getattr(engine, "run", None)):
        raise InputError(
            f"'engine': expected an engine (NumPy, DuckDB or Spark); received {engine!r}"
        )
    refusal = (
        f"'engine': the {engine.name} engine does not load clusterings for SQL; "
        "summary statistics where the data is need engine='duckdb' or 'spark'"
    )

    def run(prepare: Callable[[], Any], work: Callable[..., Any]) -> Any:
        job = _Job(prepare, work, in_memory, refusal)
        return engine.run(job)

    return run


def _columns_of(data: Any, name: str) -> list[str] | None:
    """The columns of an input, without reading its data (None when it cannot say)."""
    if is_relation(data) or is_spark_dataframe(data):
        return [str(c) for c in data.columns]
    if isinstance(data, str | os.PathLike):
        return header(file_spec(data, name=name), name=name)
    return None


def _label(data: Any) -> str:
    return str(data) if isinstance(data, str | os.PathLike) else type(data).__name__


class _Job:
    """Load the sides ``prepare()`` gives, then ``work(db, rows)``; in memory,
    ``in_memory()`` (or the refusal when there is none)."""

    def __init__(
        self,
        prepare: Callable[[], Any],
        work: Callable[..., Any],
        in_memory: Callable[[], Any] | None,
        refusal: str,
    ) -> None:
        self.prepare, self.work, self.memory, self.refusal = prepare, work, in_memory, refusal

    def in_memory(self, engine: Any) -> Any:
        if self.memory is None:
            raise InputError(self.refusal)
        return self.memory()

    def in_sql(self, db: Database) -> Any:
        sides = self.prepare()
        return self.work(db, db.load(sides))


def _sides(
    clustering: Any,
    names: Any,
    names_from: Any,
    record_col: Columns,
    cluster_col: Columns,
    engine: Engine,
) -> tuple[list[SideSpec], list[str] | None, InputError | None]:
    """The views to load (the clustering, then the names table if any), the name
    columns, and the error of an absent name column, found before any work but
    raised after the clustering's own checks, in the order of the in-memory path
    (the views then leave the names out)."""
    records = column_names(record_col, name="record_col")
    clusters = column_names(cluster_col, name="cluster_col")
    plain = SideSpec(_CLUSTERING, clustering, "clustering", records, clusters)
    if names is None:
        if names_from is not None:
            raise InputError("'names_from' needs 'names' (the column(s) to read from it)")
        return [plain], None, None
    if not isinstance(names, str | list | tuple):
        raise InputTypeError(
            f"'names' must be the column(s) holding the names with engine='{engine.name}' "
            f"(a mapping is read in memory: use engine='numpy'); received {describe(names)}"
        )
    cols = column_names(names if isinstance(names, str) else list(names), name="names")
    extra = name_columns(cols)[0]
    if names_from is None:
        present = _columns_of(clustering, "clustering")
        absent = [c for c in cols if present is not None and c not in present]
        if absent and all(c in (present or ()) for c in records + clusters):
            late = InputError(
                f"'names': 'clustering' has no column {absent[0]!r}; its columns are {present}"
            )
            return [plain], cols, late
        return (
            [SideSpec(_CLUSTERING, clustering, "clustering", records, clusters, extra)],
            cols,
            None,
        )
    present = _columns_of(names_from, "names_from")
    absent = [c for c in records + cols if present is not None and c not in present]
    if absent:
        late = InputError(
            f"'names_from': '{_label(names_from)}' has no column {absent[0]!r}; its "
            f"columns are {present}"
        )
        return [plain], cols, late
    return [plain, SideSpec(_NAMES, names_from, "names_from", records, records, extra)], cols, None


def _missing_names(con: Any, view: str, cols: list[str], names_from: Any) -> None:
    """The in-memory path's error for the first name column with a missing value: null,
    or NaN in a float column, and in a name of several columns the empty text too (two
    statements, whatever the number of columns)."""
    aliases = name_columns(cols)[1]
    kinds = con.execute(column_types_sql(view, aliases)).fetchall()[0]
    conditions = [
        missing_sql(
            alias,
            is_float=str(kind).lower() in FLOAT_TYPES,
            empty=len(cols) > 1 and str(kind).lower() in TEXT_TYPES,
        )
        for alias, kind in zip(aliases, kinds, strict=True)
    ]
    counts = con.execute(missing_counts_sql(view, conditions)).fetchall()[0]
    for col, condition, count in zip(cols, conditions, counts, strict=True):
        if not count:
            continue
        if names_from is not None:
            raise InputError(
                f"'names': column {col!r} of '{_label(names_from)}' has missing values"
            )
        query = missing_examples_sql(view, condition)
        raise InputError(
            f"'names' is missing (empty, None or NaN) for {count} record(s) in column "
            f"{col!r}, e.g. {_examples(con, query, int(count))}"
        )


def _examples(con: Any, query: str, count: int) -> str:
    shown = [row[0] for row in con.execute(query).fetchall()]
    more = count - len(shown)
    return examples(shown) + (f" and {more} more" if more > 0 else "")


def _check_names_table(con: Any, names_from: Any, dialect: sql.Dialect) -> None:
    """The names table repeats no record, and names every record of the clustering."""
    if con.execute(sql.duplicates_sql(_NAMES)).fetchall()[0][0]:
        ex = [row[0] for row in con.execute(sql.repeated_sql(_NAMES)).fetchall()]
        raise InputError(
            f"'names_from': '{_label(names_from)}' repeats record ids (e.g. {examples(ex)})"
        )
    query = unnamed_count_sql(_CLUSTERING, _NAMES, dialect=dialect)
    unnamed = int(con.execute(query).fetchall()[0][0])
    if unnamed:
        query = sql.mismatch_examples_sql(_CLUSTERING, _NAMES, dialect=dialect)
        raise InputError(
            f"'names' has no name for {unnamed} record(s) of 'clustering' (e.g. "
            f"{_examples(con, query, unnamed)}); homonymy needs the name of every record"
        )


def engine_summary(
    engine: Engine,
    clustering: Any,
    *,
    names: str | list[str] | tuple[str, ...] | None = None,
    names_from: Any = None,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    progress: Callable[[str], None] | None = None,
    in_memory: Callable[[], Any] | None = None,
) -> Summary:
    """The :class:`~ereval.summary.Summary` of ``clustering`` computed by ``engine``
    (DuckDB or Spark) where the data is; equal to the in-memory one.

    Parameters
    ----------
    engine : Engine
        An engine with a ``run`` method (:class:`~ereval.engines.DuckDBEngine`,
        :class:`~ereval.engines.SparkEngine`).
    clustering : path, DuckDB relation or Spark DataFrame
        A CSV or Parquet file (a path, a glob or a folder of parts), or a table of
        the engine.
    names : str or list of str, optional
        The column(s) holding a record's name (several taken together), for the
        homonymy and name-variation rates: columns of ``clustering``, or of
        ``names_from``.
    names_from : path, DuckDB relation or Spark DataFrame, optional
        A table with the record id column(s) and the ``names`` column(s); it may
        list more records than the clustering (only the clustering's are counted)
        but must name each of them once.
    record_col, cluster_col : str or list of str
        The id columns (of both tables for ``record_col``).
    progress : callable, optional
        Called with the name of each phase.

    Raises
    ------
    InputError
        Empty input, missing or repeated record ids, missing names, records without
        a name, absent columns: as :func:`ereval.summary.summarize` words them.
    """
    run = _runner(engine, in_memory)
    state: dict[str, Any] = {}

    def prepare() -> Any:
        sides, state["cols"], state["late"] = _sides(
            clustering, names, names_from, record_col, cluster_col, engine
        )
        return sides

    def say(what: str) -> None:
        if progress is not None:
            progress(f"{what} ({engine.name})")

    def work(con: Any, rows: list[int]) -> Summary:
        say("checking the record ids")
        check_unique(con, _CLUSTERING, "clustering")
        cols, late = state["cols"], state["late"]
        if late is not None:
            raise late
        n_homonym = n_variation = None
        if cols is None:
            say("counting the cluster sizes")
            sizes, counts = size_distribution(con, _CLUSTERING)
        else:
            say("checking the names")
            named = _CLUSTERING
            if names_from is None:
                _missing_names(con, _CLUSTERING, cols, None)
            else:
                _missing_names(con, _NAMES, cols, names_from)
                _check_names_table(con, names_from, con.dialect)
                named = _NAMED
                query = named_records_sql(_CLUSTERING, _NAMES)
                con.execute(f"CREATE TEMP TABLE {_NAMED} AS {query}")
            say("counting the cluster sizes and the names")
            got = con.execute(names_by_size_sql(named)).fetchnumpy()
            sizes, counts, varied, shared = (
                np.asarray(got[k], dtype=np.int64)
                for k in ("size", "clusters", "varied", "homonyms")
            )
            order = np.argsort(sizes)
            sizes, counts = sizes[order], counts[order]
            n_variation, n_homonym = int(varied.sum()), int(shared.sum())
        n_records = int(rows[0])
        singles = int(counts[0]) if sizes.shape[0] and sizes[0] == 1 else 0
        return Summary(
            n_records=n_records,
            n_clusters=int(counts.sum()),
            n_matched=n_records - singles,
            sizes=sizes,
            counts=counts,
            n_homonym=n_homonym,
            n_variation=n_variation,
        )

    say("reading the clustering")
    try:
        summary: Summary = run(prepare, work)
    except IdKindError as exc:
        if names_from is None:
            raise
        # the names table has no id_type to pass: the remedy is ids of one kind
        raise id_type_error(
            *exc.kinds,
            *exc.examples,
            truth="clustering",
            other="names_from",
            remedy="give both ids of one kind",
        ) from None
    return summary


def engine_cluster_sizes(
    engine: Engine,
    clustering: Any,
    *,
    record_col: Columns = "record_id",
    cluster_col: Columns = "cluster_id",
    in_memory: Callable[[], Any] | None = None,
) -> npt.NDArray[np.int64]:
    """The size of every cluster of ``clustering`` (in no particular order) computed by
    ``engine`` (DuckDB or Spark), after the same checks as :func:`engine_summary`."""
    run = _runner(engine, in_memory)

    def prepare() -> Any:
        return _sides(clustering, None, None, record_col, cluster_col, engine)[0]

    def work(con: Any, rows: list[int]) -> npt.NDArray[np.int64]:
        check_unique(con, _CLUSTERING, "clustering")
        got = con.execute(cluster_sizes_sql(_CLUSTERING)).fetchnumpy()
        return np.asarray(got["size"], dtype=np.int64)

    sizes: npt.NDArray[np.int64] = run(prepare, work)
    return sizes
