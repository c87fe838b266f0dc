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
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import IdKindError, InputError, InputTypeError
from .._validation import describe, examples
from ..io import Columns, column_names, file_spec, header, id_type_error
from ..summary import Summary
from . import sql, summary_sql
from ._cells import SideSpec, check_unique, name_columns, size_distribution
from .base import Engine, EngineName, NumpyEngine, get_engine
from .duckdb_engine import is_relation
from .spark_session import is_spark_dataframe

__all__ = ["engine_cluster_sizes", "engine_summary", "summary_engine"]

_CLUSTERING = "c"  # the views of the clustering and of the names table
_NAMES = "n"
_NAMED = "named"  # the names table joined to the clustering


def summary_engine(
    engine: EngineName | Engine,
    clustering: Any,
    *,
    names: Any = None,
    memory_limit: str | None = None,
    threads: int | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
    spark_master: str | None = None,
    spark_conf: Mapping[str, Any] | None = None,
) -> Engine:
    """The engine that summarises ``clustering``, by the rule of
    :func:`ereval.engines.get_engine` for one input; with ``"auto"``, names given in
    memory (a mapping) keep a file's summary in memory too."""
    builder = get_engine(
        engine,
        truth=clustering,
        memory_limit=memory_limit,
        threads=threads,
        temp_dir=temp_dir,
        spark_master=spark_master,
        spark_conf=spark_conf,
    )
    if engine == "auto" and _in_memory(names) and isinstance(clustering, str | os.PathLike):
        return NumpyEngine()
    return builder


def _in_memory(names: Any) -> bool:
    return names is not None and not isinstance(names, str | list | tuple)


def _runner(engine: Engine) -> Callable[..., Any]:
    run: Callable[..., Any] | None = getattr(engine, "run", None)
    if run is None or not callable(run):
        raise InputError(
            f"'engine': the {engine.name} engine does not load clusterings for SQL; "
            "summary statistics where the data is need engine='duckdb' or 'spark'"
        )
    return run


def _dialect(engine: Engine) -> sql.Dialect:
    return sql.SPARK if engine.name == "spark" else sql.DUCKDB


def _columns_of(data: Any, name: str) -> list[str] | None:
    """The columns of an input, without reading its data (None when it cannot say)."""
    if is_relation(data) or is_spark_dataframe(data):
        return [str(c) for c in data.columns]
    if isinstance(data, str | os.PathLike):
        return header(file_spec(data, name=name), name=name)
    return None


def _label(data: Any) -> str:
    return str(data) if isinstance(data, str | os.PathLike) else type(data).__name__


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
    kinds = con.execute(summary_sql.column_types_sql(view, aliases)).fetchall()[0]
    conditions = [
        summary_sql.missing_sql(
            alias,
            is_float=str(kind).lower() in summary_sql.FLOAT_TYPES,
            empty=len(cols) > 1 and str(kind).lower() in summary_sql.TEXT_TYPES,
        )
        for alias, kind in zip(aliases, kinds, strict=True)
    ]
    counts = con.execute(summary_sql.missing_counts_sql(view, conditions)).fetchall()[0]
    for col, condition, count in zip(cols, conditions, counts, strict=True):
        if not count:
            continue
        if names_from is not None:
            raise InputError(
                f"'names': column {col!r} of '{_label(names_from)}' has missing values"
            )
        query = summary_sql.missing_examples_sql(view, condition)
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
    n, n_distinct = con.execute(sql.duplicates_sql(_NAMES)).fetchall()[0]
    if n != n_distinct:
        ex = [row[0] for row in con.execute(sql.repeated_sql(_NAMES)).fetchall()]
        raise InputError(
            f"'names_from': '{_label(names_from)}' repeats record ids (e.g. {examples(ex)})"
        )
    query = summary_sql.unnamed_count_sql(_CLUSTERING, _NAMES, dialect=dialect)
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
    run = _runner(engine)
    dialect = _dialect(engine)
    sides, cols, late = _sides(clustering, names, names_from, record_col, cluster_col, engine)

    def say(what: str) -> None:
        if progress is not None:
            progress(f"{what} ({engine.name})")

    def work(con: Any, rows: list[int]) -> Summary:
        say("checking the record ids")
        check_unique(con, _CLUSTERING, "clustering")
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
                _check_names_table(con, names_from, dialect)
                named = _NAMED
                query = summary_sql.named_records_sql(_CLUSTERING, _NAMES)
                con.execute(f"CREATE TEMP TABLE {_NAMED} AS {query}")
            say("counting the cluster sizes and the names")
            got = con.execute(summary_sql.names_by_size_sql(named)).fetchnumpy()
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
        summary: Summary = run(sides, work)
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
) -> npt.NDArray[np.int64]:
    """The size of every cluster of ``clustering`` (in no particular order) computed by
    ``engine`` (DuckDB or Spark), after the same checks as :func:`engine_summary`."""
    run = _runner(engine)
    sides, _, _ = _sides(clustering, None, None, record_col, cluster_col, engine)

    def work(con: Any, rows: list[int]) -> npt.NDArray[np.int64]:
        check_unique(con, _CLUSTERING, "clustering")
        got = con.execute(summary_sql.cluster_sizes_sql(_CLUSTERING)).fetchnumpy()
        return np.asarray(got["size"], dtype=np.int64)

    sizes: npt.NDArray[np.int64] = run(sides, work)
    return sizes
