"""The error tables computed by an SQL engine (DuckDB or Spark) where the data is.

The sides are joined into the groups ``cells(tc, pc, n)`` with the checks of every
``on_mismatch`` policy (:func:`ereval.statistics._cells.checked_cells`); the error
tables add one rule of their own: every record of the truth must be in the
prediction (with ``on_mismatch="twinless"`` the prediction may hold more records,
which count in its cluster sizes). The statements of
the statements above then give one row per true cluster or per record,
equal to the in-memory engine's: the same columns, types and order, integers
exactly and floats to the bit (the logarithms of the few distinct ratios are taken
in NumPy, and the sums per cluster are added in the in-memory engine's order).

A table comes back as a pandas DataFrame, or, with DuckDB, is written straight to a
CSV (optionally gzipped) or Parquet file by DuckDB (``out=``), so that a table of
one row per record never passes through Python. The CSV text is the same as that
of :meth:`pandas.DataFrame.to_csv`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Unpack, cast

import numpy as np

from .._errors import InputError, RecordMismatchError
from .._validation import examples
from ..engines import Database
from ..engines import _dialect as sql
from ..engines._plan import in_passes
from ..engines._sources import push_table, side_specs
from ..io import AlignOptions, MismatchPolicy, check_options, frame_column, to_numpy
from ..statistics._cells import checked_cells

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COPY_FORMATS",
    "CopyFormat",
    "ERROR_COLUMNS",
    "ErrorFile",
    "cell_errors_sql",
    "cluster_errors_sql",
    "copy_format",
    "distinct_ratios_sql",
    "engine_cluster_errors",
    "engine_record_errors",
    "load_cell_errors",
    "missing_truth_error",
    "pred_sizes_sql",
    "record_errors_sql",
    "sized_cells_sql",
    "true_sizes_sql",
]

CopyFormat = Literal["csv", "csv.gz", "parquet"]
#: The file formats DuckDB writes a table to directly, by the file's ending.
COPY_FORMATS: dict[str, CopyFormat] = {
    ".csv": "csv",
    ".csv.gz": "csv.gz",
    ".parquet": "parquet",
    ".pq": "parquet",
}
Table = Literal["record", "cluster"]

#: The error metrics of a record, in the order of the tables' columns.
ERROR_COLUMNS = ("EI", "SDE", "OCE", "UCE", "ROCE", "RUCE", "H")
_COUNTED = ("EI", "SDE", "OCE", "UCE")  # integers per record: exact sums
_FLOATS = ("ROCE", "RUCE", "H")


def _double(x: str) -> str:
    return f"CAST({x} AS DOUBLE)"


def true_sizes_sql(cells: str) -> str:
    """Per true cluster with a record in the prediction: ``k`` its key, ``a`` its
    size (every record of the truth is in the prediction once checked, or, with
    ``on_mismatch="intersection"``, only the common records count) and ``deg`` its
    cells."""
    return (
        f"SELECT tc AS k, CAST(sum(n) AS BIGINT) AS a, count(*) AS deg FROM {cells} "
        "WHERE tc IS NOT NULL AND pc IS NOT NULL GROUP BY tc"
    )


def pred_sizes_sql(cells: str, *, common_only: bool) -> str:
    """Per predicted cluster: ``k`` its key and ``b`` its size, counting the records of
    the prediction only unless ``common_only``."""
    both = " AND tc IS NOT NULL" if common_only else ""
    return (
        f"SELECT pc AS k, CAST(sum(n) AS BIGINT) AS b FROM {cells} "
        f"WHERE pc IS NOT NULL{both} GROUP BY pc"
    )


def sized_cells_sql(cells: str, true_sizes: str, pred_sizes: str) -> str:
    """The cells of records on both sides with their clusters' sizes and their true
    cluster's number of cells: ``tc, pc, n, a, b, deg``."""
    return (
        "SELECT c.tc, c.pc, CAST(c.n AS BIGINT) AS n, t.a, p.b, t.deg "
        f"FROM {cells} AS c JOIN {true_sizes} AS t ON c.tc = t.k "
        f"JOIN {pred_sizes} AS p ON c.pc = p.k"
    )


def distinct_ratios_sql(sized_cells: str) -> str:
    """The distinct pairs ``(n, b)`` of the cells, whose ``ln(n / b)`` the caller takes:
    few, since cluster sizes take few values."""
    return f"SELECT DISTINCT n, b FROM {sized_cells}"


def cell_errors_sql(sized_cells: str, logs: str, *, dialect: sql.Dialect = sql.DUCKDB) -> str:
    """Each cell's error metrics (those of each of its records): ``tc, pc, n, a, b, deg``
    and :data:`ERROR_COLUMNS`, with ``OCE = b - n``, ``UCE = a - n``, ``SDE = b - a``,
    ``EI = 1`` unless ``n = a = b``, ``ROCE = OCE / b``, ``RUCE = UCE / a`` (one division
    of doubles) and ``H`` read from ``logs(n, b, h)``. With DuckDB the rows are sorted
    by ``(tc, pc)``, which makes the ordered sums of :func:`cluster_errors_sql` cheap."""
    q = dialect.ident
    order = dialect.keeps_order("x.tc, x.pc")
    return (
        "SELECT x.tc, x.pc, x.n, x.a, x.b, x.deg, "
        f"CAST(CASE WHEN x.n = x.a AND x.n = x.b THEN 0 ELSE 1 END AS BIGINT) AS {q('EI')}, "
        f"x.b - x.a AS {q('SDE')}, x.b - x.n AS {q('OCE')}, x.a - x.n AS {q('UCE')}, "
        f"{_double('x.b - x.n')} / {_double('x.b')} AS {q('ROCE')}, "
        f"{_double('x.a - x.n')} / {_double('x.a')} AS {q('RUCE')}, "
        f"l.h AS {q('H')} "
        f"FROM {sized_cells} AS x JOIN {logs} AS l ON x.n = l.n AND x.b = l.b{order}"
    )


def _ordered_sum(value: str, order: str, dialect: sql.Dialect) -> str:
    """The sum of the doubles ``value``, added one after another in the order of
    ``order`` (so that it rounds as a sequential sum in that order does)."""
    return dialect.ordered_sum(value, order)


def cluster_errors_sql(cell_errors: str, *, dialect: sql.Dialect = sql.DUCKDB) -> str:
    """One row per true cluster, in increasing order of its id: ``cluster_id``,
    ``size``, ``n_pred_clusters`` (its cells) and the means of its records' metrics,
    ``sum(n x) / a`` over its cells. The counts are summed in integers, exactly; the
    floats ``n x`` are added in the order of the predicted cluster ids, for the
    clusters of several cells (a cluster of one cell is its cell's row, no group)."""
    q = dialect.ident
    a, n = _double("a"), _double("n")
    single = [f"{_double(f'n * {q(col)}')} / {a} AS {q(col)}" for col in _COUNTED]
    single += [f"{n} * {q(col)} / {a} AS {q(col)}" for col in _FLOATS]
    means = [f"{_double(f'sum(n * {q(col)})')} / {a} AS {q(col)}" for col in _COUNTED]
    for col in _FLOATS:
        means.append(f"{_ordered_sum(f'{n} * {q(col)}', 'pc', dialect)} / {a} AS {q(col)}")
    head = "tc AS cluster_id, a AS size"
    return (
        f"SELECT {head}, CAST(1 AS BIGINT) AS n_pred_clusters, "
        + ", ".join(single)
        + f" FROM {cell_errors} WHERE deg = 1 UNION ALL "
        + f"SELECT {head}, count(*) AS n_pred_clusters, "
        + ", ".join(means)
        + f" FROM {cell_errors} WHERE deg > 1 GROUP BY tc, a ORDER BY cluster_id"
    )


def record_errors_sql(
    truth: str, pred: str, cell_errors: str, *, dialect: sql.Dialect = sql.DUCKDB
) -> str:
    """One row per record on both sides, in increasing order of its id: ``record_id,
    true_cluster, pred_cluster, true_size, pred_size`` and its cell's metrics."""
    q = dialect.ident
    metrics = ", ".join(f"v.{q(col)}" for col in ERROR_COLUMNS)
    return (
        "SELECT t.r AS record_id, t.c AS true_cluster, p.c AS pred_cluster, "
        f"v.a AS true_size, v.b AS pred_size, {metrics} "
        f"FROM {truth} AS t JOIN {pred} AS p ON t.r = p.r "
        f"JOIN {cell_errors} AS v ON t.c = v.tc AND p.c = v.pc ORDER BY t.r"
    )


def copy_format(path: str | os.PathLike[str]) -> CopyFormat | None:
    """The format DuckDB writes ``path`` in, from its ending; None when DuckDB does not
    write it directly (``.json``, say).

    Examples
    --------
    >>> copy_format("errors.csv.gz"), copy_format("e.PARQUET"), copy_format("e.json")
    ('csv.gz', 'parquet', None)
    """
    name = Path(path).name.lower()
    hits = [s for s in COPY_FORMATS if name.endswith(s) and len(name) > len(s)]
    return COPY_FORMATS[max(hits, key=len)] if hits else None


def missing_truth_error(count: int, shown: Any) -> RecordMismatchError:
    """The error for ``count`` records of the truth absent from the prediction, showing
    the smallest of them (``shown``, at most three, smallest first)."""
    return RecordMismatchError(
        f"{count} record(s) of 'truth' are absent from 'pred' (e.g. {examples(list(shown))}); "
        "error metrics need every true record to have a predicted cluster"
    )


def engine_record_errors(
    engine: Any,
    truth: Any,
    pred: Any,
    *,
    out: str | os.PathLike[str] | None = None,
    out_format: CopyFormat | None = None,
    progress: Callable[[str], None] | None = None,
    in_memory: Callable[[], pd.DataFrame] | None = None,
    **options: Unpack[AlignOptions],
) -> pd.DataFrame | int:
    """One row per true record with its error metrics, computed by ``engine``.

    Parameters
    ----------
    engine : Engine
        The engine running the job: an SQL engine computes the table where the data
        is; the NumPy engine calls ``in_memory``.
    truth, pred
        Files (a path, a glob or a folder of parts), or relations / DataFrames of the
        engine.
    out : path, optional
        DuckDB only: write the table to this file instead of returning it.
    out_format : {"csv", "csv.gz", "parquet"}, optional
        The format of ``out`` (default: from its ending, :func:`copy_format`).
    progress : callable, optional
        Called with the name of each phase.
    in_memory : callable, optional
        The table computed in memory, called when ``engine`` runs jobs in memory.
    **options
        Those of :func:`ereval.io.align`.

    Returns
    -------
    DataFrame or int
        The table of :func:`ereval.metrics.record_errors` (same columns,
        types and order: increasing record id), or the number of its rows when
        written to ``out``.
    """
    return _errors(engine, truth, pred, "record", out, out_format, progress, in_memory, options)


def engine_cluster_errors(
    engine: Any,
    truth: Any,
    pred: Any,
    *,
    out: str | os.PathLike[str] | None = None,
    out_format: CopyFormat | None = None,
    progress: Callable[[str], None] | None = None,
    in_memory: Callable[[], pd.DataFrame] | None = None,
    **options: Unpack[AlignOptions],
) -> pd.DataFrame | int:
    """One row per true cluster with the means of its records' error metrics, computed
    by ``engine``; parameters as in :func:`engine_record_errors`.

    Returns
    -------
    DataFrame or int
        The table of :func:`ereval.metrics.cluster_errors` (increasing true
        cluster id), or the number of its rows when written to ``out``.
    """
    return _errors(engine, truth, pred, "cluster", out, out_format, progress, in_memory, options)


def _errors(
    engine: Any,
    truth: Any,
    pred: Any,
    table: Table,
    out: str | os.PathLike[str] | None,
    out_format: CopyFormat | None,
    progress: Callable[[str], None] | None,
    in_memory: Callable[[], pd.DataFrame] | None,
    options: AlignOptions,
) -> pd.DataFrame | int:
    if not hasattr(engine, "run"):
        raise InputError(
            f"'engine': expected an engine (NumPy, DuckDB or Spark); received {engine!r}"
        )
    check_options(options)
    fmt: CopyFormat | None = None
    if out is not None:
        if not engine.writes_files:
            raise InputError(
                f"'out': only the DuckDB engine writes the table itself; the {engine.name} "
                "engine returns it (write the DataFrame)"
            )
        fmt = out_format or copy_format(out)
        if fmt is None:
            raise InputError(
                f"'out': DuckDB writes .csv, .csv.gz and .parquet files; received '{out}'"
            )
        if fmt not in ("csv", "csv.gz", "parquet"):
            raise InputError(f"'out_format' must be 'csv', 'csv.gz' or 'parquet'; received {fmt!r}")
    return cast(
        "pd.DataFrame | int",
        engine.run(_ErrorsJob(truth, pred, table, out, fmt, progress, in_memory, options)),
    )


class _ErrorsJob:
    """The error table of ``truth`` against ``pred``, in memory or in SQL."""

    def __init__(
        self,
        truth: Any,
        pred: Any,
        table: Table,
        out: str | os.PathLike[str] | None,
        fmt: CopyFormat | None,
        progress: Callable[[str], None] | None,
        in_memory: Callable[[], pd.DataFrame] | None,
        options: AlignOptions,
    ) -> None:
        self.truth, self.pred, self.table, self.out, self.fmt = truth, pred, table, out, fmt
        self.progress, self.memory, self.options = progress, in_memory, options

    def in_memory(self, engine: Any) -> pd.DataFrame:
        if self.memory is None:
            raise InputError(
                f"'engine': expected the DuckDB or the Spark engine; received {engine!r}"
            )
        return self.memory()

    def in_sql(self, db: Database) -> pd.DataFrame | int:
        progress, table, out, fmt, dialect = (
            self.progress,
            self.table,
            self.out,
            self.fmt,
            db.dialect,
        )
        load_cell_errors(db, self.truth, self.pred, self.options, progress)
        if progress is not None:
            progress(f"computing the {table} errors ({db.name})")
        if table == "record":
            query = record_errors_sql("t", "p", "cell_errors", dialect=dialect)
        else:
            query = cluster_errors_sql("cell_errors", dialect=dialect)
        if out is not None and fmt is not None:
            return db.copy_to(query, Path(out), fmt)
        return _frame(db.fetch_arrow(query), table)


def load_cell_errors(
    db: Database,
    truth: Any,
    pred: Any,
    options: AlignOptions,
    progress: Callable[[str], None] | None = None,
) -> None:
    """The views ``t`` and ``p`` of ``truth`` and ``pred`` read by ``db`` and the table
    ``cell_errors`` of each cell's metrics (:func:`cell_errors_sql`), after the checks
    of ``options``' policy and that every true record is in the prediction."""
    sides = (("t", truth, "truth"), ("p", pred, "pred"))
    policy, id_type, specs = side_specs(options, sides)
    if policy == "singletons":
        raise InputError(
            f"'on_mismatch': the {db.name} engine's error tables take 'error', "
            "'intersection' or 'twinless'; for on_mismatch='singletons' use engine='numpy'"
        )
    if progress is not None:
        progress(f"reading the clusterings ({db.name})")
    rows = db.load(specs, id_type=id_type)
    if progress is not None:
        progress(f"joining the records ({db.name})")
    _cell_errors(db, (rows[0], rows[1]), policy, db.dialect)


def _cell_errors(
    con: Any, rows: tuple[int, int], policy: MismatchPolicy, dialect: sql.Dialect
) -> None:
    """The table ``cell_errors`` of each cell's metrics, after the checks: those of the
    policy, then that every true record is in the prediction."""

    # the cells in the passes of the memory limit's plan, as for the metrics
    def run(passes: int) -> tuple[int, int, int]:
        return checked_cells(con, ("t", "p"), rows, policy, dialect, passes=passes)

    _, only_t, _ = in_passes(con, sum(rows), run, leaves=("cells",))
    if only_t and policy == "twinless":
        shown = [
            r[0]
            for r in con.execute(sql.mismatch_examples_sql("t", "p", dialect=dialect)).fetchall()
        ]
        raise missing_truth_error(only_t, shown)
    common_only = policy == "intersection"
    con.execute("CREATE TEMP TABLE true_sizes AS " + true_sizes_sql("cells"))
    con.execute(
        "CREATE TEMP TABLE pred_sizes AS " + pred_sizes_sql("cells", common_only=common_only)
    )
    con.execute(
        "CREATE TEMP TABLE sized_cells AS " + sized_cells_sql("cells", "true_sizes", "pred_sizes")
    )
    ratios = con.execute(distinct_ratios_sql("sized_cells")).fetchnumpy()
    n = np.asarray(ratios["n"], dtype=np.int64)
    b = np.asarray(ratios["b"], dtype=np.int64)
    import pyarrow as pa

    # NumPy's logarithm, as the in-memory engine takes it (libm's may differ by an ulp)
    push_table(con, "logs", pa.table({"n": n, "b": b, "h": np.log(n / b)}))
    con.execute(
        "CREATE TEMP TABLE cell_errors AS "
        + cell_errors_sql("sized_cells", "logs", dialect=dialect)
    )


_INTEGER_COLUMNS = {
    "record": ("true_size", "pred_size", "EI", "SDE", "OCE", "UCE"),
    "cluster": ("size", "n_pred_clusters"),
}


def _frame(rows: Any, table: Table) -> pd.DataFrame:
    """The fetched rows (an Arrow table) as the in-memory engine's frame: counts as
    int64, metrics as float64, ids as written (:func:`~ereval.io.frame_column`; a
    decimal id keeps its digits, which NumPy's fetch turned into a float)."""
    out: dict[str, Any] = {}
    for name in rows.column_names:
        values = rows.column(name).combine_chunks()
        if name in _INTEGER_COLUMNS[table]:
            out[name] = to_numpy(values).astype(np.int64, copy=False)
        elif name in ERROR_COLUMNS:
            out[name] = to_numpy(values).astype(np.float64, copy=False)
        else:
            out[name] = frame_column(values)
    import pandas as pd

    return pd.DataFrame(out)


class ErrorFile:
    """An error table written to a Parquet file by ``out=`` (DuckDB), read back a part
    at a time as the frames the in-memory engine returns (:func:`_frame`): the table
    of a big input is printed without being held in memory whole.

    ``len()`` is its number of rows and :attr:`columns` its columns; :meth:`rows`
    reads the row groups that hold a range of rows; :meth:`frames` reads them all,
    one row group after another. Used as a context manager, it closes the file.
    """

    def __init__(self, path: str | os.PathLike[str], table: Table) -> None:
        import pyarrow.parquet as pq

        self._file = pq.ParquetFile(path)
        self._table = table
        sizes = [self._file.metadata.row_group(k).num_rows for k in range(self._groups)]
        self._starts = np.cumsum([0, *sizes])

    def __enter__(self) -> ErrorFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()  # the folder it is in can then be removed on any system

    @property
    def _groups(self) -> int:
        return int(self._file.metadata.num_row_groups)

    def __len__(self) -> int:
        return int(self._file.metadata.num_rows)

    @property
    def columns(self) -> list[str]:
        return list(self._file.schema_arrow.names)

    def frames(self) -> Iterator[pd.DataFrame]:
        """The table, a frame of each row group in order."""
        for k in range(self._groups):
            yield _frame(self._file.read_row_group(k), self._table)

    def rows(self, start: int, stop: int) -> pd.DataFrame:
        """Rows ``start .. stop - 1`` (``0 <= start <= stop <= len(self)``)."""
        first = max(int(np.searchsorted(self._starts, start, side="right")) - 1, 0)
        last = max(int(np.searchsorted(self._starts, stop, side="left")), first + 1)
        groups = list(range(first, min(last, self._groups)))
        read = (
            self._file.read_row_groups(groups) if groups else self._file.schema_arrow.empty_table()
        )
        at = start - int(self._starts[first]) if groups else 0
        return _frame(read.slice(at, stop - start), self._table)
