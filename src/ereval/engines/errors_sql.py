"""SQL text of the error tables (Binette et al. 2024, §3.3.1), built by pure functions.

The statements start from the groups ``cells(tc, pc, n)`` of
:func:`ereval.engines.sql.cells_sql` and the sides ``t(r, c)``, ``p(r, c)``:

1. the true and the predicted cluster sizes ``a`` and ``b`` (:func:`true_sizes_sql`,
   :func:`pred_sizes_sql`) and the cells with both (:func:`sized_cells_sql`);
2. each cell's error metrics (:func:`cell_errors_sql`), its ``H = ln(n / b)`` read
   from a small table ``(n, b, h)`` of the distinct pairs (:func:`distinct_ratios_sql`)
   whose logarithms are taken by the caller, in NumPy, so that every engine gives
   the in-memory engine's bits;
3. one row per true cluster (:func:`cluster_errors_sql`): the means of its records'
   metrics, the counts summed exactly in integers and the floats summed over the
   cluster's cells in the order of their predicted cluster ids, as the in-memory
   engine adds them, so that the sums round alike;
4. one row per record (:func:`record_errors_sql`): the truth's records joined with
   the prediction's and with their cell's metrics.

Rows come in increasing order of the true cluster id, or of the record id. Each
function returns a string and runs nothing.
"""

from __future__ import annotations

from . import sql

__all__ = [
    "ERROR_COLUMNS",
    "cell_errors_sql",
    "cluster_errors_sql",
    "distinct_ratios_sql",
    "pred_sizes_sql",
    "record_errors_sql",
    "sized_cells_sql",
    "true_sizes_sql",
]

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
    order = " ORDER BY x.tc, x.pc" if dialect.name == "duckdb" else ""
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
    if dialect.name == "duckdb":
        return f"sum({value} ORDER BY {order})"
    return (
        f"aggregate(array_sort(collect_list(named_struct('k', {order}, 'w', {value}))), "
        "CAST(0 AS DOUBLE), (acc, s) -> acc + s.w)"
    )


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
