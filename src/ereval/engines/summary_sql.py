"""SQL text of the summary statistics of one clustering, built by pure functions.

The clustering is the view ``side(r, c, ...)`` that an engine's ``run`` loads
(:class:`~ereval.engines._cells.SideSpec`); a record's name is one more column
of it (``s``), or of a second view of names keyed by the same record key. Every
statement is a scan, a GROUP BY or a join, and returns a few aggregates: the
cluster-size distribution comes from :func:`ereval.engines.sql.size_distribution_sql`
and the duplicate check from :func:`ereval.engines.sql.duplicates_sql`; this
module adds the names' checks, the size distribution with the homonymy and
name-variation counts (Binette et al. 2024, eqs. 2-3) in one statement, and the
sizes of the clusters.

The statements are the same in DuckDB's and Spark's SQL, but for the anti-join
keyword (``dialect``).
"""

from __future__ import annotations

from .sql import DUCKDB, Dialect

__all__ = [
    "FLOAT_TYPES",
    "TEXT_TYPES",
    "cluster_sizes_sql",
    "column_types_sql",
    "missing_counts_sql",
    "missing_examples_sql",
    "missing_sql",
    "named_records_sql",
    "names_by_size_sql",
    "unnamed_count_sql",
]

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


def unnamed_count_sql(side: str, names: str, *, dialect: Dialect = DUCKDB) -> str:
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
