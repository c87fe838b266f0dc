"""The error tables computed by an SQL engine (DuckDB or Spark) where the data is.

The sides are joined into the groups ``cells(tc, pc, n)`` with the checks of every
``on_mismatch`` policy (:func:`ereval.engines._cells.checked_cells`); the error
tables add one rule of their own: every record of the truth must be in the
prediction (with ``on_mismatch="twinless"`` the prediction may hold more records,
which count in its cluster sizes). The statements of
:mod:`ereval.engines.errors_sql` then give one row per true cluster or per record,
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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Unpack

import numpy as np

from .._errors import InputError, RecordMismatchError
from .._validation import examples
from ..io import AlignOptions, MismatchPolicy
from . import errors_sql as esql
from . import sql
from ._cells import checked_cells, push_table, side_specs

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COPY_FORMATS",
    "CopyFormat",
    "copy_format",
    "engine_cluster_errors",
    "engine_record_errors",
    "missing_truth_error",
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
    **options: Unpack[AlignOptions],
) -> pd.DataFrame | None:
    """One row per true record with its error metrics, computed by ``engine``.

    Parameters
    ----------
    engine : DuckDBEngine or SparkEngine
        An engine with a ``run`` method (see :meth:`ereval.engines.DuckDBEngine.run`).
    truth, pred
        Files (a path, a glob or a folder of parts), or relations / DataFrames of the
        engine.
    out : path, optional
        DuckDB only: write the table to this file instead of returning it.
    out_format : {"csv", "csv.gz", "parquet"}, optional
        The format of ``out`` (default: from its ending, :func:`copy_format`).
    progress : callable, optional
        Called with the name of each phase.
    **options
        Those of :func:`ereval.io.align`.

    Returns
    -------
    DataFrame or None
        The table of :func:`ereval.metrics.records.record_errors` (same columns,
        types and order: increasing record id), or None when written to ``out``.
    """
    return _errors(engine, truth, pred, "record", out, out_format, progress, options)


def engine_cluster_errors(
    engine: Any,
    truth: Any,
    pred: Any,
    *,
    out: str | os.PathLike[str] | None = None,
    out_format: CopyFormat | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Unpack[AlignOptions],
) -> pd.DataFrame | None:
    """One row per true cluster with the means of its records' error metrics, computed
    by ``engine``; parameters as in :func:`engine_record_errors`.

    Returns
    -------
    DataFrame or None
        The table of :func:`ereval.metrics.records.cluster_errors` (increasing true
        cluster id), or None when written to ``out``.
    """
    return _errors(engine, truth, pred, "cluster", out, out_format, progress, options)


def _errors(
    engine: Any,
    truth: Any,
    pred: Any,
    table: Table,
    out: str | os.PathLike[str] | None,
    out_format: CopyFormat | None,
    progress: Callable[[str], None] | None,
    options: AlignOptions,
) -> pd.DataFrame | None:
    if not hasattr(engine, "run"):
        raise InputError(f"'engine': expected the DuckDB or the Spark engine; received {engine!r}")
    dialect = sql.SPARK if engine.name == "spark" else sql.DUCKDB
    fmt: CopyFormat | None = None
    if out is not None:
        if engine.name != "duckdb":
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
    policy, id_type, specs = side_specs(options, (("t", truth, "truth"), ("p", pred, "pred")))
    if policy == "singletons":
        raise InputError(
            f"'on_mismatch': the {engine.name} engine's error tables take 'error', "
            "'intersection' or 'twinless'; for on_mismatch='singletons' use engine='numpy'"
        )

    def work(con: Any, rows: list[int]) -> pd.DataFrame | None:
        if progress is not None:
            progress(f"joining the records ({engine.name})")
        _cell_errors(con, (rows[0], rows[1]), policy, dialect)
        if progress is not None:
            progress(f"computing the {table} errors ({engine.name})")
        if table == "record":
            query = esql.record_errors_sql("t", "p", "cell_errors", dialect=dialect)
        else:
            query = esql.cluster_errors_sql("cell_errors", dialect=dialect)
        if out is not None and fmt is not None:
            con.execute(_copy_sql(query, Path(out), fmt))
            return None
        got = con.execute(query).fetchnumpy()
        return _frame(got, table)

    if progress is not None:
        progress(f"reading the clusterings ({engine.name})")
    result: pd.DataFrame | None = engine.run(specs, work, id_type=id_type)
    return result


def _cell_errors(
    con: Any, rows: tuple[int, int], policy: MismatchPolicy, dialect: sql.Dialect
) -> None:
    """The table ``cell_errors`` of each cell's metrics, after the checks: those of the
    policy, then that every true record is in the prediction."""
    _, only_t, _ = checked_cells(con, ("t", "p"), rows, policy, dialect)
    if only_t and policy == "twinless":
        shown = [
            r[0]
            for r in con.execute(sql.mismatch_examples_sql("t", "p", dialect=dialect)).fetchall()
        ]
        raise missing_truth_error(only_t, shown)
    common_only = policy == "intersection"
    con.execute("CREATE TEMP TABLE true_sizes AS " + esql.true_sizes_sql("cells"))
    con.execute(
        "CREATE TEMP TABLE pred_sizes AS " + esql.pred_sizes_sql("cells", common_only=common_only)
    )
    con.execute(
        "CREATE TEMP TABLE sized_cells AS "
        + esql.sized_cells_sql("cells", "true_sizes", "pred_sizes")
    )
    ratios = con.execute(esql.distinct_ratios_sql("sized_cells")).fetchnumpy()
    n = np.asarray(ratios["n"], dtype=np.int64)
    b = np.asarray(ratios["b"], dtype=np.int64)
    import pyarrow as pa

    # NumPy's logarithm, as the in-memory engine takes it (libm's may differ by an ulp)
    push_table(con, "logs", pa.table({"n": n, "b": b, "h": np.log(n / b)}))
    con.execute(
        "CREATE TEMP TABLE cell_errors AS "
        + esql.cell_errors_sql("sized_cells", "logs", dialect=dialect)
    )


_INTEGER_COLUMNS = {
    "record": ("true_size", "pred_size", "EI", "SDE", "OCE", "UCE"),
    "cluster": ("size", "n_pred_clusters"),
}


def _frame(columns: dict[str, Any], table: Table) -> pd.DataFrame:
    """The fetched columns as the in-memory engine's frame (counts as int64, metrics as
    float64, ids as they are: Python ``str`` objects for text)."""
    out = {}
    for name, values in columns.items():
        arr = np.asarray(values)
        if name in _INTEGER_COLUMNS[table]:
            arr = arr.astype(np.int64, copy=False)
        elif name in esql.ERROR_COLUMNS:
            arr = arr.astype(np.float64, copy=False)
        out[name] = arr
    import pandas as pd

    return pd.DataFrame(out)


def _copy_sql(query: str, path: Path, fmt: CopyFormat) -> str:
    """DuckDB's statement writing the rows of ``query`` to ``path``: CSV as pandas writes
    it (a header, minimal quoting with ``"``, ``\\n`` line ends) or Parquet."""
    target = sql.quote(str(path))
    if fmt == "parquet":
        return f"COPY ({query}) TO {target} (FORMAT parquet)"
    compression = "gzip" if fmt == "csv.gz" else "none"
    return (
        f"COPY ({query}) TO {target} (FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', "
        f"ESCAPE '\"', COMPRESSION {compression})"
    )
